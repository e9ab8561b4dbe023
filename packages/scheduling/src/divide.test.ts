import { describe, expect, it } from 'vitest';
import { type Candidate, compareCandidates } from './candidate.js';
import { type AssignInput, assignReplicas } from './divide.js';
import { resolveStrategy } from './strategy.js';
import type { Placement, TargetCluster } from './types.js';

type Caps = Record<string, number>;

/** Candidates from free capacities, with own replicas / score from `previous`, in candidate order. */
function candidates(
  free: Caps,
  previous: TargetCluster[] = [],
  labels: Record<string, Record<string, string>> = {},
): Candidate[] {
  return Object.entries(free)
    .map(([name, f]) => {
      const prev = previous.find((t) => t.name === name);
      return {
        name,
        cluster: { metadata: { name, labels: labels[name] ?? {} } },
        free: f,
        own: prev?.replicas ?? 0,
        score: prev ? 100 : 0,
      };
    })
    .sort(compareCandidates);
}

const asMap = (ts: TargetCluster[]) => Object.fromEntries(ts.map((t) => [t.name, t.replicas]));

function assign(
  placement: Placement,
  desired: number,
  free: Caps,
  previous: TargetCluster[] = [],
  extra: Partial<AssignInput> = {},
) {
  return asMap(
    assignReplicas({
      candidates: candidates(free, previous),
      strategy: resolveStrategy(placement.replicaScheduling),
      placement,
      desired,
      hasRequirements: true,
      previous,
      mode: 'Steady',
      descendingNames: false,
      ...extra,
    }),
  );
}

const dup: Placement = {};
const staticW = (
  list?: NonNullable<NonNullable<Placement['replicaScheduling']>['weightPreference']>['staticWeightList'],
): Placement => ({
  replicaScheduling: {
    replicaSchedulingType: 'Divided',
    replicaDivisionPreference: 'Weighted',
    ...(list && { weightPreference: { staticWeightList: list } }),
  },
});
const dynamic: Placement = {
  replicaScheduling: {
    replicaSchedulingType: 'Divided',
    replicaDivisionPreference: 'Weighted',
    weightPreference: { dynamicWeight: 'AvailableReplicas' },
  },
};
const aggregated: Placement = {
  replicaScheduling: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Aggregated' },
};
const prev = (m: Caps): TargetCluster[] => Object.entries(m).map(([name, replicas]) => ({ name, replicas }));

describe('resolveStrategy', () => {
  it.each([
    { rs: undefined, want: 'Duplicated' },
    { rs: { replicaSchedulingType: 'Duplicated' }, want: 'Duplicated' },
    { rs: {}, want: 'StaticWeight' },
    { rs: { replicaSchedulingType: 'Divided' }, want: 'StaticWeight' },
    { rs: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Aggregated' }, want: 'Aggregated' },
    {
      rs: { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Weighted', weightPreference: {} },
      want: 'StaticWeight',
    },
    {
      rs: {
        replicaSchedulingType: 'Divided',
        replicaDivisionPreference: 'Weighted',
        weightPreference: { dynamicWeight: 'AvailableReplicas', staticWeightList: [{ targetCluster: {}, weight: 1 }] },
      },
      want: 'DynamicWeight',
    },
  ])('$rs → $want', ({ rs, want }) => {
    expect(resolveStrategy(rs)).toBe(want);
  });

  it.each([
    { replicaSchedulingType: 'Sharded' },
    { replicaSchedulingType: 'Divided', replicaDivisionPreference: 'Packed' },
  ])('rejects %o', (rs) => {
    expect(() => resolveStrategy(rs)).toThrow('unsupported replica scheduling strategy');
  });
});

describe('Duplicated', () => {
  it('gives every candidate all replicas, ignoring capacity', () => {
    expect(assign(dup, 4, { m1: 0, m2: 1, m3: 9 })).toEqual({ m1: 4, m2: 4, m3: 4 });
  });
  it('drops everything at 0 replicas when the workload declares requests', () => {
    expect(assign(dup, 0, { m1: 1, m2: 1 })).toEqual({});
  });
  it('keeps every candidate at 0 for a non-workload (no replicas, no requirements)', () => {
    expect(assign(dup, 0, { m1: 1, m2: 1 }, [], { hasRequirements: false })).toEqual({ m1: 0, m2: 0 });
  });
  it('fails without candidates', () => {
    expect(() => assign(dup, 1, {})).toThrow('no clusters available to schedule');
  });
});

describe('Divided, static weights', () => {
  const ns = (...names: string[]) => ({ clusterNames: names });
  it.each([
    {
      name: 'no weightPreference: equal weights, ascending tie-break',
      placement: staticW(),
      n: 9,
      want: { m1: 3, m2: 2, m3: 2, m4: 2 },
    },
    {
      name: '2:1:1:1 is 3:2:2:2 (Webster, not largest remainder)',
      placement: staticW([
        { targetCluster: ns('m1'), weight: 2 },
        { targetCluster: ns('m2', 'm3', 'm4'), weight: 1 },
      ]),
      n: 9,
      want: { m1: 3, m2: 2, m3: 2, m4: 2 },
    },
    {
      name: 'the largest matching rule wins, not the sum',
      placement: staticW([
        { targetCluster: ns('m1', 'm2'), weight: 1 },
        { targetCluster: ns('m1'), weight: 3 },
      ]),
      n: 8,
      want: { m1: 6, m2: 2 },
    },
    {
      name: 'a rule applies to each matching cluster individually',
      placement: staticW([{ targetCluster: {}, weight: 2 }]),
      n: 4,
      want: { m1: 1, m2: 1, m3: 1, m4: 1 },
    },
    {
      name: 'no candidate matches any rule: equal weights',
      placement: staticW([{ targetCluster: ns('other'), weight: 5 }]),
      n: 4,
      want: { m1: 1, m2: 1, m3: 1, m4: 1 },
    },
    {
      name: '2 at 2:1 is 1:1',
      placement: staticW([
        { targetCluster: ns('m1'), weight: 2 },
        { targetCluster: ns('m2'), weight: 1 },
      ]),
      n: 2,
      want: { m1: 1, m2: 1 },
    },
  ])('$name', ({ placement, n, want }) => {
    expect(assign(placement, n, { m1: 0, m2: 0, m3: 0, m4: 0 })).toEqual(want);
  });

  it('breaks ties towards larger names when the UID parity is odd', () => {
    expect(assign(staticW(), 9, { m1: 0, m2: 0, m3: 0, m4: 0 }, [], { descendingNames: true })).toEqual({
      m1: 2,
      m2: 2,
      m3: 2,
      m4: 3,
    });
  });

  it('is stateless: Steady with a previous assignment gives the same result', () => {
    const p = staticW([
      { targetCluster: ns('m1'), weight: 1 },
      { targetCluster: ns('m2'), weight: 1 },
    ]);
    expect(assign(p, 3, { m1: 0, m2: 0 }, prev({ m2: 2, m1: 1 }))).toEqual({ m1: 2, m2: 1 });
    expect(assign(p, 3, { m1: 0, m2: 0 }, prev({ m2: 2, m1: 1 }), { mode: 'Fresh' })).toEqual({ m1: 2, m2: 1 });
  });
});

describe('Divided, dynamic weight (AvailableReplicas)', () => {
  it('first schedule splits by free capacity', () => {
    expect(assign(dynamic, 12, { m1: 4, m2: 6, m3: 8 })).toEqual({ m1: 3, m2: 4, m3: 5 });
  });
  it('is Unschedulable when free capacity falls short', () => {
    expect(() => assign(dynamic, 19, { m1: 4, m2: 6, m3: 8 })).toThrow(
      'Clusters available replicas 18 are not enough to schedule.',
    );
  });
  it('breaks equal capacities by the UID parity', () => {
    expect(assign(dynamic, 1, { m1: 5, m2: 5 })).toEqual({ m1: 1 });
    expect(assign(dynamic, 1, { m1: 5, m2: 5 }, [], { descendingNames: true })).toEqual({ m2: 1 });
  });
  it('Steady, same replicas: keeps the previous assignment even if it no longer fits', () => {
    expect(assign(dynamic, 6, { m1: 0, m2: 0, m3: 100 }, prev({ m1: 5, m2: 1 }))).toEqual({ m1: 5, m2: 1 });
  });
  it('Steady scale up: adds by free capacity and merges', () => {
    expect(assign(dynamic, 10, { m1: 2, m2: 4, m3: 0 }, prev({ m1: 2, m2: 2 }))).toEqual({ m1: 4, m2: 6 });
  });
  it('Steady scale up checks only the new replicas against free capacity', () => {
    expect(() => assign(dynamic, 10, { m1: 2, m2: 3 }, prev({ m1: 2, m2: 2 }))).toThrow(
      'Clusters available replicas 5 are not enough',
    );
  });
  it('Steady scale down: shrinks in proportion to the previous replicas, never fails', () => {
    expect(assign(dynamic, 6, { m1: 0, m2: 0 }, prev({ m1: 6, m2: 3 }))).toEqual({ m1: 4, m2: 2 });
  });
  it('scale to 0 leaves an empty assignment', () => {
    expect(assign(dynamic, 0, { m1: 0, m2: 0 }, prev({ m1: 6, m2: 3 }))).toEqual({});
  });
  it('forgets replicas on clusters that are no longer candidates and re-places them', () => {
    expect(assign(dynamic, 6, { m1: 10, m2: 10 }, prev({ gone: 4, m1: 2 }))).toEqual({ m1: 4, m2: 2 });
  });
  it('Fresh: recomputes from tier capacity (free + own), ignoring the previous split', () => {
    expect(assign(dynamic, 12, { m1: 0, m2: 4, m3: 8 }, prev({ m1: 8, m2: 4 }), { mode: 'Fresh' })).toEqual({
      m1: 4,
      m2: 4,
      m3: 4,
    });
  });
});

describe('Divided, Aggregated', () => {
  it('the reference worked example (§6.8): previous {m1:4, m2:8}, 24 desired', () => {
    expect(assign(aggregated, 24, { m1: 4, m2: 6, m3: 8 }, prev({ m1: 4, m2: 8 }))).toEqual({ m1: 7, m2: 12, m3: 5 });
  });
  it('splits inside the shortest prefix by free capacity (12 over 6:8:10)', () => {
    expect(assign(aggregated, 12, { m1: 6, m2: 8, m3: 10 })).toEqual({ m2: 5, m3: 7 });
  });
  it('uses one cluster when the biggest is enough', () => {
    expect(assign(aggregated, 5, { m1: 4, m2: 6, m3: 8 })).toEqual({ m3: 5 });
  });
  it('scale up fills clusters already in use first', () => {
    expect(assign(aggregated, 5, { m1: 3, m2: 10 }, prev({ m1: 2 }))).toEqual({ m1: 5 });
  });
  it('scale down keeps the largest holders', () => {
    expect(assign(aggregated, 4, { m1: 0, m2: 0, m3: 0 }, prev({ m1: 2, m2: 5, m3: 1 }))).toEqual({ m2: 4 });
  });
  it('equal capacities follow candidate order (name ascending)', () => {
    expect(assign(aggregated, 2, { b: 5, a: 5 })).toEqual({ a: 2 });
  });
  it('Fresh consolidates onto one cluster when it now fits', () => {
    expect(assign(aggregated, 8, { m1: 0, m2: 0, m3: 10 }, prev({ m1: 4, m2: 4 }), { mode: 'Fresh' })).toEqual({
      m3: 8,
    });
  });
  it('Steady does not consolidate', () => {
    expect(assign(aggregated, 8, { m1: 0, m2: 0, m3: 10 }, prev({ m1: 4, m2: 4 }))).toEqual({ m1: 4, m2: 4 });
  });
  it('is Unschedulable when the total falls short', () => {
    expect(() => assign(aggregated, 11, { m1: 4, m2: 6 })).toThrow(
      'Clusters available replicas 10 are not enough to schedule.',
    );
  });
});
