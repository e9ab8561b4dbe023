import { describe, expect, it } from 'vitest';
import { SimulationSpecError } from './errors.js';
import { initialHpaState, parseHpaSpec, proposeReplicas, reconcileHpa, type CpuSample, type HpaSpec } from './hpa.js';

/** `ready` pods of `requestMilli` each using `usageMilli` in total, none Pending. */
const sample = (ready: number, usageMilli: number, requestMilli = 1000, pending = 0): CpuSample => ({
  readyPods: ready,
  pendingPods: pending,
  usageMilli,
  requestMilli,
});

describe('proposeReplicas (replica calculator, cpu Utilization)', () => {
  it.each([
    // utilization = trunc(100 × usage / requests); ratio = utilization / target
    { name: 'at target', current: 4, s: sample(4, 3200), target: 80, want: 4 },
    { name: 'within tolerance above (ratio 1.075)', current: 4, s: sample(4, 3440), target: 80, want: 4 },
    // 88/80 is a hair above 1.1 in float64, in Go as here, so Kubernetes scales at this boundary.
    {
      name: 'the 1.1 boundary scales, as float64 in Kubernetes does',
      current: 4,
      s: sample(4, 3520),
      target: 80,
      want: 5,
    },
    { name: 'within tolerance below (ratio 0.9)', current: 4, s: sample(4, 2880), target: 80, want: 4 },
    { name: 'just past tolerance above (ratio 1.1125)', current: 4, s: sample(4, 3560), target: 80, want: 5 },
    { name: 'just past tolerance below (ratio 0.8875)', current: 4, s: sample(4, 2840), target: 80, want: 4 },
    { name: 'scale up: 2 pods at 200% of a 50% target', current: 2, s: sample(2, 4000), target: 50, want: 8 },
    { name: 'scale down: 10 pods at 10% of a 50% target', current: 10, s: sample(10, 1000), target: 50, want: 2 },
    {
      name: 'utilization truncates: 3 pods at 66.67% (66) of 60%',
      current: 3,
      s: sample(3, 2000),
      target: 61,
      want: 3,
    },
    { name: 'idle pods scale to ratio 0', current: 5, s: sample(5, 0), target: 80, want: 0 },
    // With Pending pods and a scale-up, Pending pods count as using nothing (they damp the scale-up).
    { name: 'pending pods damp a scale-up', current: 6, s: sample(2, 4000, 1000, 4), target: 50, want: 8 },
    {
      name: 'pending pods flip the direction: keep current',
      current: 6,
      s: sample(2, 2400, 1000, 4),
      target: 100,
      want: 6,
    },
    {
      name: 'pending pods put it within tolerance: keep current',
      current: 4,
      s: sample(2, 3000, 1000, 2),
      target: 80,
      want: 4,
    },
    { name: 'pending pods do not matter on a scale-down', current: 6, s: sample(2, 200, 1000, 4), target: 50, want: 1 },
  ])('$name', ({ current, s, target, want }) => {
    expect(proposeReplicas(current, s, target)?.replicas).toBe(want);
  });

  it('has no proposal without ready pods or without a cpu request', () => {
    expect(proposeReplicas(3, sample(0, 0, 1000, 3), 80)).toBeUndefined();
    expect(proposeReplicas(3, sample(3, 1000, 0), 80)).toBeUndefined();
  });

  it('reports the truncated utilization', () => {
    expect(proposeReplicas(3, sample(3, 2000), 60)?.utilization).toBe(66);
  });
});

describe('reconcileHpa', () => {
  const spec: HpaSpec = { minReplicas: 2, maxReplicas: 10, targetUtilization: 50 };
  const t0 = 1_000_000;

  it.each([
    { name: 'clamps to maxReplicas', spec, current: 4, s: sample(4, 40_000), want: 8 /* scale-up limit max(2×4, 4) */ },
    {
      name: 'clamps to maxReplicas past the scale-up limit',
      spec: { ...spec, maxReplicas: 6 },
      current: 4,
      s: sample(4, 40_000),
      want: 6,
    },
    { name: 'scale-up limit of 4 from one pod', spec, current: 1 + 1, s: sample(2, 20_000), want: 4 },
    { name: 'clamps to minReplicas', spec: { ...spec, minReplicas: 3 }, current: 3, s: sample(3, 0), want: 3 },
    { name: 'above max without looking at metrics', spec, current: 12, s: sample(12, 0), want: 10 },
    { name: 'below min without looking at metrics', spec, current: 1, s: sample(1, 100_000), want: 2 },
    { name: 'zero replicas with minReplicas > 0 disables scaling', spec, current: 0, s: sample(0, 0), want: 0 },
    { name: 'no metric: no change', spec, current: 5, s: sample(0, 0, 1000, 5), want: 5 },
    { name: 'within tolerance: no change', spec, current: 4, s: sample(4, 2100), want: 4 },
  ])('$name', ({ spec: sp, current, s, want }) => {
    // An old recommendation only: the downscale window holds nothing that would keep the scale up.
    const state = { replicas: current, recommendations: [{ replicas: current, atMs: t0 - 600_000 }] };
    expect(reconcileHpa(sp, state, s, t0).replicas).toBe(want);
  });

  it('holds a scale-down for the stabilization window, then follows the load', () => {
    let state = initialHpaState(8, t0);
    const idle = (n: number) => sample(n, 500 * n * 0.2); // 10% utilization of 500m requests, target 50%
    state = reconcileHpa(spec, state, idle(8), t0 + 15_000);
    expect(state.replicas).toBe(8); // the first recommendation (8, taken at adoption) is in the window
    state = reconcileHpa(spec, state, idle(8), t0 + 299_000);
    expect(state.replicas).toBe(8);
    state = reconcileHpa(spec, state, idle(8), t0 + 301_000);
    expect(state.replicas).toBe(2); // every recommendation in the window says 2 (clamped to minReplicas)
  });

  it('the window is configurable; zero follows at once', () => {
    const state = initialHpaState(8, t0);
    expect(reconcileHpa(spec, state, sample(8, 800), t0 + 1, { downscaleStabilizationMs: 0 }).replicas).toBe(2);
  });

  it('scales up at once (no upscale stabilization without behavior)', () => {
    const state = initialHpaState(2, t0);
    expect(reconcileHpa(spec, state, sample(2, 2000), t0 + 15_000).replicas).toBe(4);
  });

  it('a custom tolerance widens the dead band', () => {
    const state = { replicas: 4, recommendations: [] };
    expect(reconcileHpa(spec, state, sample(4, 2600), t0).replicas).toBe(6);
    expect(reconcileHpa(spec, state, sample(4, 2600), t0, { tolerance: 0.5 }).replicas).toBe(4);
  });

  it('reuses a stale recommendation slot instead of growing', () => {
    let state = initialHpaState(4, t0);
    for (let i = 1; i <= 50; i++)
      state = reconcileHpa(spec, state, sample(state.replicas, 1000 * state.replicas * 0.5), t0 + i * 400_000);
    expect(state.recommendations.length).toBeLessThanOrEqual(2);
  });
});

describe('parseHpaSpec', () => {
  const base = {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
    minReplicas: 1,
    maxReplicas: 5,
  };

  it('reads a cpu Utilization target', () => {
    const metrics = [
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
    ];
    expect(parseHpaSpec({ ...base, metrics })).toEqual({
      target: { kind: 'Deployment', name: 'web' },
      spec: { minReplicas: 1, maxReplicas: 5, targetUtilization: 60 },
    });
  });

  it('defaults to minReplicas 1 and 80% cpu', () => {
    expect(parseHpaSpec({ scaleTargetRef: base.scaleTargetRef, maxReplicas: 3 }).spec).toEqual({
      minReplicas: 1,
      maxReplicas: 3,
      targetUtilization: 80,
    });
  });

  it.each([
    [{ maxReplicas: 3 }, 'spec.scaleTargetRef: kind and name are required'],
    [{ ...base, maxReplicas: 0 }, 'spec.maxReplicas: expected an integer >= 1, got 0'],
    [{ ...base, minReplicas: 4, maxReplicas: 3 }, 'spec.maxReplicas: must be >= minReplicas (4), got 3'],
    [{ ...base, minReplicas: 1.5 }, 'spec.minReplicas: expected an integer >= 0, got 1.5'],
    [{ ...base, metrics: [{ type: 'Pods', pods: {} }] }, 'spec.metrics: the simulator supports only'],
    [
      {
        ...base,
        metrics: [
          { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 0 } } },
        ],
      },
      'spec.metrics[0].resource.target.averageUtilization: expected an integer >= 1, got 0',
    ],
  ])('rejects %j', (raw, message) => {
    expect(() => parseHpaSpec(raw)).toThrow(SimulationSpecError);
    expect(() => parseHpaSpec(raw)).toThrow(message);
  });
});
