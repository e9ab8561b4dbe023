import { describe, expect, it } from 'vitest';
import { chunkEvents } from './chunk-events.js';
import { foldRebalancerStatus } from './evolve.js';
import { planRebalance, reconcileRebalancer, type BindingWrite, type RebalanceDecision } from './reconcile.js';
import type {
  BindingLookup,
  BindingRef,
  BindingView,
  BindingWriteOutcome,
  ObservedWorkload,
  WorkloadRebalancer,
  WorkloadRebalancerStatus,
  WorkloadReference,
} from './types.js';
import { bindingKey, bindingRefOf } from './binding-ref.js';

// The worked example of Karmada's WorkloadRebalancer proposal: created at 15:04:05, two Deployments and a ClusterRole.
const CREATED = '2024-04-17T15:04:05Z';
const T = (s: number) => new Date(Date.parse(CREATED) + s * 1000);
const iso = (s: number) => T(s).toISOString().replace('.000Z', 'Z');

const deploy = (name: string, namespace = 'default'): WorkloadReference => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  name,
  namespace,
});
const role = (name: string): WorkloadReference => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  name,
});
const d1 = deploy('demo-deploy-1');
const d2 = deploy('demo-deploy-2');
const r1 = role('demo-role');
const d3 = deploy('demo-deploy-3');

function bindingOf(
  w: WorkloadReference,
  o: { triggeredAt?: string; apiVersion?: string; rv?: string } = {},
): BindingView {
  const ref = bindingRefOf(w);
  return {
    kind: ref.kind,
    metadata: { name: ref.name, ...(ref.namespace ? { namespace: ref.namespace } : {}), resourceVersion: o.rv ?? '7' },
    spec: {
      resource: {
        apiVersion: o.apiVersion ?? w.apiVersion,
        kind: w.kind,
        name: w.name,
        ...(w.namespace ? { namespace: w.namespace } : {}),
      },
      clusters: [{ name: 'member2', replicas: 3 }],
      ...(o.triggeredAt ? { rescheduleTriggeredAt: o.triggeredAt } : {}),
    },
    status: { lastScheduledTime: '2024-04-17T15:00:05Z' },
  };
}

function rebalancer(
  workloads: WorkloadReference[],
  o: { generation?: number; ttl?: number; status?: WorkloadRebalancerStatus } = {},
): WorkloadRebalancer {
  return {
    apiVersion: 'apps.karmada.io/v1alpha1',
    kind: 'WorkloadRebalancer',
    metadata: { name: 'demo', creationTimestamp: CREATED, generation: o.generation ?? 1, resourceVersion: '10' },
    spec: { workloads, ...(o.ttl !== undefined ? { ttlSecondsAfterFinished: o.ttl } : {}) },
    ...(o.status ? { status: o.status } : {}),
  } as WorkloadRebalancer;
}

/** A pass whose planned writes all succeed, with the writes it planned. */
type Pass = RebalanceDecision & { bindingWrites: BindingWrite[] };

/**
 * The bindings that exist, by workload; `errors` names workloads whose lookup fails (a network error). Each planned
 * write stores the trigger, unless `outcomes` says what became of it (by workload name).
 */
function pass(
  rb: WorkloadRebalancer,
  bindings: BindingView[],
  now: Date,
  errors: WorkloadReference[] = [],
  outcomes: Record<string, BindingWriteOutcome> = {},
): Pass {
  const byName = new Map(bindings.map((b) => [`${b.metadata.namespace ?? ''}/${b.metadata.name}`, b]));
  const input = {
    rebalancer: rb,
    lookup: (w: WorkloadReference, ref: BindingRef): BindingLookup => {
      if (errors.some((e) => e.name === w.name)) return { error: 'connection reset' };
      const b = byName.get(`${ref.namespace ?? ''}/${ref.name}`);
      return b ? { found: b } : { notFound: true };
    },
  };
  const bindingWrites = planRebalance(input);
  const writes = new Map(
    bindingWrites.map((w): [string, BindingWriteOutcome] => {
      const b = byName.get(`${w.binding.namespace ?? ''}/${w.binding.name}`)!;
      const stored = { ...b, spec: { ...b.spec, rescheduleTriggeredAt: w.rescheduleTriggeredAt } };
      return [bindingKey(w.binding), outcomes[w.workload.name] ?? { written: stored }];
    }),
  );
  return { ...reconcileRebalancer({ ...input, writes, now }), bindingWrites };
}

const ok = (w: WorkloadReference): ObservedWorkload => ({ workload: w, result: 'Successful' });
const failed = (w: WorkloadReference): ObservedWorkload => ({
  workload: w,
  result: 'Failed',
  reason: 'ReferencedBindingNotFound',
});
const pending = (w: WorkloadReference): ObservedWorkload => ({ workload: w });

describe("reconcileRebalancer: the proposal's example", () => {
  const d = pass(rebalancer([d1, r1, d2]), [bindingOf(d1), bindingOf(r1)], T(1));
  it('writes the creationTimestamp into both bindings that exist', () => {
    expect(d.bindingWrites.map((w) => [w.binding.name, w.rescheduleTriggeredAt, w.resourceVersion])).toEqual([
      ['demo-deploy-1-deployment', CREATED, '7'],
      ['demo-role-clusterrole', CREATED, '7'],
    ]);
  });
  it('records the results sorted as in step 3 (demo-deploy-2 Failed, ReferencedBindingNotFound) and finishes', () => {
    expect(d.status).toEqual({
      observedWorkloads: [ok(d1), failed(d2), ok(r1)],
      observedGeneration: 1,
      finishTime: iso(1),
    });
    expect(d.events.map((e) => e.type)).toEqual([
      'RebalanceObserved',
      'RebalanceTriggered',
      'RebalanceBindingNotFound',
      'RebalanceFinished',
    ]);
    expect(d.retry).toEqual([]);
  });
  it('without a TTL never deletes nor requeues', () => {
    expect([d.delete, d.requeueAfterMs]).toEqual([false, null]);
  });
  it('a second pass over its own result changes nothing', () => {
    const again = pass(
      rebalancer([d1, r1, d2], { status: d.status }),
      [bindingOf(d1, { triggeredAt: CREATED }), bindingOf(r1, { triggeredAt: CREATED })],
      T(30),
    );
    expect([again.events, again.bindingWrites, again.status]).toEqual([[], [], d.status]);
  });
});

// Karmada's spec-update table, each row from a finished first pass over d1 (Successful), d2 (Failed) and r1.
describe('reconcileRebalancer: spec updates', () => {
  const first = { observedWorkloads: [ok(d1), failed(d2), ok(r1)], observedGeneration: 1, finishTime: iso(1) };
  const bindings = [bindingOf(d1, { triggeredAt: CREATED }), bindingOf(r1, { triggeredAt: CREATED }), bindingOf(d3)];
  it.each<[string, WorkloadReference[], ObservedWorkload[], string[]]>([
    [
      'add a workload: appended and triggered with the original creationTimestamp',
      [d1, r1, d2, d3],
      [ok(d1), failed(d2), ok(d3), ok(r1)],
      ['demo-deploy-3-deployment'],
    ],
    ['remove a workload that succeeded: it stays Successful', [r1, d2], [ok(d1), failed(d2), ok(r1)], []],
    ['remove a workload that failed: it is dropped', [d1, r1], [ok(d1), ok(r1)], []],
    [
      'modify a reference (Successful d1 renamed to d3): remove + add',
      [d3, r1, d2],
      [ok(d1), failed(d2), ok(d3), ok(r1)],
      ['demo-deploy-3-deployment'],
    ],
    ['reorder and duplicate: no binding writes', [d2, d2, r1, d1], [ok(d1), failed(d2), ok(r1)], []],
    [
      're-add a removed Successful workload: still Successful, not triggered again',
      [d1, r1, d2],
      [ok(d1), failed(d2), ok(r1)],
      [],
    ],
  ])('%s', (_title, workloads, observed, writes) => {
    const d = pass(rebalancer(workloads, { generation: 2, status: first }), bindings, T(60));
    expect(d.status?.observedWorkloads).toEqual(observed);
    expect(d.bindingWrites.map((w) => [w.binding.name, w.rescheduleTriggeredAt])).toEqual(
      writes.map((n) => [n, CREATED]),
    );
    // any spec edit (generation bump) changes observedGeneration, so finishTime moves to the edit
    expect(d.status).toMatchObject({ observedGeneration: 2, finishTime: iso(60) });
  });
  it('remove a pending workload (its lookup kept failing): it is dropped, and the rebalancer finishes', () => {
    const stuck = { observedWorkloads: [ok(d1), pending(d2)], observedGeneration: 1 };
    const d = pass(rebalancer([d1], { generation: 2, status: stuck }), bindings, T(60));
    expect(d.status).toEqual({ observedWorkloads: [ok(d1)], observedGeneration: 2, finishTime: iso(60) });
  });
});

describe("reconcileRebalancer: TTL (Karmada's corner cases)", () => {
  const finished = { observedWorkloads: [ok(d1)], observedGeneration: 1, finishTime: iso(1) };
  const bindings = [bindingOf(d1, { triggeredAt: CREATED }), bindingOf(d3)];
  it('waits out ttlSecondsAfterFinished after finishTime, then deletes', () => {
    expect(pass(rebalancer([d1], { ttl: 60, status: finished }), bindings, T(31))).toMatchObject({
      delete: false,
      requeueAfterMs: 30_000,
      events: [],
    });
    expect(pass(rebalancer([d1], { ttl: 60, status: finished }), bindings, T(61))).toMatchObject({
      delete: true,
      requeueAfterMs: null,
      events: [],
    });
  });
  it('TTL 0 deletes in the pass that finishes', () => {
    expect(pass(rebalancer([d1], { ttl: 0 }), bindings, T(1))).toMatchObject({
      delete: true,
      status: { finishTime: iso(1) },
    });
  });
  it("a negative TTL (Karmada admits it; Flotilla's admission does not) behaves as 0", () => {
    expect(pass(rebalancer([d1], { ttl: -5, status: finished }), bindings, T(1))).toMatchObject({ delete: true });
  });
  it('case 1: a workload added before the TTL ran out moves finishTime, so the delete waits a whole TTL again', () => {
    const d = pass(rebalancer([d1, d3], { ttl: 60, generation: 2, status: finished }), bindings, T(50));
    expect(d).toMatchObject({ delete: false, requeueAfterMs: 60_000, status: { finishTime: iso(50) } });
  });
  it('case 2: a TTL edited before it ran out counts from the edit, with the new value', () => {
    expect(pass(rebalancer([d1], { ttl: 10, generation: 2, status: finished }), bindings, T(50))).toMatchObject({
      delete: false,
      requeueAfterMs: 10_000,
    });
    expect(pass(rebalancer([d1], { ttl: 0, generation: 2, status: finished }), bindings, T(50))).toMatchObject({
      delete: true,
    });
  });
  it('a pending workload holds the TTL back (nothing is finished)', () => {
    const d = pass(rebalancer([d1, d3], { ttl: 0, generation: 2, status: finished }), bindings, T(50), [d3]);
    expect(d).toMatchObject({
      delete: false,
      requeueAfterMs: null,
      retry: [{ workload: d3, error: 'connection reset' }],
    });
  });
});

describe("reconcileRebalancer: bindings already triggered, errors, and Flotilla's deliberate differences", () => {
  it.each<[string, string | undefined, boolean]>([
    ['unset: written', undefined, true],
    ['earlier than creationTimestamp: written', '2024-04-17T15:00:00Z', true],
    ['equal: not written, Successful', CREATED, false],
    ['later (a newer rebalancer): not written, Successful, left as it is', '2024-04-17T16:00:00Z', false],
  ])('rescheduleTriggeredAt %s', (_t, at, written) => {
    const d = pass(rebalancer([d1]), [bindingOf(d1, { triggeredAt: at })], T(1));
    expect(d.bindingWrites.length).toBe(written ? 1 : 0);
    expect(d.status?.observedWorkloads).toEqual([ok(d1)]);
    const t = d.events.find((e) => e.type === 'RebalanceTriggered');
    expect(t?.data).toMatchObject({
      workloads: [
        { written, rescheduleTriggeredAt: written ? CREATED : at, clustersBefore: [{ name: 'member2', replicas: 3 }] },
      ],
    });
  });
  it('a failed lookup (conflict, network) leaves the workload pending without finishTime, and a later pass finishes it', () => {
    const first = pass(rebalancer([d1, d3]), [bindingOf(d1), bindingOf(d3)], T(1), [d3]);
    expect(first.status).toEqual({ observedWorkloads: [ok(d1), pending(d3)], observedGeneration: 1 });
    expect(first.bindingWrites.map((w) => w.binding.name)).toEqual(['demo-deploy-1-deployment']);
    const second = pass(
      rebalancer([d1, d3], { status: first.status }),
      [bindingOf(d1, { triggeredAt: CREATED }), bindingOf(d3)],
      T(5),
    );
    expect(second.status).toEqual({ observedWorkloads: [ok(d1), ok(d3)], observedGeneration: 1, finishTime: iso(5) });
    expect(second.bindingWrites.map((w) => w.binding.name)).toEqual(['demo-deploy-3-deployment']);
  });
  it('a reference with the wrong apiVersion does not rebalance the object that owns the binding name', () => {
    const d = pass(rebalancer([{ ...d1, apiVersion: 'apps/v1beta1' }]), [bindingOf(d1)], T(1));
    expect(d.bindingWrites).toEqual([]);
    expect(d.status?.observedWorkloads).toEqual([failed({ ...d1, apiVersion: 'apps/v1beta1' })]);
  });
  it('a Failed workload whose binding appears later becomes Successful and finishTime moves (Karmada never retries)', () => {
    const first = pass(rebalancer([d1, d2]), [bindingOf(d1)], T(1));
    expect(first.status?.observedWorkloads).toEqual([ok(d1), failed(d2)]);
    const still = pass(rebalancer([d1, d2], { status: first.status }), [bindingOf(d1, { triggeredAt: CREATED })], T(5));
    expect(still.events).toEqual([]);
    const later = pass(
      rebalancer([d1, d2], { status: first.status }),
      [bindingOf(d1, { triggeredAt: CREATED }), bindingOf(d2)],
      T(9),
    );
    expect(later.status).toEqual({ observedWorkloads: [ok(d1), ok(d2)], observedGeneration: 1, finishTime: iso(9) });
    expect(later.bindingWrites.map((w) => [w.binding.name, w.rescheduleTriggeredAt])).toEqual([
      ['demo-deploy-2-deployment', CREATED],
    ]);
  });
  it('a status with every result but no finishTime (a pass cut short) gets one', () => {
    const d = pass(
      rebalancer([d1], { ttl: 0, status: { observedWorkloads: [ok(d1)], observedGeneration: 1 } }),
      [],
      T(3),
    );
    expect(d.events.map((e) => e.type)).toEqual(['RebalanceFinished']);
    expect(d).toMatchObject({ status: { finishTime: iso(3) }, delete: true });
  });
  it('a rebalancer without creationTimestamp is refused with the field path', () => {
    const rb = rebalancer([d1]);
    delete rb.metadata.creationTimestamp;
    expect(() => pass(rb, [], T(0))).toThrow(/metadata\.creationTimestamp/);
  });
  it('uses the workloads spec.workloadSelectors selected when the spec is observed, and only then', () => {
    const rb = rebalancer([d1]);
    const d = reconcileRebalancer({
      rebalancer: rb,
      now: T(1),
      selected: [d3],
      lookup: () => ({ notFound: true }),
      writes: new Map(),
    });
    expect(d.status?.observedWorkloads).toEqual([failed(d1), failed(d3)]);
    const again = reconcileRebalancer({
      rebalancer: { ...rb, status: d.status },
      now: T(2),
      selected: [],
      lookup: () => ({ notFound: true }),
      writes: new Map(),
    });
    expect(again.status?.observedWorkloads).toEqual([failed(d1), failed(d3)]);
  });
});

describe('reconcileRebalancer: decided from what the writes did (a compare-and-set conflict)', () => {
  const triggeredOf = (d: RebalanceDecision) =>
    d.events.flatMap((e) => (e.type === 'RebalanceTriggered' ? e.data.workloads : []));
  const later = '2024-04-17T16:00:00Z';

  it('lost to a newer rebalancer: read again it carries a later trigger, so Successful without a write', () => {
    const winner = bindingOf(d1, { triggeredAt: later, rv: '8' });
    const d = pass(rebalancer([d1, r1]), [bindingOf(d1), bindingOf(r1)], T(1), [], {
      'demo-deploy-1': { unchanged: winner },
    });
    expect(d.bindingWrites.map((w) => w.binding.name)).toEqual(['demo-deploy-1-deployment', 'demo-role-clusterrole']);
    expect(triggeredOf(d).map((t) => [t.workload.name, t.written, t.rescheduleTriggeredAt])).toEqual([
      ['demo-deploy-1', false, later],
      ['demo-role', true, CREATED],
    ]);
    expect(d.status).toEqual({ observedWorkloads: [ok(d1), ok(r1)], observedGeneration: 1, finishTime: iso(1) });
  });

  it('the binding deleted before the write: Failed, not triggered', () => {
    const d = pass(rebalancer([d1, r1]), [bindingOf(d1), bindingOf(r1)], T(1), [], {
      'demo-deploy-1': { notFound: true },
    });
    expect(triggeredOf(d).map((t) => t.workload.name)).toEqual(['demo-role']);
    expect(d.status?.observedWorkloads).toEqual([failed(d1), ok(r1)]);
  });

  it('a conflict that kept losing: pending and retried, not triggered, no finishTime; the next pass finishes it', () => {
    const d = pass(rebalancer([d1, r1]), [bindingOf(d1), bindingOf(r1)], T(1), [], {
      'demo-deploy-1': { error: 'wrong last sequence' },
    });
    expect(triggeredOf(d).map((t) => t.workload.name)).toEqual(['demo-role']);
    expect(d.retry).toEqual([{ workload: d1, error: 'wrong last sequence' }]);
    expect(d.status).toEqual({ observedWorkloads: [pending(d1), ok(r1)], observedGeneration: 1 });
    expect([d.delete, d.requeueAfterMs]).toEqual([false, null]);
    const next = pass(
      rebalancer([d1, r1], { status: d.status }),
      [bindingOf(d1), bindingOf(r1, { triggeredAt: CREATED })],
      T(4),
    );
    expect(triggeredOf(next).map((t) => [t.workload.name, t.written])).toEqual([['demo-deploy-1', true]]);
    expect(next.status).toEqual({ observedWorkloads: [ok(d1), ok(r1)], observedGeneration: 1, finishTime: iso(4) });
  });

  it('a write that stored nothing and found the trigger still missing, or no outcome at all, is retried', () => {
    const d = pass(rebalancer([d1]), [bindingOf(d1)], T(1), [], { 'demo-deploy-1': { unchanged: bindingOf(d1) } });
    expect([triggeredOf(d), d.retry.map((r) => r.workload)]).toEqual([[], [d1]]);
    const none = reconcileRebalancer({
      rebalancer: rebalancer([d1]),
      lookup: () => ({ found: bindingOf(d1) }),
      writes: new Map(),
      now: T(1),
    });
    expect([triggeredOf(none), none.retry.map((r) => r.workload)]).toEqual([[], [d1]]);
  });
});

describe('events in pieces fold to the same status', () => {
  it('1,000 workloads chunked by 64 give the status of the whole', () => {
    const many = Array.from({ length: 1000 }, (_, i) => deploy(`w-${String(i).padStart(4, '0')}`, i % 3 ? 'a' : 'b'));
    const d = pass(
      rebalancer(many),
      many.filter((_, i) => i % 7).map((w) => bindingOf(w)),
      T(1),
    );
    const pieces = chunkEvents(d.events, 64);
    expect(pieces.length).toBeGreaterThan(d.events.length);
    expect(foldRebalancerStatus(undefined, pieces)).toEqual(d.status);
    expect(d.status?.observedWorkloads?.filter((o) => o.result === 'Failed')).toHaveLength(143);
  });
});
