import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Bus, EventTypes, parseEventSubject } from '@flotilla/bus';
import { testBus } from '@flotilla/bus/testing';
import { systemClock } from '@flotilla/runtime';
import { Informers, ObjectStore } from '@flotilla/store';
import { eventually, metricSum } from '@flotilla/testkit';
import { Registry } from 'prom-client';
import type { AgentLogger } from '../agent-projections.js';
import type { WorkloadStatusesReportedData, WorkloadStatusReportedData } from '../report-model.js';
import { UsageRecorder } from '../usage-recorder.js';
import { SimulatedFleet } from './simulated-fleet.js';

const CLUSTERS = 20;
const PER_BINDING = 3;

const warnings: string[] = [];
const logger: AgentLogger = {
  info: () => undefined,
  warn: (o, m) => void warnings.push(`${m} ${JSON.stringify(o)}`),
  error: (o, m) => void warnings.push(`${m} ${JSON.stringify(o)}`),
};

/** Workload `name`: 3 pods of 100m and 128Mi, labelled app=<name>. */
function deployment(name: string) {
  const labels = { app: name };
  const requests = { cpu: '100m', memory: '128Mi' };
  const template = { metadata: { labels }, spec: { containers: [{ name: 'app', resources: { requests } }] } };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: { replicas: 3, selector: { matchLabels: labels }, template },
  };
}

const clusterName = (i: number) => `m${String(i).padStart(2, '0')}`;
/** The clusters binding `i` is scheduled to: PER_BINDING of them, spread over the fleet. */
const targets = (i: number) => Array.from({ length: PER_BINDING }, (_, k) => clusterName((i + k * 7) % CLUSTERS));

/** Runs `n` calls of `f`, `inFlight` at a time. */
async function bounded(n: number, inFlight: number, f: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < n) await f(next++);
    }),
  );
}

describe('SimulatedFleet against real NATS', () => {
  let bus: Bus & { dispose(): Promise<void> };
  let fleet: SimulatedFleet | undefined;
  let reported: Set<string>;
  /** WorkloadStatusReported events received: one a binding when its clusters' reports go out together. */
  let workloadEvents: number;
  let unsubscribe: () => void;
  let registry: Registry;

  beforeEach(async () => {
    bus = await testBus('sim-fleet');
    warnings.length = 0;
    registry = new Registry();
    reported = new Set<string>();
    workloadEvents = 0;
    const root = bus.names.eventsRoot;
    const sub = bus.nc.subscribe(`${root}.ResourceBinding.*.*.${EventTypes.WorkloadStatusReported}`, {
      callback: (err, msg) => {
        if (err) return;
        workloadEvents++;
        // One cluster's report, or those of several clusters of the binding in one event (data.reports).
        const data = (msg.json() as { data: WorkloadStatusReportedData & Partial<WorkloadStatusesReportedData> }).data;
        for (const r of data.reports ?? [data])
          if (r.applied && r.status?.readyReplicas === 3)
            reported.add(`${parseEventSubject(root, msg.subject).name}@${r.clusterName}`);
      },
    });
    unsubscribe = () => sub.unsubscribe();
  });
  afterEach(async () => {
    unsubscribe();
    await fleet?.stop();
    fleet = undefined;
    await bus.dispose();
  });

  /**
   * CLUSTERS simulated clusters, then a fleet following them (`tickMs`: its probes and resyncs; `gatherMs`: how long
   * the changes gather before a round of passes, half a tick as the member-agent has it).
   */
  async function startFleet(
    store: ObjectStore,
    tickMs: number,
    gatherMs = tickMs / 2,
    hpaSyncPeriodMs?: number,
    usageRecorder?: (cluster: string) => UsageRecorder,
  ): Promise<SimulatedFleet> {
    await bounded(CLUSTERS, 8, (i) =>
      store.apply({
        apiVersion: 'cluster.karmada.io/v1alpha1',
        kind: 'Cluster',
        metadata: { name: clusterName(i) },
        spec: { syncMode: 'Push', simulation: { allocatable: { cpu: '1000', memory: '4000Gi', pods: '10000' } } },
      }),
    );
    fleet = new SimulatedFleet({
      bus,
      clock: systemClock,
      logger,
      informers: new Informers({ bus }),
      tickMs,
      gatherMs,
      registry,
      ...(hpaSyncPeriodMs !== undefined ? { hpaSyncPeriodMs } : {}),
      ...(usageRecorder ? { usageRecorder } : {}),
    });
    await fleet.start();
    return fleet;
  }

  /**
   * A burst of `n` workloads, as through the gateway: the template, its binding as the detector creates it (not yet
   * scheduled), then the scheduler's placement on PER_BINDING clusters.
   */
  async function burst(store: ObjectStore, n: number): Promise<void> {
    await bounded(n, 64, async (i) => {
      const name = `w${i}`;
      await store.apply(deployment(name));
      await store.apply({
        apiVersion: 'work.karmada.io/v1alpha2',
        kind: 'ResourceBinding',
        metadata: { name: `${name}-deployment`, namespace: 'default' },
        spec: {
          resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name, uid: `u-${i}` },
          replicas: 3 * PER_BINDING,
          replicaRequirements: { resourceRequest: { cpu: '100m', memory: '128Mi' } },
        },
      });
      await store.update({ kind: 'ResourceBinding', namespace: 'default', name: `${name}-deployment` }, (b) => ({
        ...b,
        spec: { ...(b.spec as object), clusters: targets(i).map((c) => ({ name: c, replicas: 3 })) },
      }));
    });
  }

  const missingOf = (n: number) => {
    const missing: string[] = [];
    for (let i = 0; i < n; i++)
      for (const c of targets(i)) if (!reported.has(`w${i}-deployment@${c}`)) missing.push(`w${i}-deployment@${c}`);
    return missing;
  };

  /** Every cluster of each of the first `n` bindings reported, within `timeoutMs`; the missing ones named. */
  async function expectEveryClusterReported(n: number, timeoutMs: number): Promise<void> {
    await eventually(
      () => (reported.size >= n * PER_BINDING ? true : undefined),
      timeoutMs,
      "every binding's every cluster reported",
    ).catch(() => undefined);
    expect(missingOf(n)).toEqual([]);
  }

  it('reports every cluster of every binding of a burst over many clusters, soon after the last was placed', async () => {
    const BINDINGS = 1000;
    const store = new ObjectStore(bus);
    await startFleet(store, 1000);
    await burst(store, BINDINGS);
    // All of them soon after the last binding was placed: a driver whose every pass looked at every binding of the
    // installation and woke for every template fell seconds behind at this size, and the member-agent, its event loop
    // blocked that long, lost its leadership and the reports it had not sent yet.
    await expectEveryClusterReported(BINDINGS, 5_000);
    // Each driver gathers the burst's changes into a few passes of its share: a pass per binding and cluster (or per
    // template and cluster) is what fell behind.
    const passes = await metricSum(registry, 'flotilla_reconcile_total', { controller: 'kube-member' });
    expect(passes).toBeLessThanOrEqual(BINDINGS / 2);
    // A binding's clusters report in one round of the fleet's passes, as one event: exactly one a binding (3 when each
    // cluster's went alone; 1.2-1.4 when the drivers' passes overlapped instead of running in rounds, and a resync or
    // a pass with pod metrics due ran outside them).
    expect(workloadEvents).toBe(BINDINGS);
    // Each binding's manifest made and hashed once for its three clusters (one cache for the fleet's drivers; 3,000
    // with a cache per driver).
    expect(fleet?.manifests.hashed).toBe(BINDINGS);
    expect(warnings).toEqual([]);
  });

  it("a driver busy with a reconcile that is no round's when a round opens still passes in that round", async () => {
    const BINDINGS = 400;
    const store = new ObjectStore(bus);
    // One cluster's driver records usage slowly, as a metric history under load does, after each pass and on each
    // resync: rounds open while it is at it, and its pass for the round starts only after it.
    await startFleet(store, 200, 100, undefined, oneSlowDriver);
    await burst(store, BINDINGS);
    await expectEveryClusterReported(BINDINGS, 10_000);
    // One event a binding: a round that ended without the pass of a driver busy when it opened sent that cluster's
    // reports with the next round's (checked: 420 and 460 events for 400 bindings without the round's hold on the pass).
    expect(workloadEvents).toBe(BINDINGS);
  });

  it("a pass over a cluster's whole share leaves the bindings that changed after its round opened to the next", async () => {
    const BINDINGS = 400;
    const store = new ObjectStore(bus);
    // Pod metrics due on every pass (an HPA sync period shorter than a round): each pass looks at its cluster's whole
    // share. One driver's pass begins late in each round, after its slow usage recording: bindings placed between the
    // round's opening and that pass are in its share then, and were not in the other clusters' shares when theirs
    // began.
    await startFleet(store, 200, 100, 20, oneSlowDriver);
    await burst(store, BINDINGS);
    await expectEveryClusterReported(BINDINGS, 10_000);
    // One event a binding. Checked against two defects: the late whole pass reported those bindings in this round and
    // their other clusters in the next (450 and 431 events for 400 bindings); and a driver whose pass ran outside the
    // rounds when one opened took no ticket for the pass the round queued behind it, so that pass ran outside the
    // rounds too, and so on (460).
    expect(workloadEvents).toBe(BINDINGS);
  });

  it("a template's change wakes the drivers of its binding's clusters only, and a member object's its binding only", async () => {
    const BINDINGS = 40;
    const store = new ObjectStore(bus);
    // No resync, and no pod metrics due (a pass over the cluster's share), while the test counts passes.
    const fleet = await startFleet(store, 600_000, 100, 600_000);
    await burst(store, BINDINGS);
    await eventually(() => (missingOf(BINDINGS).length === 0 ? true : undefined), 20_000, 'the burst reported');
    const passes = () => metricSum(registry, 'flotilla_reconcile_total', { controller: 'kube-member' });
    const drivers = Array.from({ length: CLUSTERS }, (_, i) => fleet.driver(clusterName(i))!);
    await Promise.all(drivers.map((d) => d.idle()));
    const before = await passes();
    const looks = () => drivers.reduce((sum, d) => sum + d.bindingLooks, 0);
    const looksBefore = looks();
    const wakes = (reason: string) => metricSum(registry, 'flotilla_kube_member_binding_wakes_total', { reason });
    const wakesBefore = { template: await wakes('template'), memberObject: await wakes('member-object') };

    await store.update({ kind: 'Deployment', namespace: 'default', name: 'w0' }, (d) => ({
      ...d,
      metadata: { ...d.metadata, labels: { changed: 'yes' } },
    }));
    const changed = (c: string) =>
      fleet.member(c)?.objects.get('apps/v1', 'Deployment', 'default', 'w0')?.metadata?.labels?.changed === 'yes';
    await eventually(() => (targets(0).every(changed) ? true : undefined), 10_000, 'w0 applied again');
    await Promise.all(drivers.map((d) => d.idle()));

    // Its clusters' drivers, one pass each: the echo of their own apply (a simulated member delivers it before the
    // pass observes) asks for no second pass. No other cluster's driver ran for it.
    expect((await passes()) - before).toBe(PER_BINDING);
    // Each looked at that binding only, not at its cluster's share (6 bindings each here, 18 looks in all).
    expect(looks() - looksBefore).toBe(PER_BINDING);
    // Marked by its template, once in each of its clusters.
    expect((await wakes('template')) - wakesBefore.template).toBe(PER_BINDING);

    // Someone else's object in a member cluster, named as no template of ours, wakes no binding; one of ours deleted
    // there by someone wakes its own binding only, which applies it again. Before, someone else's object had the
    // whole share looked at (6 bindings here).
    const c = targets(2)[0]!;
    const member = fleet.member(c)!;
    member.objects.put(deployment('stranger'));
    const looksBeforeStranger = looks();
    // The same watch delivers both, in order: once w2 is back, the stranger was seen before it.
    member.objects.delete('apps/v1', 'Deployment', 'default', 'w2');
    await eventually(
      () => (member.objects.get('apps/v1', 'Deployment', 'default', 'w2') ? true : undefined),
      10_000,
      'w2 applied again',
    );
    await Promise.all(drivers.map((d) => d.idle()));
    expect(looks() - looksBeforeStranger).toBe(1);
    // Marked by its member object's deletion; the stranger marked nothing, and the re-apply's echo nothing either.
    expect((await wakes('member-object')) - wakesBefore.memberObject).toBe(1);
    expect(await wakes('other-object')).toBe(0);

    // A binding deleted: its clusters' drivers look at it and remove its objects (not at their next whole pass).
    await store.delete({ kind: 'ResourceBinding', namespace: 'default', name: 'w1-deployment' });
    const gone = (c: string) => fleet.member(c)?.objects.get('apps/v1', 'Deployment', 'default', 'w1') === undefined;
    await eventually(() => (targets(1).every(gone) ? true : undefined), 10_000, 'w1 removed from its clusters');
    expect(warnings).toEqual([]);
  });
});

/** The first cluster's driver records usage slowly (SlowUsageRecorder), the others at once. */
const oneSlowDriver = (cluster: string): UsageRecorder =>
  cluster === clusterName(0) ? new SlowUsageRecorder() : new UsageRecorder({ record: async () => undefined }, 1000);

/** A usage recorder whose every look takes a while (a metric history under load); its driver is busy meanwhile. */
class SlowUsageRecorder extends UsageRecorder {
  constructor() {
    super({ record: async () => undefined }, 1000);
  }

  override async maybeRecord(...args: Parameters<UsageRecorder['maybeRecord']>): Promise<number> {
    await new Promise((r) => setTimeout(r, 300));
    return super.maybeRecord(...args);
  }
}
