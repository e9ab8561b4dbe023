// Resident memory of the hpa-assigner with BENCH_FHPAS FederatedHPAs (target <= 150 MB), read from
// /proc/<pid>/status of the real process: VmRSS and VmHWM (the peak since it started).
// Every FederatedHPA has a StaticWeighted assignment over BENCH_CLUSTERS clusters and a target binding (written to
// the store as the affinity scheduler would have left it, feasible clusters and owner included), so the service
// makes and keeps, per FederatedHPA, a member HPA template and its binding: 10,000 FederatedHPAs mean 20,000
// bindings in its informer. Measured holding them, and after a restart (the informers' initial list).
import { admit } from '@flotilla/api';
import { connectBus } from '@flotilla/bus';
import { ObjectStore, StatusStore, type StoredObject } from '@flotilla/store';
import { NATS_URL } from '@flotilla/testkit';
import { startSuite } from '../test/support/suite.js';
import { boundedRun, fmt, heapOfServiceMb, report, rssOfPidMb, waitFor } from './support.js';

const FHPAS = Number(process.env.BENCH_FHPAS ?? 10_000);
const CLUSTERS = Number(process.env.BENCH_CLUSTERS ?? 10);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 64);
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 5000);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 900_000);
const TARGET_MB = 150;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const s = await startSuite(['hpa-assigner'], { LOG_LEVEL: 'warn', LEADER_LEASE_MS: '10000' });
const bus = await connectBus({ url: NATS_URL, prefix: s.env.FLOTILLA_PREFIX, name: 'bench-fhpa-memory' });
try {
  const store = new ObjectStore(bus);
  const statuses = new StatusStore(bus);
  const current = () => s.suite.processes.filter((p) => p.name === 'hpa-assigner').at(-1);
  const sample = async () => ({
    rss: rssOfPidMb(current()?.child.pid),
    peak: rssOfPidMb(current()?.child.pid, 'VmHWM'),
    heap: (await heapOfServiceMb(current()?.httpPort)).heapUsed,
  });
  await sleep(SETTLE_MS);
  const idle = await sample();

  const clusters = Array.from({ length: CLUSTERS }, (_, i) => `member-${String(i).padStart(2, '0')}`);
  let seq = 1;
  for (const name of clusters) {
    await store.apply(
      admit({
        apiVersion: 'cluster.karmada.io/v1alpha1',
        kind: 'Cluster',
        metadata: { name, labels: { tier: `t${clusters.indexOf(name) % 3}` } },
        spec: {},
      }) as StoredObject,
    );
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
      resourceSummary: { allocatable: { cpu: '1000', memory: '4000Gi', pods: '20000' } },
    }));
  }
  const started = performance.now();
  await boundedRun(FHPAS, IN_FLIGHT, async (i) => {
    const name = `app-${i}`;
    await store.apply(
      admit({
        apiVersion: 'work.karmada.io/v1alpha2',
        kind: 'ResourceBinding',
        metadata: {
          name: `${name}-deployment`,
          namespace: 'default',
          annotations: {
            'autoscaling.flotilla.io/federated-hpa': name,
            'autoscaling.flotilla.io/feasible-clusters': clusters.join(','),
          },
        },
        spec: {
          resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name },
          replicaRequirements: { resourceRequest: { cpu: '100m', memory: '128Mi' } },
          clusters: clusters.slice(0, 3).map((c) => ({ name: c, replicas: 1 })),
        },
      }) as StoredObject,
    );
    await store.apply(
      admit({
        apiVersion: 'autoscaling.karmada.io/v1alpha1',
        kind: 'FederatedHPA',
        metadata: { name, namespace: 'default' },
        spec: {
          scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
          minReplicas: 1 + (i % 5),
          maxReplicas: 20 + (i % 50),
          federatedHPAAssignment: {
            federatedHPAAssignmentType: 'StaticWeighted',
            clusterAutoscalingPreference: [0, 1, 2].map((t) => ({
              targetCluster: { labelSelector: { matchLabels: { tier: `t${t}` } } },
              staticWeight: 3 - t,
            })),
          },
        },
      }) as StoredObject,
    );
  });
  const hpaBindings = async () => (await store.list('HorizontalPodAutoscaler', 'default')).length;
  await waitFor(async () => (await hpaBindings()) >= FHPAS, `${FHPAS} member HPAs`, TIMEOUT_MS, 2000);
  const assignedInS = (performance.now() - started) / 1000;
  await sleep(SETTLE_MS);
  const holding = await sample();

  const old = s.suite.processes.filter((p) => p.name === 'hpa-assigner').at(-1)!;
  old.child.kill('SIGTERM');
  await old.exited;
  await s.suite.startService('hpa-assigner');
  await sleep(SETTLE_MS * 3);
  const restarted = await sample();

  const cell = (m: { rss: number; peak: number; heap: number }) =>
    `${fmt(m.rss)} (peak ${fmt(m.peak)}, V8 heap in use ${fmt(m.heap)})`;
  // procfs counts KiB, the target is in MB (10^6 bytes)
  const verdict = Math.max(holding.peak, restarted.peak) * 1.048576 <= TARGET_MB ? 'met' : 'missed';
  report(
    `hpa-assigner memory, MiB (VmRSS, and VmHWM peak): ${FHPAS} FederatedHPAs over ${CLUSTERS} clusters (target <= ${TARGET_MB} MB)`,
    [
      ['idle', cell(idle)],
      ['holding', `${cell(holding)}  (all assigned ${fmt(assignedInS)} s after the first apply)`],
      ['after restart', cell(restarted)],
      ['target', verdict],
    ],
  );
} finally {
  await bus.close();
  await s.stop();
}
