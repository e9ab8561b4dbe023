// Reliability: kill -9 the hpa-assigner leader while a cross-cluster scale-up waits out its
// autoscaleMultiClusterDelay. The standby finishes it from the delayed job the dead leader armed in Redis, and the
// move is applied once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { connectBus, type Bus } from '@flotilla/bus';
import { createDelayedQueue, jobDueAt } from '@flotilla/runtime/delayed-jobs';
import { eventually, NATS_URL, REDIS_URL } from '@flotilla/testkit';
import { Redis } from 'ioredis';
import {
  assignedEvents,
  filler,
  fhpaCli,
  prioritizedBurst,
  simCluster,
  totalMax,
  waitForAssigned,
} from './support/fhpa.js';
import { afterPasses } from './support/metrics.js';
import { leaderPid, startSuite, type RunningSuite } from './support/suite.js';

const DELAY_SECONDS = 5;
const LEASE_MS = 2000;
let s: RunningSuite;
let dir: string;
let bus: Bus;
let redis: Redis;
const { cli, apply, limitsOf, replicasOf } = fhpaCli(
  () => s.env,
  () => dir,
);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flotilla-fhpa-failover-'));
  s = await startSuite(['gateway', 'status-writer', 'member-agent', 'affinity-scheduler', 'hpa-assigner'], {
    LEADER_LEASE_MS: String(LEASE_MS),
    SIM_TICK_MS: '200',
    SIM_HPA_SYNC_MS: '1000',
    RESYNC_MS: '2000',
    FHPA_SYNC_PERIOD_MS: '1000',
    FHPA_OPTIMISE_PERIOD_MS: '600000',
  });
  await s.suite.startService('hpa-assigner'); // the standby
  bus = await connectBus({ url: NATS_URL, prefix: s.env.FLOTILLA_PREFIX! });
  redis = new Redis(REDIS_URL);
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  await bus?.close();
  await s?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('hpa-assigner leader killed during a scale-up across clusters', () => {
  it('the standby finishes it from the surviving delay job, and the move is applied once', async () => {
    onTestFailed(() => console.log(`the services' last output:\n${s.logs.slice(-40).join('\n')}`));
    const prefix = s.env.FLOTILLA_PREFIX!;
    await apply(
      'clusters',
      [simCluster('small1', 'prio', '8'), simCluster('big2', 'prio', '16'), simCluster('big3', 'prio', '16')].join(
        '---\n',
      ),
    );
    for (const c of ['small1', 'big2', 'big3'])
      expect((await cli('wait', '--for=condition=Ready', `cluster/${c}`, '--timeout', '20s')).code).toBe(0);
    await apply('burst', prioritizedBurst(DELAY_SECONDS));
    await eventually(
      async () => ((await limitsOf('burst'))?.small1?.maxReplicas === 12 ? true : undefined),
      20_000,
      'all max in small1',
    );
    await apply('filler', filler);
    await eventually(
      async () => ((await replicasOf('aaa-filler')).small1?.readyReplicas === 12 ? true : undefined),
      20_000,
      'filler running',
    );

    // Pods pend in small1: the leader arms the delay job; kill it the moment the job is in Redis.
    expect((await cli('cluster', 'load', 'small1', '--workload', 'deploy/burst', '--constant', '4')).code).toBe(0);
    await eventually(
      async () => ((await redis.zcard(`${prefix}:hpa-assigner:delayed`)) > 0 ? true : undefined),
      30_000,
      'the delay job armed',
    );
    const armedAt = Date.now();
    const pid = await leaderPid(prefix, 'hpa-assigner');
    expect(pid).toBeDefined();
    process.kill(pid!, 'SIGKILL');
    const killedAt = Date.now();

    const moved = await eventually(
      async () => {
        const l = await limitsOf('burst');
        return l?.big2 ? l : undefined;
      },
      30_000,
      'the standby moved the max',
    );
    const movedAt = Date.now();
    expect(moved.small1!.maxReplicas).toBe(4);
    expect(moved.big2).toEqual({ minReplicas: 1, maxReplicas: 8 });
    expect(totalMax(moved)).toBe(12);
    // The delay the move waited out is the one the dead leader armed: every delay job there is was armed before the
    // kill (the new leader armed none, so the delay was kept, not restarted), and the move came once it ran out. The
    // job may still be delayed in Redis: the standby acts on its due time by its own timer, and BullMQ promotes and
    // completes it whenever its worker gets to it, so its state says nothing about the move.
    const queue = createDelayedQueue({ name: 'hpa-assigner', prefix, connection: redis });
    const jobs = await queue.getJobs(['delayed', 'prioritized', 'waiting', 'active', 'completed']);
    const states = await Promise.all(jobs.map((j) => j.getState()));
    await queue.close();
    expect(jobs.length).toBeGreaterThan(0);
    expect(Math.max(...jobs.map((j) => j.timestamp))).toBeLessThan(killedAt);
    const { event: scaledAcross } = await waitForAssigned(bus, 'burst', {
      reason: 'ScaledUpAcross',
      timeoutMs: 10_000,
    });
    expect(Date.parse(scaledAcross.time)).toBeGreaterThanOrEqual(Math.min(...jobs.map(jobDueAt)));
    console.log(
      `delay job armed → leader killed after ${killedAt - armedAt} ms → max moved after ${movedAt - armedAt} ms (delay ${DELAY_SECONDS} s, lease ${LEASE_MS} ms); the delay job then: ${states.join(', ')}`,
    );
    // Applied once: one ScaledUpAcross assignment, and two sync passes of the new leader later, nothing more.
    await afterPasses(s.suite, 'hpa-assigner', 'hpa-assigner');
    const events = await assignedEvents(bus, 'burst');
    expect(events.filter((e) => e.reason === 'ScaledUpAcross')).toHaveLength(1);
    expect(await limitsOf('burst')).toEqual(moved);
  }, 120_000);
});
