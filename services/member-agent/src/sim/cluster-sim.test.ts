import { DEFAULT_RESOURCE_MODELS, FederatedHpaAnnotations, ReservedNamespaces } from '@flotilla/api';
import { describe, expect, it } from 'vitest';
import type { StoredObject } from '@flotilla/store';
import type {
  ClusterStatusReportedData,
  WorkloadStatusesReportedData,
  WorkloadStatusReportedData,
} from '../report-model.js';
import { SimulatedClusters, type Report, type SimInput } from './cluster-sim.js';

const T0 = Date.parse('2025-06-01T00:00:00Z');
const at = (ms: number) => new Date(T0 + ms);

function cluster(name: string, simulation?: Record<string, unknown>): StoredObject {
  return {
    apiVersion: 'cluster.karmada.io/v1alpha1',
    kind: 'Cluster',
    metadata: { name },
    spec: { syncMode: 'Push', ...(simulation ? { simulation } : {}) },
  };
}
const sim = (extra: Record<string, unknown> = {}) => ({
  allocatable: { cpu: '4', memory: '8Gi', pods: '110' },
  ...extra,
});

function binding(
  name: string,
  clusters: Array<{ name: string; replicas?: number }>,
  opts: { replicas?: number; cpu?: string; memory?: string; kind?: string; resourceKind?: string } = {},
): StoredObject {
  const resourceKind = opts.resourceKind ?? 'Deployment';
  return {
    apiVersion: 'work.karmada.io/v1alpha2',
    kind: opts.kind ?? 'ResourceBinding',
    metadata: {
      name: `${name}-${resourceKind.toLowerCase()}`,
      ...(opts.kind === 'ClusterResourceBinding' ? {} : { namespace: 'default' }),
    },
    spec: {
      resource: { apiVersion: 'apps/v1', kind: resourceKind, namespace: 'default', name, uid: `uid-${name}` },
      ...(opts.replicas !== undefined ? { replicas: opts.replicas } : {}),
      ...(opts.cpu
        ? {
            replicaRequirements: {
              resourceRequest: { cpu: opts.cpu, ...(opts.memory ? { memory: opts.memory } : {}) },
            },
          }
        : {}),
      clusters,
    },
  };
}

function hpa(name: string, target: string, min: number, max: number, utilization: number): StoredObject {
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name, namespace: 'default' },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: target },
      minReplicas: min,
      maxReplicas: max,
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: utilization } },
        },
      ],
    },
  };
}

/** Reconciles and commits every report, as the agent does after a successful publish. */
function step(s: SimulatedClusters, input: SimInput): Report[] {
  const reports = s.reconcile(input);
  for (const r of reports) r.commit();
  return reports;
}
const clusterData = (rs: Report[], name: string) =>
  rs.find((r) => r.event.flotillakind === 'Cluster' && r.event.flotillaname === name)?.event.data as
    | ClusterStatusReportedData
    | undefined;
/**
 * A workload event's reports, one per cluster: the event's own, or each of a report of several clusters (with the
 * binding's target clusters, and the PodsPending Warning naming the cluster, as a single report carries them).
 */
const clusterReports = (r: Report): WorkloadStatusReportedData[] => {
  const d = r.event.data as WorkloadStatusReportedData & Partial<WorkloadStatusesReportedData>;
  if (!Array.isArray(d.reports)) return [d];
  return d.reports.map((one) => {
    const kubeEvent = d.kubeEvents?.find((k) => k.message.includes(`in cluster ${one.clusterName}:`));
    return { ...one, ...(d.targetClusters && { targetClusters: d.targetClusters }), ...(kubeEvent && { kubeEvent }) };
  });
};
const workloadData = (rs: Report[], binding: string, cluster: string) =>
  rs
    .filter((r) => r.event.flotillaname === binding && r.event.flotillakind !== 'Cluster')
    .flatMap(clusterReports)
    .find((d) => d.clusterName === cluster);

describe('SimulatedClusters: cluster status', () => {
  it('grades the cluster by its own spec.resourceModels when it has them', () => {
    const c = cluster('m1', sim());
    c.spec = {
      ...(c.spec as Record<string, unknown>),
      resourceModels: [
        { grade: 0, ranges: [{ name: 'cpu', min: '0', max: '3' }] },
        { grade: 1, ranges: [{ name: 'cpu', min: '3', max: '8' }] },
      ],
    };
    const r = new SimulatedClusters().reconcile({ clusters: [c], bindings: [], now: at(0) });
    expect(clusterData(r, 'm1')?.statusPatch.resourceSummary?.allocatableModelings).toEqual([
      { grade: 0, count: 0 },
      { grade: 1, count: 1 },
    ]);
  });

  it('reports Ready, version and resource summary once, with a ClusterReady event', () => {
    const s = new SimulatedClusters();
    const input = { clusters: [cluster('m1', sim())], bindings: [], now: at(0) };
    const first = step(s, input);
    expect(first.map((r) => r.event.type)).toEqual(['io.flotilla.ClusterStatusReported']);
    expect(first[0]!.event.subject).toBe('Cluster//m1');
    expect(clusterData(first, 'm1')).toEqual({
      statusPatch: {
        kubernetesVersion: 'v1.31.0',
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'ClusterReady',
            message: 'cluster is healthy and ready to accept workloads',
          },
        ],
        resourceSummary: {
          allocatable: { cpu: '4', memory: '8Gi', pods: '110' },
          allocated: { cpu: '0', memory: '0', pods: '0' },
          allocating: { cpu: '0', memory: '0', pods: '0' },
          // The cluster as one node of its shape (4 cpu reach grade 3, 8Gi only grade 1) under the default models.
          allocatableModelings: DEFAULT_RESOURCE_MODELS.map(({ grade }) => ({ grade, count: grade === 1 ? 1 : 0 })),
        },
        // none: the field is removed from the status (null in a status patch)
        foreignHorizontalPodAutoscalers: null,
      },
      kubeEvent: {
        type: 'Normal',
        reason: 'ClusterReady',
        message: 'cluster m1 is ready: cluster is healthy and ready to accept workloads',
      },
    });
    expect(step(s, { ...input, now: at(1000) })).toEqual([]);
  });

  it('re-offers an uncommitted report with the same id, so a retried publish is de-duplicated', () => {
    const s = new SimulatedClusters();
    const input = { clusters: [cluster('m1', sim())], bindings: [], now: at(0) };
    const a = s.reconcile(input);
    const b = s.reconcile({ ...input, now: at(1000) });
    expect(b.map((r) => r.event.id)).toEqual(a.map((r) => r.event.id));
    expect(b[0]!.event.time).toBe(at(1000).toISOString());
  });

  it('ignores Clusters without spec.simulation (real or static clusters)', () => {
    const s = new SimulatedClusters();
    expect(
      step(s, {
        clusters: [cluster('real')],
        bindings: [binding('web', [{ name: 'real', replicas: 2 }], { replicas: 2 })],
        now: at(0),
      }),
    ).toEqual([]);
  });

  it('fails and recovers: Ready False (ClusterNotReachable) keeps the last summary, then Ready True again', () => {
    const s = new SimulatedClusters();
    const b = binding('web', [{ name: 'm1', replicas: 2 }], { replicas: 2, cpu: '500m', memory: '1Gi' });
    step(s, { clusters: [cluster('m1', sim())], bindings: [b], now: at(0) });

    const failed = step(s, { clusters: [cluster('m1', sim({ failed: true }))], bindings: [b], now: at(1000) });
    expect(clusterData(failed, 'm1')).toEqual({
      statusPatch: {
        conditions: [
          { type: 'Ready', status: 'False', reason: 'ClusterNotReachable', message: 'cluster is not reachable' },
        ],
      },
      kubeEvent: {
        type: 'Warning',
        reason: 'ClusterNotReady',
        message: 'cluster m1 is not ready: cluster is not reachable',
      },
    });
    expect(workloadData(failed, 'web-deployment', 'm1')).toEqual({
      clusterName: 'm1',
      applied: false,
      health: 'Unknown',
      appliedMessage: 'cluster "m1" is not reachable',
      targetClusters: ['m1'],
    });
    expect(step(s, { clusters: [cluster('m1', sim({ failed: true }))], bindings: [b], now: at(2000) })).toEqual([]);

    const recovered = step(s, { clusters: [cluster('m1', sim({ failed: false }))], bindings: [b], now: at(3000) });
    expect(clusterData(recovered, 'm1')?.statusPatch.conditions[0]?.status).toBe('True');
    expect(clusterData(recovered, 'm1')?.kubeEvent?.reason).toBe('ClusterReady');
    expect(workloadData(recovered, 'web-deployment', 'm1')?.health).toBe('Healthy');
  });

  it('reports the HPAs made without Flotilla, sorted, and removes the field once they are gone', () => {
    const s = new SimulatedClusters();
    const foreign = (name: string, namespace: string) => ({
      name,
      namespace,
      scaleTargetRef: { kind: 'Deployment', name: 'web' },
      maxReplicas: 4,
    });
    step(s, { clusters: [cluster('m1', sim())], bindings: [], now: at(0) });
    const added = step(s, {
      clusters: [cluster('m1', sim({ foreignHorizontalPodAutoscalers: [foreign('b', 'shop'), foreign('a', 'shop')] }))],
      bindings: [],
      now: at(1000),
    });
    expect(clusterData(added, 'm1')?.statusPatch.foreignHorizontalPodAutoscalers).toEqual([
      { namespace: 'shop', name: 'a', scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 4 },
      { namespace: 'shop', name: 'b', scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 4 },
    ]);
    expect(clusterData(added, 'm1')?.kubeEvent).toBeUndefined();
    const gone = step(s, { clusters: [cluster('m1', sim())], bindings: [], now: at(2000) });
    expect(clusterData(gone, 'm1')?.statusPatch.foreignHorizontalPodAutoscalers).toBeNull();
  });

  it('a changed capacity is reported without a Ready event', () => {
    const s = new SimulatedClusters();
    step(s, { clusters: [cluster('m1', sim())], bindings: [], now: at(0) });
    const r = step(s, {
      clusters: [cluster('m1', sim({ allocatable: { cpu: '16', memory: '64Gi', pods: '110' } }))],
      bindings: [],
      now: at(1000),
    });
    expect(clusterData(r, 'm1')?.statusPatch.resourceSummary?.allocatable).toEqual({
      cpu: '16',
      memory: '64Gi',
      pods: '110',
    });
    expect(clusterData(r, 'm1')?.kubeEvent).toBeUndefined();
  });

  it('gives each report in a flapping sequence its own id (A, B, A are three facts)', () => {
    const s = new SimulatedClusters();
    const ids = [false, true, false].map(
      (failed, i) =>
        step(s, { clusters: [cluster('m1', sim({ failed }))], bindings: [], now: at(i * 1000) })[0]!.event.id,
    );
    expect(new Set(ids).size).toBe(3);
  });

  it('an invalid simulation makes the cluster NotReady with the field path in the message', () => {
    const s = new SimulatedClusters();
    const r = step(s, { clusters: [cluster('m1', { allocatable: { cpu: 'eight' } })], bindings: [], now: at(0) });
    expect(clusterData(r, 'm1')?.statusPatch.conditions[0]).toMatchObject({
      status: 'False',
      reason: 'InvalidSimulation',
      message: expect.stringContaining('spec.simulation.allocatable.cpu: invalid quantity "eight"'),
    });
  });

  it('after a restart, reports nothing that the stored status already says', () => {
    const first = new SimulatedClusters();
    const b = binding('web', [{ name: 'm1', replicas: 2 }], { replicas: 2, cpu: '1' });
    const input = { clusters: [cluster('m1', sim())], bindings: [b], now: at(0) };
    const reports = step(first, input);
    const cs = clusterData(reports, 'm1')!.statusPatch;
    // The status writer keeps the binding-level target clusters out of the per-cluster entry.
    const { targetClusters: _targets, ...ws } = workloadData(reports, 'web-deployment', 'm1')!;
    const stored: Record<string, Record<string, unknown>> = {
      'Cluster//m1': {
        ...cs,
        conditions: cs.conditions.map((c) => ({ ...c, lastTransitionTime: '2025-06-01T00:00:00Z' })),
      },
      'ResourceBinding/default/web-deployment': { aggregatedStatus: [ws] },
    };
    const restarted = new SimulatedClusters();
    const statusOf = (kind: string, ns: string | undefined, name: string) => stored[`${kind}/${ns ?? ''}/${name}`];
    expect(restarted.reconcile({ ...input, now: at(5000), statusOf })).toEqual([]);
    // ...but a change after the restart is reported, including the Ready transition.
    const failed = restarted.reconcile({
      ...input,
      clusters: [cluster('m1', sim({ failed: true }))],
      now: at(6000),
      statusOf,
    });
    expect(clusterData(failed, 'm1')?.kubeEvent?.reason).toBe('ClusterNotReady');
  });
});

describe('SimulatedClusters: workloads', () => {
  it('runs what fits and reports the rest Pending, in the summary as allocating', () => {
    const s = new SimulatedClusters();
    const small = binding('a', [{ name: 'm1', replicas: 2 }], { replicas: 2, cpu: '500m', memory: '1Gi' });
    const big = binding('b', [{ name: 'm1', replicas: 10 }], { replicas: 10, cpu: '500m', memory: '1Gi' });
    const r = step(s, { clusters: [cluster('m1', sim())], bindings: [big, small], now: at(0) });
    expect(workloadData(r, 'a-deployment', 'm1')).toEqual({
      clusterName: 'm1',
      applied: true,
      health: 'Healthy',
      status: { replicas: 2, readyReplicas: 2, availableReplicas: 2, pendingReplicas: 0 },
      targetClusters: ['m1'],
    });
    expect(workloadData(r, 'b-deployment', 'm1')).toEqual({
      clusterName: 'm1',
      applied: true,
      health: 'Unhealthy',
      status: { replicas: 10, readyReplicas: 6, availableReplicas: 6, pendingReplicas: 4 },
      targetClusters: ['m1'],
      // Applied is not running: the binding hears of its Pending pods once.
      kubeEvent: {
        type: 'Warning',
        reason: 'PodsPending',
        message: '4 of 10 pod(s) Pending in cluster m1: no node there fits them',
      },
    });
    // Still Pending, one pod fewer wanted: a new report, no second event; all running again, then Pending anew: one more.
    const fewer = binding('b', [{ name: 'm1', replicas: 9 }], { replicas: 9, cpu: '500m', memory: '1Gi' });
    expect(
      workloadData(
        step(s, { clusters: [cluster('m1', sim())], bindings: [fewer, small], now: at(1000) }),
        'b-deployment',
        'm1',
      )?.kubeEvent,
    ).toBeUndefined();
    const fits = binding('b', [{ name: 'm1', replicas: 6 }], { replicas: 6, cpu: '500m', memory: '1Gi' });
    expect(
      workloadData(
        step(s, { clusters: [cluster('m1', sim())], bindings: [fits, small], now: at(2000) }),
        'b-deployment',
        'm1',
      )?.status?.pendingReplicas,
    ).toBe(0);
    expect(
      workloadData(
        step(s, { clusters: [cluster('m1', sim())], bindings: [big, small], now: at(3000) }),
        'b-deployment',
        'm1',
      )?.kubeEvent?.reason,
    ).toBe('PodsPending');
    expect(clusterData(r, 'm1')?.statusPatch.resourceSummary).toEqual({
      allocatable: { cpu: '4', memory: '8Gi', pods: '110' },
      allocated: { cpu: '4', memory: '8Gi', pods: '8' },
      allocating: { cpu: '2', memory: '4Gi', pods: '4' },
      allocatableModelings: DEFAULT_RESOURCE_MODELS.map(({ grade }) => ({ grade, count: grade === 0 ? 1 : 0 })),
    });
  });

  it('reports one entry per (binding, cluster), only for simulated clusters, and only on change', () => {
    const s = new SimulatedClusters();
    const clusters = [cluster('m1', sim()), cluster('m2', sim()), cluster('real')];
    const b = binding(
      'web',
      [
        { name: 'm1', replicas: 1 },
        { name: 'm2', replicas: 2 },
        { name: 'real', replicas: 3 },
        { name: 'ghost', replicas: 1 },
      ],
      { replicas: 6, cpu: '100m' },
    );
    const r = step(s, { clusters, bindings: [b], now: at(0) });
    expect(
      r
        .filter((x) => x.event.flotillakind === 'ResourceBinding')
        .flatMap(clusterReports)
        .map((d) => d.clusterName),
    ).toEqual(['m1', 'm2']);
    // The two clusters' reports are one event: one write for the status writer, one event in the log.
    expect(r.filter((x) => x.event.flotillakind === 'ResourceBinding')).toHaveLength(1);
    const scaled = binding(
      'web',
      [
        { name: 'm1', replicas: 1 },
        { name: 'm2', replicas: 3 },
      ],
      { replicas: 4, cpu: '100m' },
    );
    const r2 = step(s, { clusters, bindings: [scaled], now: at(1000) });
    expect(
      r2
        .filter((x) => x.event.flotillakind === 'ResourceBinding')
        .flatMap(clusterReports)
        .map((d) => d.clusterName),
    ).toEqual(['m1', 'm2']); // m1 too: the binding's target clusters, which every report carries, lost real and ghost
    const r3 = step(s, { clusters, bindings: [scaled], now: at(2000) });
    expect(r3.filter((x) => x.event.flotillakind === 'ResourceBinding')).toEqual([]); // nothing changed since
  });

  it('reports removed when a binding no longer targets a cluster', () => {
    const s = new SimulatedClusters();
    const clusters = [cluster('m1', sim()), cluster('m2', sim())];
    step(s, { clusters, bindings: [binding('web', [{ name: 'm1', replicas: 1 }], { replicas: 1 })], now: at(0) });
    const moved = step(s, {
      clusters,
      bindings: [binding('web', [{ name: 'm2', replicas: 1 }], { replicas: 1 })],
      now: at(1000),
    });
    expect(workloadData(moved, 'web-deployment', 'm1')).toEqual({
      clusterName: 'm1',
      applied: false,
      removed: true,
      targetClusters: ['m2'],
    });
    expect(workloadData(moved, 'web-deployment', 'm2')?.applied).toBe(true);
    expect(
      step(s, { clusters, bindings: [binding('web', [{ name: 'm2', replicas: 1 }], { replicas: 1 })], now: at(2000) }),
    ).toEqual([]);
  });

  it('a ClusterResourceBinding is reported cluster-scoped', () => {
    const s = new SimulatedClusters();
    const r = step(s, {
      clusters: [cluster('m1', sim())],
      bindings: [binding('ns', [{ name: 'm1' }], { kind: 'ClusterResourceBinding', resourceKind: 'ClusterRole' })],
      now: at(0),
    });
    const e = r.find((x) => x.event.flotillakind === 'ClusterResourceBinding')!.event;
    expect(e.subject).toBe('ClusterResourceBinding//ns-clusterrole');
    expect(e.data).toEqual({ clusterName: 'm1', applied: true, health: 'Healthy', targetClusters: ['m1'] });
  });

  it('a bad resource request is reported as not applied, naming the field', () => {
    const s = new SimulatedClusters();
    const r = step(s, {
      clusters: [cluster('m1', sim())],
      bindings: [binding('web', [{ name: 'm1', replicas: 1 }], { replicas: 1, cpu: 'much' })],
      now: at(0),
    });
    expect(workloadData(r, 'web-deployment', 'm1')).toMatchObject({
      applied: false,
      health: 'Unknown',
      appliedMessage: expect.stringContaining('spec.replicaRequirements.resourceRequest.cpu'),
    });
  });
});

describe('SimulatedClusters: a large step', () => {
  it('gives the event loop turns while it works, and reports what one step at once reports', async () => {
    const clusters = [cluster('m1', sim({ allocatable: { cpu: '1000', memory: '4000Gi', pods: '100000' } }))];
    const bindings = Array.from({ length: 2500 }, (_, i) =>
      binding(`w${i}`, [{ name: 'm1', replicas: 1 }], { replicas: 1, cpu: '10m', memory: '1Mi' }),
    );
    const input = { clusters, bindings, now: at(0) };
    const atOnce = new SimulatedClusters().reconcile(input).map((r) => r.event.id);
    let turned = false;
    setImmediate(() => {
      turned = true;
    });
    const sliced = (await new SimulatedClusters().reconcileInSlices(input)).map((r) => r.event.id);
    expect(turned).toBe(true);
    expect(sliced).toEqual(atOnce);
    expect(sliced.length).toBe(2501);
  });
});

describe('SimulatedClusters: reserved namespaces', () => {
  /** `binding()` with its template (and the binding) in `namespace`. */
  const inNamespace = (b: StoredObject, namespace: string): StoredObject => {
    const spec = b.spec as { resource: Record<string, unknown> };
    return {
      ...b,
      metadata: { ...b.metadata, namespace },
      spec: { ...spec, resource: { ...spec.resource, namespace } },
    };
  };
  const refusal = (ns: string, entries = 'kube-*, flotilla-system') =>
    `namespace "${ns}" is reserved (${entries}): Flotilla does not propagate from or into it; not applied`;
  it.each([
    ['kube-system', undefined, refusal('kube-system')],
    ['flotilla-system', undefined, refusal('flotilla-system')],
    ['payments (configured)', ['payments'], refusal('payments', 'kube-*, flotilla-system, payments')],
    ['default', undefined, undefined],
    ['payments (not configured)', undefined, undefined],
  ] as const)('a workload in %s', (what, extra, message) => {
    const namespace = what.split(' ')[0]!;
    const s = new SimulatedClusters(extra ? { reservedNamespaces: new ReservedNamespaces(extra) } : {});
    const r = step(s, {
      clusters: [cluster('m1', sim())],
      bindings: [inNamespace(binding('web', [{ name: 'm1', replicas: 2 }], { replicas: 2, cpu: '100m' }), namespace)],
      now: at(0),
    });
    const data = workloadData(r, 'web-deployment', 'm1');
    if (message === undefined) expect(data).toMatchObject({ applied: true });
    else expect(data).toMatchObject({ applied: false, health: 'Unknown', appliedMessage: message });
    // Nothing of it is placed: the cluster's pods are the workload's only when it was applied.
    const allocated = clusterData(r, 'm1')?.statusPatch.resourceSummary?.allocated;
    expect(allocated?.pods).toBe(message === undefined ? '2' : '0');
  });
});

describe('SimulatedClusters: the HPA loop', () => {
  const hpaBinding = binding('web-hpa', [{ name: 'm1' }], { resourceKind: 'HorizontalPodAutoscaler' });
  const withLoad = (model: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    cluster(
      'm1',
      sim({
        allocatable: { cpu: '64', memory: '256Gi', pods: '110' },
        loads: [{ workload: { kind: 'Deployment', namespace: 'default', name: 'web' }, model }],
        ...extra,
      }),
    );
  const web = binding('web', [{ name: 'm1', replicas: 2 }], { replicas: 2, cpu: '500m' });
  const replicasOf = (rs: Report[]) => workloadData(rs, 'web-deployment', 'm1')?.status?.replicas;

  it('scales the cluster replicas to the load, within the scale-up limit and maxReplicas, and reports them', () => {
    const s = new SimulatedClusters({ hpaSyncPeriodMs: 15_000 });
    // 4 cores over 500m pods at a 50% target wants 16 pods; the scale-up limit doubles per sync; max is 10.
    const input = {
      clusters: [withLoad({ type: 'constant', cores: 4 })],
      bindings: [web, hpaBinding],
      hpas: [hpa('web-hpa', 'web', 1, 10, 50)],
    };
    const seen = [0, 15_000, 30_000, 45_000, 60_000].map((t) => replicasOf(step(s, { ...input, now: at(t) })));
    // At 45 s the member HPA's status changes (its utilisation is now measured over 10 pods); then nothing new.
    expect(seen).toEqual([4, 8, 10, 10, undefined /* unchanged: nothing new reported */]);
    expect(s.hpaReplicas('m1', 'default', 'web-hpa')).toBe(10);
  });

  it("runs a FederatedHPA's member HPA within this cluster's limits from the binding's member-limits override", () => {
    const s = new SimulatedClusters({ hpaSyncPeriodMs: 15_000 });
    const limited = {
      ...hpaBinding,
      metadata: {
        ...hpaBinding.metadata,
        annotations: { [FederatedHpaAnnotations.memberLimits]: '{"m1":{"minReplicas":2,"maxReplicas":6}}' },
      },
    };
    const input = {
      clusters: [withLoad({ type: 'constant', cores: 4 })],
      bindings: [web, limited],
      hpas: [hpa('web-hpa', 'web', 1, 10, 50)],
    };
    const seen = [0, 15_000, 30_000, 45_000].map((t) => replicasOf(step(s, { ...input, now: at(t) })));
    // capped at this cluster's max of 6 (the template says 10); at 30 s only the HPA's utilisation changes
    expect(seen).toEqual([4, 6, 6, undefined]);
    expect(s.hpaReplicas('m1', 'default', 'web-hpa')).toBe(6);
  });

  it('an unreadable member-limits override makes the member HPA scale nothing', () => {
    const s = new SimulatedClusters({ hpaSyncPeriodMs: 15_000 });
    const broken = {
      ...hpaBinding,
      metadata: { ...hpaBinding.metadata, annotations: { [FederatedHpaAnnotations.memberLimits]: '{' } },
    };
    const input = {
      clusters: [withLoad({ type: 'constant', cores: 4 })],
      bindings: [web, broken],
      hpas: [hpa('web-hpa', 'web', 1, 10, 50)],
    };
    expect(replicasOf(step(s, { ...input, now: at(0) }))).toBe(2);
    expect(s.hpaReplicas('m1', 'default', 'web-hpa')).toBeUndefined();
  });

  it("reports the ready pods' cpu usage apart from the status, one pod's request and the member HPA's status", () => {
    const s = new SimulatedClusters({ hpaSyncPeriodMs: 15_000 });
    const input = {
      clusters: [withLoad({ type: 'constant', cores: 4 })],
      bindings: [web, hpaBinding],
      hpas: [hpa('web-hpa', 'web', 1, 10, 50)],
    };
    const status = workloadData(step(s, { ...input, now: at(0) }), 'web-deployment', 'm1')?.status;
    expect(s.bindingUsage()).toEqual([
      {
        ref: { kind: 'ResourceBinding', namespace: 'default', name: 'web-deployment' },
        cluster: 'm1',
        cpuUsageMilli: 4000,
      },
    ]);
    expect(status).not.toHaveProperty('cpuUsageMilli');
    expect(status).toMatchObject({
      replicas: 4,
      readyReplicas: 4,
      cpuRequestMilli: 500,
      hpa: {
        minReplicas: 1,
        maxReplicas: 10,
        currentReplicas: 4,
        desiredReplicas: 4,
        currentCPUUtilizationPercentage: 400,
      },
    });
  });

  it('follows the binding scaling the workload (a FederatedHPA sending a cluster to 0): the HPA then stays there', () => {
    // No downscale window, so each pass shows the HPA's own answer at once.
    const s = new SimulatedClusters({ hpaSyncPeriodMs: 1000, hpa: { downscaleStabilizationMs: 0 } });
    const input = {
      clusters: [withLoad({ type: 'constant', cores: 0.1 })],
      bindings: [web, hpaBinding],
      hpas: [hpa('web-hpa', 'web', 1, 10, 50)],
    };
    step(s, { ...input, now: at(0) });
    step(s, { ...input, now: at(1000) });
    expect(s.hpaReplicas('m1', 'default', 'web-hpa')).toBe(1); // 0.1 core is 20 % of one 500m pod
    const toZero = binding('web', [{ name: 'm1', replicas: 0 }], { replicas: 2, cpu: '500m' });
    for (let t = 2000; t <= 5000; t += 1000) step(s, { ...input, bindings: [toZero, hpaBinding], now: at(t) });
    // at 0 with minReplicas 1 Kubernetes' HPA does not scale ("scaling is disabled")
    expect(s.hpaReplicas('m1', 'default', 'web-hpa')).toBe(0);
    const back = binding('web', [{ name: 'm1', replicas: 1 }], { replicas: 2, cpu: '500m' });
    step(s, { ...input, bindings: [back, hpaBinding], now: at(6000) });
    expect(s.hpaReplicas('m1', 'default', 'web-hpa')).toBe(1);
  });

  it('evaluates only once per sync period', () => {
    const s = new SimulatedClusters({ hpaSyncPeriodMs: 15_000 });
    const input = {
      clusters: [withLoad({ type: 'constant', cores: 4 })],
      bindings: [web, hpaBinding],
      hpas: [hpa('web-hpa', 'web', 1, 10, 50)],
    };
    step(s, { ...input, now: at(0) });
    expect(step(s, { ...input, now: at(14_999) })).toEqual([]);
    expect(s.hpaReplicas('m1', 'default', 'web-hpa')).toBe(4);
  });

  it('follows a step load and holds the scale-down for the stabilization window', () => {
    const s = new SimulatedClusters({ hpaSyncPeriodMs: 1000 });
    // 1 core on 2 pods of 500m at 50% is 100%: wants 4; after 10s the load drops to 0.5 core.
    const input = {
      clusters: [withLoad({ type: 'step', cores: 2, stepCores: 0.5, stepAfter: '10s' })],
      bindings: [web, hpaBinding],
      hpas: [hpa('web-hpa', 'web', 1, 10, 50)],
    };
    for (let t = 0; t <= 9000; t += 1000) step(s, { ...input, now: at(t) });
    expect(s.hpaReplicas('m1', 'default', 'web-hpa')).toBe(8);
    step(s, { ...input, now: at(60_000) });
    expect(s.hpaReplicas('m1', 'default', 'web-hpa')).toBe(8); // the window still holds the 8
    for (let t = 61_000; t <= 400_000; t += 1000) step(s, { ...input, now: at(t) });
    expect(s.hpaReplicas('m1', 'default', 'web-hpa')).toBe(2); // 0.5 core / (500m × 50%)
  });

  it('damps a scale-up while pods are Pending for lack of room', () => {
    const s = new SimulatedClusters({ hpaSyncPeriodMs: 1000 });
    const tiny = cluster(
      'm1',
      sim({
        allocatable: { cpu: '2', memory: '8Gi', pods: '110' },
        loads: [{ workload: { kind: 'Deployment', name: 'web' }, model: { type: 'constant', cores: 4 } }],
      }),
    );
    const input = { clusters: [tiny], bindings: [web, hpaBinding], hpas: [hpa('web-hpa', 'web', 1, 20, 50)] };
    let last: Report[] = [];
    for (let t = 0; t <= 10_000; t += 1000) {
      const r = step(s, { ...input, now: at(t) });
      if (r.length) last = r;
    }
    const status = workloadData(last, 'web-deployment', 'm1')?.status;
    expect(status?.readyReplicas).toBe(4); // 2 cores hold 4 pods of 500m
    expect(status!.pendingReplicas).toBeGreaterThan(0);
    expect(s.hpaReplicas('m1', 'default', 'web-hpa')).toBeLessThanOrEqual(20);
  });

  it('without a load model the HPA has no metric and leaves the replicas alone', () => {
    const s = new SimulatedClusters({ hpaSyncPeriodMs: 1000 });
    const input = {
      clusters: [cluster('m1', sim())],
      bindings: [web, hpaBinding],
      hpas: [hpa('web-hpa', 'web', 1, 10, 50)],
    };
    for (let t = 0; t <= 5000; t += 1000) step(s, { ...input, now: at(t) });
    expect(s.hpaReplicas('m1', 'default', 'web-hpa')).toBe(2);
  });

  it('lifts replicas below minReplicas at once', () => {
    const s = new SimulatedClusters();
    const input = {
      clusters: [cluster('m1', sim())],
      bindings: [web, hpaBinding],
      hpas: [hpa('web-hpa', 'web', 3, 10, 50)],
      now: at(0),
    };
    expect(replicasOf(step(s, input))).toBe(3);
  });

  it('freezes while the cluster is failed, and forgets an HPA no longer propagated', () => {
    const s = new SimulatedClusters({ hpaSyncPeriodMs: 1000 });
    const input = {
      clusters: [withLoad({ type: 'constant', cores: 4 })],
      bindings: [web, hpaBinding],
      hpas: [hpa('web-hpa', 'web', 1, 10, 50)],
    };
    step(s, { ...input, now: at(0) });
    expect(s.hpaReplicas('m1', 'default', 'web-hpa')).toBe(4);
    step(s, { ...input, clusters: [withLoad({ type: 'constant', cores: 4 }, { failed: true })], now: at(5000) });
    expect(s.hpaReplicas('m1', 'default', 'web-hpa')).toBe(4);
    step(s, { ...input, bindings: [web], now: at(6000) });
    expect(s.hpaReplicas('m1', 'default', 'web-hpa')).toBeUndefined();
  });
});
