// End to end: an EffectiveHPA's cron window is open when the hpa-assigner is killed and NATS restarts (its data kept).
// The pre-seeded usage history is still in the metrics stream, the window's end still comes on time from the durable
// boundary timer, and each boundary scales the template exactly once.
import { connectBus, eventTypeOf, readEvents, type Bus } from '@flotilla/bus';
import { Suite, type ServiceProcess } from '@flotilla/launcher';
import { JetStreamHistory } from '@flotilla/metric-history';
import { eventually, freeTcpPort, PrivateNats, REDIS_URL, uniquePrefix } from '@flotilla/testkit';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { flotilla } from './support/cli.js';
import { seedHistory, sineWorkloadManifests, WEB, waitForWorkloadReported } from './support/sim-workload.js';
import { removeRedisKeys, ROOT } from './support/suite.js';

let nats: PrivateNats;
let suite: Suite;
let bus: Bus;
let env: Record<string, string>;
const logs: string[] = [];
const cli = (args: string[], stdin = '') => flotilla(env, args, stdin);

const nowS = Math.floor(Date.now() / 60_000) * 60;
/** A daily sine of 1.2 ± 0.3 cores: periodic enough for Crane's DSP, and always within 2 pods at 80 %. */
const originS = nowS - 3 * 86_400;
const usage = (t: number) => 1.2 + 0.3 * Math.sin((2 * Math.PI * (t - originS)) / 86_400);

beforeAll(async () => {
  nats = new PrivateNats(await freeTcpPort());
  await nats.start();
  env = {
    NATS_URL: nats.url,
    REDIS_URL,
    FLOTILLA_PREFIX: uniquePrefix('ehpart'),
    LOG_LEVEL: 'info',
    LEADER_LEASE_MS: '2000',
    SIM_TICK_MS: '300',
    PROVISION_CHECK_MS: '500',
    RESYNC_MS: '2000',
    // Longer than the window: only the boundary timer can explain a change right at a boundary.
    EHPA_SYNC_PERIOD_MS: '150000',
  };
  suite = new Suite({
    root: ROOT,
    services: ['gateway', 'status-writer', 'member-agent', 'affinity-scheduler', 'hpa-assigner'],
    env,
    onOutput: (s, l) => logs.push(`[${s}] ${l}`),
  });
  await suite.start();
  bus = await connectBus({ url: env.NATS_URL!, prefix: env.FLOTILLA_PREFIX! });
}, 60_000);

afterAll(async () => {
  await bus?.close();
  await suite?.stop();
  await nats?.dispose();
  if (env) await removeRedisKeys(env.FLOTILLA_PREFIX!);
}, 60_000);

const cron = (d: Date) => `${d.getUTCMinutes()} ${d.getUTCHours()} * * *`;
const ehpa = (start: Date, end: Date) => `
apiVersion: autoscaling.crane.io/v1alpha1
kind: EffectiveHorizontalPodAutoscaler
metadata: { name: web, namespace: default }
spec:
  scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: web }
  minReplicas: 2
  maxReplicas: 10
  metrics:
    - type: Resource
      resource: { name: cpu, target: { type: Utilization, averageUtilization: 80 } }
  prediction:
    predictionWindowSeconds: 3600
    predictionAlgorithm: { algorithmType: dsp, dsp: { sampleInterval: 60s, historyLength: 3d } }
  crons:
    - { name: burst, timezone: UTC, start: "${cron(start)}", end: "${cron(end)}", targetReplicas: 6 }
  behavior:
    scaleUp: { policies: [{ type: Pods, value: 10, periodSeconds: 15 }] }
    scaleDown: { stabilizationWindowSeconds: 0, policies: [{ type: Pods, value: 10, periodSeconds: 15 }] }
`;

interface Scaled {
  timeMs: number;
  source: string;
  toReplicas: number;
}
async function scaledEvents(): Promise<Scaled[]> {
  const out: Scaled[] = [];
  for await (const d of readEvents(bus, { filter: { kind: 'EffectiveHorizontalPodAutoscaler', name: 'web' } })) {
    if (eventTypeOf(d.event) !== 'EffectiveHPAScaled') continue;
    const data = d.event.data as { source: string; toReplicas: number };
    out.push({ timeMs: Date.parse(d.event.time), source: data.source, toReplicas: data.toReplicas });
  }
  return out;
}

const templateReplicas = async () =>
  (
    JSON.parse((await cli(['get', 'deploy', 'web', '-n', 'default', '-o', 'json'])).out) as {
      spec: { replicas: number };
    }
  ).spec.replicas;

describe('EffectiveHPA across a restart of the hpa-assigner and NATS', () => {
  it('keeps the history and the cron window, and scales once at each boundary', async () => {
    onTestFailed(() => console.log(`the services' last output:\n${logs.slice(-60).join('\n')}`));
    const seeded = await seedHistory(bus, nowS - 3 * 86_400, nowS, usage);
    const history = new JetStreamHistory(bus);
    const seededRange = {
      start: new Date((nowS - 3 * 86_400) * 1000),
      end: new Date((nowS - 1) * 1000),
      stepSeconds: 60,
    };

    const applied = await cli(
      ['apply', '-f', '-'],
      sineWorkloadManifests({ cores: 1.2, amplitude: 0.3, originS, replicas: 2 }),
    );
    expect(applied.code, applied.err).toBe(0);
    await waitForWorkloadReported(env, bus, 2);

    // The window is the next whole minute at least 12 s away, so the first pass arms its start well before it.
    const startMs = Math.ceil((Date.now() + 12_000) / 60_000) * 60_000;
    const endMs = startMs + 60_000;
    const r = await cli(['apply', '-f', '-'], ehpa(new Date(startMs), new Date(endMs)));
    expect(r.code, r.err).toBe(0);

    const up = await eventually(async () => (await scaledEvents())[0], 90_000, 'the scale-up at the window start');
    expect(up).toMatchObject({ source: 'cron', toReplicas: 6 });
    expect(up.timeMs - startMs).toBeGreaterThanOrEqual(0);
    expect(up.timeMs - startMs).toBeLessThan(2000);

    // Mid-window: the leader dies without a word, NATS goes down and comes back with its data, a new leader starts.
    const restartAt = Date.now();
    await suite.kill(suite.processes.find((p) => p.name === 'hpa-assigner') as ServiceProcess);
    await nats.stop('SIGKILL');
    await nats.start();
    await suite.startService('hpa-assigner');
    const restartMs = Date.now() - restartAt;
    expect(Date.now(), 'the restart is over before the window ends').toBeLessThan(endMs - 10_000);

    // The test's own connection may still be reconnecting; once it answers, every seeded sample is there.
    const kept = await eventually(
      async () => {
        const samples = await history.range(WEB, seededRange).catch(() => []);
        return samples.length ? samples : undefined;
      },
      20_000,
      'the history read back after the restart',
    );
    expect(kept).toEqual(seeded);
    // The new leader reads the surviving history (its forecast is ready) and leaves the template as the window set it.
    await eventually(
      async () => {
        for await (const d of readEvents(bus, { filter: { kind: 'EffectiveHorizontalPodAutoscaler', name: 'web' } })) {
          const t = Date.parse(d.event.time);
          const patch = (d.event.data as { statusPatch: { conditions?: Array<{ type: string; status: string }> } })
            .statusPatch;
          const ready = patch.conditions?.some((c) => c.type === 'PredictionReady' && c.status === 'True');
          if (t > restartAt && ready) return true;
        }
        return undefined;
      },
      20_000,
      'the new leader evaluating with the forecast ready',
    );
    expect(await scaledEvents()).toHaveLength(1);
    expect(await templateReplicas()).toBe(6);

    const down = await eventually(async () => (await scaledEvents())[1], 70_000, 'the release at the window end');
    // every source proposes the minimum once the window is over, so the release names whichever comes first
    expect(down.toReplicas).toBe(2);
    expect(down.timeMs - endMs).toBeGreaterThanOrEqual(0);
    expect(down.timeMs - endMs).toBeLessThan(2000);

    // A little after the end, nothing more: one scale per boundary, the template where the window left it.
    await new Promise((res) => setTimeout(res, 3000));
    const all = await scaledEvents();
    expect(all.map((e) => [e.timeMs < endMs ? 'start' : 'end', e.toReplicas])).toEqual([
      ['start', 6],
      ['end', 2],
    ]);
    expect(await templateReplicas()).toBe(2);

    const status = await eventually(
      async () => {
        const o = JSON.parse((await cli(['get', 'ehpa', 'web', '-n', 'default', '-o', 'json'])).out) as {
          status?: Record<string, unknown>;
        };
        return o.status?.lastScaleTime !== undefined && Date.parse(String(o.status.lastScaleTime)) >= endMs - 1000
          ? o.status
          : undefined;
      },
      20_000,
      'the status folded after the window end',
    );
    expect(status).toMatchObject({ expectReplicas: 2, winningSource: expect.any(String), activeCrons: [] });
    expect(Date.parse(String(status.nextCronBoundary))).toBe(startMs + 86_400_000);
    expect(status.conditions).toContainEqual(expect.objectContaining({ type: 'PredictionReady', status: 'True' }));
    console.log(
      `restart (kill, NATS down and up, new hpa-assigner ready) took ${restartMs} ms; ` +
        `scaled ${up.timeMs - startMs} ms after the start and ${down.timeMs - endMs} ms after the end`,
    );
  }, 200_000);
});
