// Cross-cluster reaction of the hpa-assigner (Karmada's FederatedHPA proposal: scale up by priority), through real
// NATS and Redis: BENCH_FHPAS Prioritized FederatedHPAs whose preferred cluster reports pending pods at once. For
// each, the time from the pending-pods delay running out (the BullMQ job's due time) to the next cluster's raised
// max being stored, and from the pending report to that write. Target: reaction <= delay + 1 s at p99.
// The FederatedHPA controller runs in this process (its informers, work queue, BullMQ worker and writes are the
// service's); the member clusters' reports are written as the status writer writes them.
import { admit } from '@flotilla/api';
import { publishEvent } from '@flotilla/bus';
import { FederatedHpaController, type MoveReport } from '@flotilla/hpa-assigner';
import { closeRedis, createRedis } from '@flotilla/runtime';
import { createDelayedQueue } from '@flotilla/runtime/delayed-jobs';
import { ObjectStore, StatusStore, type StoredObject } from '@flotilla/store';
import { REDIS_URL } from '@flotilla/testkit';
import { boundedRun, fmt, latencySummary, report, waitFor, withBenchBus } from './support.js';

const FHPAS = Number(process.env.BENCH_FHPAS ?? 500);
const DELAY_SECONDS = Number(process.env.BENCH_DELAY_SECONDS ?? 2);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 32);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 120_000);
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

await withBenchBus('fhpa-reaction', async (bus) => {
  const store = new ObjectStore(bus);
  const statuses = new StatusStore(bus);
  const redis = createRedis(REDIS_URL);
  const prefix = bus.names.prefix;
  const moves: MoveReport[] = [];
  const apply = (o: unknown) => store.apply(admit(o) as StoredObject);
  let seq = 1;
  const clusters = ['small', 'big', 'spare'];
  for (const name of clusters) {
    await apply({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name }, spec: {} });
    await statuses.fold({ kind: 'Cluster', name }, seq++, () => ({
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'ClusterReady',
          message: '',
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
      ],
      resourceSummary: { allocatable: { cpu: '100000', memory: '100000Gi', pods: '1000000' } },
    }));
  }
  const controller = new FederatedHpaController({
    bus,
    redis,
    queuePrefix: prefix,
    publish: (e) => publishEvent(bus, e),
    logger: silent,
    syncPeriodMs: 15_000,
    onMove: (r) => moves.push(r),
  });
  await controller.start();
  const name = (i: number) => `app-${i}`;
  try {
    await boundedRun(FHPAS, IN_FLIGHT, async (i) => {
      await apply({
        apiVersion: 'work.karmada.io/v1alpha2',
        kind: 'ResourceBinding',
        metadata: {
          name: `${name(i)}-deployment`,
          namespace: 'default',
          annotations: {
            'autoscaling.flotilla.io/federated-hpa': name(i),
            'autoscaling.flotilla.io/feasible-clusters': clusters.join(','),
          },
        },
        spec: {
          resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: name(i) },
          replicaRequirements: { resourceRequest: { cpu: '100m' } },
          clusters: [{ name: 'small', replicas: 2 }],
        },
      });
      await apply({
        apiVersion: 'autoscaling.karmada.io/v1alpha1',
        kind: 'FederatedHPA',
        metadata: { name: name(i), namespace: 'default' },
        spec: {
          scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: name(i) },
          minReplicas: 2,
          maxReplicas: 20,
          autoscaleMultiClusterDelay: DELAY_SECONDS,
          federatedHPAAssignment: {
            federatedHPAAssignmentType: 'Prioritized',
            clusterAutoscalingPreference: [
              { targetCluster: { clusterNames: ['small'] }, priority: 3 },
              { targetCluster: { clusterNames: ['big'] }, priority: 2 },
            ],
          },
        },
      });
    });
    const assigned = async () => {
      let n = 0;
      for (const o of await store.list('ResourceBinding', 'default'))
        if (o.metadata.name.endsWith('-horizontalpodautoscaler')) n++;
      return n;
    };
    await waitFor(async () => (await assigned()) >= FHPAS, `${FHPAS} first assignments`, TIMEOUT_MS, 500);
    await controller.idle();

    // Every preferred cluster reports pods it cannot place, all at once.
    const reportedAt = new Map<string, number>();
    await boundedRun(FHPAS, IN_FLIGHT, async (i) => {
      await statuses.fold(
        { kind: 'ResourceBinding', namespace: 'default', name: `${name(i)}-deployment` },
        seq++,
        () => ({
          aggregatedStatus: [
            { clusterName: 'small', applied: true, status: { replicas: 20, readyReplicas: 5, pendingReplicas: 15 } },
          ],
        }),
      );
      reportedAt.set(`FederatedHPA.default.${name(i)}`, Date.now());
    });
    await waitFor(() => moves.length >= FHPAS, `${FHPAS} moves (have ${moves.length})`, TIMEOUT_MS, 100);

    const afterDue = moves.filter((m) => m.dueAtMs !== undefined).map((m) => m.appliedAtMs - m.dueAtMs!);
    const fromReport = moves.map((m) => m.appliedAtMs - (reportedAt.get(m.key) ?? m.appliedAtMs));
    const p99 = [...fromReport].sort((a, b) => a - b)[Math.ceil(0.99 * fromReport.length) - 1] ?? NaN;
    const target = DELAY_SECONDS * 1000 + 1000;
    report(
      `FederatedHPA cross-cluster reaction: ${FHPAS} Prioritized FederatedHPAs starved at once, delay ${DELAY_SECONDS} s`,
      [
        ['delay ran out -> raised max stored', latencySummary(afterDue)],
        ['pending reported -> raised max stored', latencySummary(fromReport)],
        ['target (pending -> stored, p99)', `<= ${target} ms: ${p99 <= target ? 'met' : 'missed'} (${fmt(p99)} ms)`],
      ],
    );
  } finally {
    await controller.stop();
    const queue = createDelayedQueue({ name: 'hpa-assigner', prefix, connection: redis });
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    await closeRedis(redis);
  }
});
