import { describe, expect, it } from 'vitest';
import type { StoredObject } from '@flotilla/store';
import { applyExecutions } from './apply-executions.js';
import { EXECUTIONS_ANNOTATION, readMarkers } from './execution-markers.js';

const deployRef = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
const fhpaRef = { apiVersion: 'autoscaling.karmada.io/v1alpha1', kind: 'FederatedHPA', name: 'web' };
const T1 = new Date('2026-03-08T09:00:00Z');
const T2 = new Date('2026-03-08T10:00:00Z');

const deployment = (replicas: number, annotations?: Record<string, string>): StoredObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default', ...(annotations && { annotations }) },
  spec: { replicas, selector: { matchLabels: { app: 'web' } } },
});
const fhpa = (minReplicas: number, maxReplicas: number): StoredObject => ({
  apiVersion: 'autoscaling.karmada.io/v1alpha1',
  kind: 'FederatedHPA',
  metadata: { name: 'web', namespace: 'default' },
  spec: { minReplicas, maxReplicas, scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' } },
});
const base = { namespace: 'default', cronUid: 'u1', ruleNames: ['up', 'down'] };

describe('applyExecutions', () => {
  it('sets spec.replicas, keeps the rest of the spec, and records the execution in the markers', () => {
    const r = applyExecutions({
      ...base,
      ref: deployRef,
      target: deployment(2),
      executions: [{ ruleName: 'up', scheduleTime: T1, values: { replicas: 5 } }],
    });
    expect(r.target?.spec).toEqual({ replicas: 5, selector: { matchLabels: { app: 'web' } } });
    expect(readMarkers(r.target)).toEqual({ u1: { up: T1.toISOString() } });
    expect(r.outcomes).toEqual([
      {
        execution: expect.objectContaining({ ruleName: 'up' }),
        repeated: false,
        effect: { ok: true, patch: { replicas: 5 }, applied: { appliedReplicas: 5 }, changed: true },
      },
    ]);
  });

  it('a repeated execution is reported applied without writing the target again', () => {
    const once = applyExecutions({
      ...base,
      ref: deployRef,
      target: deployment(2),
      executions: [{ ruleName: 'up', scheduleTime: T1, values: { replicas: 5 } }],
    });
    // Something else scaled it in between; repeating the execution must not undo that.
    const changed = { ...once.target!, spec: { ...(once.target!.spec as object), replicas: 7 } };
    const again = applyExecutions({
      ...base,
      ref: deployRef,
      target: changed,
      executions: [{ ruleName: 'up', scheduleTime: T1, values: { replicas: 5 } }],
    });
    expect(again.target).toBeUndefined();
    expect(again.outcomes[0]).toMatchObject({ repeated: true, effect: { ok: true, applied: { appliedReplicas: 5 } } });
  });

  it('a later schedule time of the same rule is applied; the markers keep the latest', () => {
    const once = applyExecutions({
      ...base,
      ref: deployRef,
      target: deployment(2),
      executions: [{ ruleName: 'up', scheduleTime: T1, values: { replicas: 5 } }],
    });
    const next = applyExecutions({
      ...base,
      ref: deployRef,
      target: once.target,
      executions: [{ ruleName: 'up', scheduleTime: T2, values: { replicas: 6 } }],
    });
    expect((next.target?.spec as { replicas: number }).replicas).toBe(6);
    expect(readMarkers(next.target).u1).toEqual({ up: T2.toISOString() });
  });

  it('ties apply in order, the last one ending on the target', () => {
    const r = applyExecutions({
      ...base,
      ref: deployRef,
      target: deployment(2),
      executions: [
        { ruleName: 'up', scheduleTime: T1, values: { replicas: 5 } },
        { ruleName: 'down', scheduleTime: T1, values: { replicas: 1 } },
      ],
    });
    expect((r.target?.spec as { replicas: number }).replicas).toBe(1);
    expect(readMarkers(r.target).u1).toEqual({ up: T1.toISOString(), down: T1.toISOString() });
  });

  it('a missing target fails every execution and writes nothing', () => {
    const r = applyExecutions({
      ...base,
      ref: deployRef,
      target: undefined,
      executions: [{ ruleName: 'up', scheduleTime: T1, values: { replicas: 5 } }],
    });
    expect(r.target).toBeUndefined();
    expect(r.outcomes[0]?.effect).toMatchObject({
      ok: false,
      reason: 'TargetNotFound',
      message: 'Deployment default/web not found',
    });
  });

  it('FederatedHPA: sets only the given bound, and refuses a min above the current max', () => {
    const ok = applyExecutions({
      ...base,
      ref: fhpaRef,
      target: fhpa(1, 10),
      executions: [{ ruleName: 'up', scheduleTime: T1, values: { minReplicas: 4 } }],
    });
    expect(ok.target?.spec).toMatchObject({ minReplicas: 4, maxReplicas: 10 });
    expect(ok.outcomes[0]?.effect).toMatchObject({ ok: true, applied: { appliedMinReplicas: 4 } });
    const bad = applyExecutions({
      ...base,
      ref: fhpaRef,
      target: fhpa(1, 10),
      executions: [{ ruleName: 'up', scheduleTime: T1, values: { minReplicas: 12 } }],
    });
    expect(bad.target).toBeUndefined();
    expect(bad.outcomes[0]?.effect).toMatchObject({ ok: false, reason: 'MinAboveMax' });
  });

  it('a failure next to a success writes only the success', () => {
    const r = applyExecutions({
      ...base,
      ref: fhpaRef,
      target: fhpa(1, 10),
      executions: [
        { ruleName: 'up', scheduleTime: T1, values: { maxReplicas: 20 } },
        { ruleName: 'down', scheduleTime: T1, values: { minReplicas: 30 } },
      ],
    });
    expect(r.target?.spec).toMatchObject({ minReplicas: 1, maxReplicas: 20 });
    expect(readMarkers(r.target).u1).toEqual({ up: T1.toISOString() });
    expect(r.outcomes.map((o) => o.effect.ok)).toEqual([true, false]);
  });

  it('keeps other objects markers and drops those of rules no longer in the spec', () => {
    const annotations = {
      other: 'x',
      [EXECUTIONS_ANNOTATION]: JSON.stringify({ u2: { a: T1.toISOString() }, u1: { gone: T1.toISOString() } }),
    };
    const r = applyExecutions({
      ...base,
      ref: deployRef,
      target: deployment(2, annotations),
      executions: [{ ruleName: 'up', scheduleTime: T2, values: { replicas: 3 } }],
    });
    expect(r.target?.metadata.annotations?.other).toBe('x');
    expect(readMarkers(r.target)).toEqual({ u2: { a: T1.toISOString() }, u1: { up: T2.toISOString() } });
  });
});

describe('readMarkers', () => {
  it.each([
    ['absent', undefined, {}],
    ['not JSON', '{', {}],
    ['an array', '[1]', {}],
    [
      'bad times dropped',
      JSON.stringify({ u: { a: 'nope', b: '2026-01-01T00:00:00.000Z' } }),
      { u: { b: '2026-01-01T00:00:00.000Z' } },
    ],
  ])('%s', (_name, raw, expected) => {
    const target = deployment(1, raw === undefined ? undefined : { [EXECUTIONS_ANNOTATION]: raw });
    expect(readMarkers(target)).toEqual(expected);
  });
});
