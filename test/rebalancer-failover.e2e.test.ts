// Reliability: kill -9 the rebalancer leader halfway through a rebalancer over 1,000 workloads.
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { admit } from '@flotilla/api';
import { connectBus, decodeJson, KvWatchInclude, readEvents, type Bus } from '@flotilla/bus';
import { GatewayClient } from '@flotilla/client';
import { ObjectStore, objectKey, type StatusRecord, type StoredObject } from '@flotilla/store';
import { eventually, NATS_URL } from '@flotilla/testkit';
import pMap from 'p-map';
import { leaderPid, startSuite, type RunningSuite } from './support/suite.js';

const WORKLOADS = 1000;
let s: RunningSuite;
let bus: Bus;

beforeAll(async () => {
  // One write in flight at a time, so that the kill lands while the leader is still writing triggers.
  s = await startSuite(['gateway', 'status-writer', 'rebalancer'], {
    LEADER_LEASE_MS: '2000',
    REBALANCER_WRITE_CONCURRENCY: '1',
  });
  await s.suite.startService('rebalancer'); // the standby
  bus = await connectBus({ url: NATS_URL, prefix: s.env.FLOTILLA_PREFIX });
}, 60_000);

afterAll(async () => {
  await bus?.close();
  await s?.stop();
});

const name = (i: number) => `w-${String(i).padStart(4, '0')}`;
type BindingSpec = { rescheduleTriggeredAt?: string };

describe('rebalancer leader killed during a rebalance of 1,000 workloads', () => {
  it('every workload ends with a result, no binding is triggered twice with different times, and the TTL still fires', async () => {
    onTestFailed(() => console.log(`the services' last output:\n${s.logs.slice(-30).join('\n')}`));
    const store = new ObjectStore(bus);
    // The bindings as the scheduler left them (it is not running: nothing reschedules them under the test).
    await pMap(
      Array.from({ length: WORKLOADS }, (_, i) => i),
      (i) =>
        store.apply(
          admit({
            apiVersion: 'work.karmada.io/v1alpha2',
            kind: 'ResourceBinding',
            metadata: { name: `${name(i)}-deployment`, namespace: 'bulk' },
            spec: {
              resource: { apiVersion: 'apps/v1', kind: 'Deployment', name: name(i), namespace: 'bulk' },
              replicas: 1,
              clusters: [{ name: 'member1', replicas: 1 }],
            },
          }) as StoredObject,
        ),
      { concurrency: 64 },
    );
    const leader = await leaderPid(s.env.FLOTILLA_PREFIX!, 'rebalancer');
    const victim = s.suite.processes.find((p) => p.name === 'rebalancer' && p.child.pid === leader);
    expect(victim, 'the leader is one of our rebalancer processes').toBeDefined();

    const client = new GatewayClient(bus.nc, { apiRoot: bus.names.apiRoot, timeoutMs: 30_000 });
    const workloads = Array.from({ length: WORKLOADS }, (_, i) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: name(i),
      namespace: 'bulk',
    }));
    // ten of them have no binding: Failed, ReferencedBindingNotFound
    for (let i = WORKLOADS; i < WORKLOADS + 10; i++)
      workloads.push({ apiVersion: 'apps/v1', kind: 'Deployment', name: name(i), namespace: 'bulk' });
    // The kill lands from the watch of the leader's own binding writes, the moment half are written: the leader
    // writes all its triggers before it publishes their events, so neither polling the bindings nor waiting for the
    // events killed it before it had finished, on an idle machine.
    let seenTriggers = 0;
    let atKill = 0;
    let reachedHalfway!: () => void;
    const halfway = new Promise<void>((r) => (reachedHalfway = r));
    const watch = await bus.objects.watch({ key: 'ResourceBinding.bulk.>', include: KvWatchInclude.UpdatesOnly });
    void (async () => {
      for await (const e of watch) {
        if (e.operation !== 'PUT' || ++seenTriggers !== WORKLOADS / 2) continue;
        victim!.child.kill('SIGKILL');
        atKill = seenTriggers;
        reachedHalfway();
      }
    })();
    // Every status the status writer folds, watched from before the rebalancer exists: 5 s after it finishes its TTL
    // deletes it with its status, and on a loaded machine a poll that starts after the kill can come too late (a
    // clean-clone CI run beside two busy loops found it deleted before the first look).
    type Status = { observedWorkloads?: Array<{ result?: string; reason?: string }>; finishTime?: string };
    let lastStatus: Status | undefined;
    // A core NATS subscription on the key's subject, not a KV watch: it has no consumer whose heartbeats a starved
    // test process can miss (a loaded clean-clone run timed out here with the rebalancer finished and deleted).
    let statusPuts = 0;
    const statusWatch = bus.nc.subscribe(
      `$KV.${bus.names.statusBucket}.${objectKey({ kind: 'WorkloadRebalancer', name: 'bulk' })}`,
      {
        callback: (err, msg) => {
          if (err || !msg.data.length) return;
          statusPuts++;
          lastStatus = decodeJson<StatusRecord<Status>>(msg.data).status;
        },
      },
    );
    await bus.nc.flush();
    onTestFailed(() => {
      const results = lastStatus?.observedWorkloads?.filter((o) => o.result).length;
      console.log(
        `status writes seen: ${statusPuts}; the last: finishTime ${lastStatus?.finishTime}, ${lastStatus?.observedWorkloads?.length} workloads, ${results} with a result`,
      );
    });
    const created = await client.apply({
      apiVersion: 'apps.karmada.io/v1alpha1',
      kind: 'WorkloadRebalancer',
      metadata: { name: 'bulk' },
      spec: { workloads, ttlSecondsAfterFinished: 5 },
    });
    const createdAt = created.object.metadata.creationTimestamp as string;

    const triggered = async () =>
      (await store.list('ResourceBinding', 'bulk')).filter((b) => (b.spec as BindingSpec).rescheduleTriggeredAt).length;
    let giveUp: NodeJS.Timeout | undefined;
    await Promise.race([
      halfway,
      new Promise((_, reject) => {
        giveUp = setTimeout(() => reject(new Error('the leader never got halfway')), 20_000);
      }),
    ]).finally(() => {
      clearTimeout(giveUp);
      watch.stop();
    });
    await victim!.exited;
    const killedAt = Date.now();
    const leftByLeader = await triggered();
    expect(leftByLeader).toBeLessThan(WORKLOADS);

    // the standby takes over and finishes: every workload has a result, folded by the status writer
    const status = await eventually(
      () => {
        const st = lastStatus;
        return st?.finishTime &&
          st.observedWorkloads?.length === WORKLOADS + 10 &&
          st.observedWorkloads.every((o) => o.result)
          ? st
          : undefined;
      },
      60_000,
      'every workload with a result',
    ).finally(() => statusWatch.unsubscribe());
    console.log(
      `rebalancer leader killed with ${leftByLeader}/${WORKLOADS} bindings triggered; the standby finished ${Date.now() - killedAt} ms after the kill (LEADER_LEASE_MS=2000)`,
    );
    expect(atKill).toBeGreaterThanOrEqual(WORKLOADS / 2);
    expect(status.observedWorkloads!.filter((o) => o.result === 'Successful')).toHaveLength(WORKLOADS);
    expect(
      status.observedWorkloads!.filter((o) => o.result === 'Failed' && o.reason === 'ReferencedBindingNotFound'),
    ).toHaveLength(10);

    // every binding carries exactly the creationTimestamp, and every record of a trigger says the same time
    const bindings = await store.list('ResourceBinding', 'bulk');
    expect(new Set(bindings.map((b) => (b.spec as BindingSpec).rescheduleTriggeredAt))).toEqual(new Set([createdAt]));
    const times = new Map<string, Set<string>>();
    for await (const d of readEvents(bus, {
      filter: { kind: 'Deployment', namespace: 'bulk', type: 'WorkloadRescheduleTriggered' },
    })) {
      const at = (d.event.data as { rescheduleTriggeredAt: string }).rescheduleTriggeredAt;
      times.set(d.event.flotillaname, (times.get(d.event.flotillaname) ?? new Set()).add(at));
    }
    expect(times.size).toBe(WORKLOADS);
    expect([...times.values()].every((t) => t.size === 1 && t.has(createdAt))).toBe(true);

    // the TTL, armed by the new leader, still deletes it
    await eventually(
      async () => ((await store.get({ kind: 'WorkloadRebalancer', name: 'bulk' })) ? undefined : true),
      20_000,
      'the TTL delete',
    );
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(status.finishTime!) + 5000);
  }, 150_000);
});
