import { describe, expect, it } from 'vitest';
import { planCronExecutions, ruleClock, type RuleState } from './plan.js';
import type { CronFederatedHPARule } from '@flotilla/api';
import type { CronObjectSpec } from './types.js';

const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop' };
const fhpa = { apiVersion: 'autoscaling.karmada.io/v1alpha1', kind: 'FederatedHPA', name: 'shop-fhpa' };

function obj(rules: CronFederatedHPARule[], target = deployment): CronObjectSpec {
  return { spec: { scaleTargetRef: target, rules } };
}
const up: CronFederatedHPARule = { name: 'scale-up', schedule: '30 08 * * *', targetReplicas: 1000 };
const down: CronFederatedHPARule = { name: 'scale-down', schedule: '0 11 * * *', targetReplicas: 1 };
const at = (s: string): Date => new Date(s);
const stored = (rule: CronFederatedHPARule, nextDue: string | null): RuleState => ({
  ruleName: rule.name,
  clock: ruleClock(rule),
  nextDue,
});

describe('planCronExecutions: first sight and the examples of the CronFederatedHPA proposal', () => {
  it.each([
    ['2026-05-04T09:04:00Z', '2026-05-04T10:03:00.000Z'],
    ['2026-05-04T09:01:00Z', '2026-05-04T09:03:00.000Z'],
  ])('a new `3 * * * *` rule applied at %s is next due %s, with nothing to run', (now, due) => {
    const rule = { name: 'r', schedule: '3 * * * *', targetReplicas: 2 };
    const plan = planCronExecutions({ object: obj([rule]), state: [], now: at(now) });
    expect(plan.execute).toEqual([]);
    expect(plan.missed).toEqual([]);
    expect(plan.state).toEqual([{ ruleName: 'r', clock: ruleClock(rule), nextDue: due }]);
    expect(plan.stateChanged).toBe(true);
    expect(plan.nextWakeAt).toEqual(at(due));
  });

  it('fires on time and advances to the next occurrence (10:03 -> 11:03)', () => {
    const rule = { name: 'r', schedule: '3 * * * *', targetReplicas: 2 };
    const plan = planCronExecutions({
      object: obj([rule]),
      state: [stored(rule, '2026-05-04T10:03:00.000Z')],
      now: at('2026-05-04T10:03:00.020Z'),
    });
    expect(plan.execute).toEqual([
      { ruleName: 'r', scheduleTime: at('2026-05-04T10:03:00Z'), values: { replicas: 2 } },
    ]);
    expect(plan.state[0]?.nextDue).toBe('2026-05-04T11:03:00.000Z');
  });

  it('does nothing before the due time and reports no state change', () => {
    const state = [stored(up, '2026-05-04T08:30:00.000Z')];
    const plan = planCronExecutions({ object: obj([up]), state, now: at('2026-05-04T08:29:59.999Z') });
    expect(plan.execute).toEqual([]);
    expect(plan.stateChanged).toBe(false);
    expect(plan.state).toEqual(state);
  });

  it('keeps the stored due time after a restart instead of recomputing it from now', () => {
    // Stored before a restart on the spring-forward day: the shifted 03:30 EDT run is still due.
    const rule = { name: 'r', schedule: '30 2 * * *', timeZone: 'America/New_York', targetReplicas: 3 };
    const plan = planCronExecutions({
      object: obj([rule]),
      state: [stored(rule, '2026-03-08T07:30:00.000Z')],
      now: at('2026-03-08T07:31:00Z'),
    });
    expect(plan.execute.map((e) => e.scheduleTime)).toEqual([at('2026-03-08T07:30:00Z')]);
    expect(plan.state[0]?.nextDue).toBe('2026-03-09T06:30:00.000Z');
  });
});

describe('planCronExecutions: catch-up', () => {
  it('scale-up 08:30 and scale-down 11:00 both missed: only the scale-down applies, late', () => {
    const plan = planCronExecutions({
      object: obj([up, down]),
      state: [stored(up, '2026-05-04T08:30:00.000Z'), stored(down, '2026-05-04T11:00:00.000Z')],
      now: at('2026-05-04T11:05:00Z'),
      catchUpWindowMs: 4 * 3_600_000,
    });
    expect(plan.execute).toEqual([
      { ruleName: 'scale-down', scheduleTime: at('2026-05-04T11:00:00Z'), values: { replicas: 1 } },
    ]);
    expect(plan.missed).toEqual([
      {
        ruleName: 'scale-up',
        scheduleTime: at('2026-05-04T08:30:00Z'),
        message:
          'missed: the scheduler was not running at 2026-05-04T08:30:00Z; superseded by rule "scale-down" at 2026-05-04T11:00:00Z, which sets the same fields; not applied',
      },
    ]);
    expect(plan.state.map((s) => s.nextDue)).toEqual(['2026-05-05T08:30:00.000Z', '2026-05-05T11:00:00.000Z']);
  });

  it('with the default 15-minute window the 08:30 miss is out of the window, and the 11:00 one applies', () => {
    const plan = planCronExecutions({
      object: obj([up, down]),
      state: [stored(up, '2026-05-04T08:30:00.000Z'), stored(down, '2026-05-04T11:00:00.000Z')],
      now: at('2026-05-04T11:05:00Z'),
    });
    expect(plan.execute.map((e) => [e.ruleName, e.values])).toEqual([['scale-down', { replicas: 1 }]]);
    expect(plan.missed).toHaveLength(1);
    expect(plan.missed[0]?.message).toBe(
      'missed: the scheduler was not running at 2026-05-04T08:30:00Z and recovered at 2026-05-04T11:05:00Z, more than the catch-up window (15m) later; not applied',
    );
  });

  it('outside the window misses are recorded, not applied', () => {
    const plan = planCronExecutions({
      object: obj([up, down]),
      state: [stored(up, '2026-05-04T08:30:00.000Z'), stored(down, '2026-05-04T11:00:00.000Z')],
      now: at('2026-05-04T12:00:00Z'),
    });
    expect(plan.execute).toEqual([]);
    expect(plan.missed.map((m) => [m.ruleName, m.scheduleTime.toISOString()])).toEqual([
      ['scale-up', '2026-05-04T08:30:00.000Z'],
      ['scale-down', '2026-05-04T11:00:00.000Z'],
    ]);
    expect(plan.missed.every((m) => m.message.includes('catch-up window (15m)'))).toBe(true);
  });

  it('a rule missed several times applies only its latest occurrence and records the older ones', () => {
    const rule = { name: 'r', schedule: '*/5 * * * *', targetReplicas: 4 };
    const plan = planCronExecutions({
      object: obj([rule]),
      state: [stored(rule, '2026-05-04T10:00:00.000Z')],
      now: at('2026-05-04T10:12:00Z'),
    });
    expect(plan.execute.map((e) => e.scheduleTime.toISOString())).toEqual(['2026-05-04T10:10:00.000Z']);
    expect(plan.missed.map((m) => m.scheduleTime.toISOString())).toEqual([
      '2026-05-04T10:00:00.000Z',
      '2026-05-04T10:05:00.000Z',
    ]);
    expect(plan.missed[0]?.message).toContain('superseded by rule "r" at 2026-05-04T10:10:00Z');
    expect(plan.state[0]?.nextDue).toBe('2026-05-04T10:15:00.000Z');
  });

  it('decides per target field: an older min survives a newer max', () => {
    const setMin = { name: 'min', schedule: '0 8 * * *', targetMinReplicas: 10 };
    const setMax = { name: 'max', schedule: '5 8 * * *', targetMaxReplicas: 50 };
    const both = { name: 'both', schedule: '1 8 * * *', targetMinReplicas: 2, targetMaxReplicas: 20 };
    const plan = planCronExecutions({
      object: obj([setMin, both, setMax], fhpa),
      state: [
        stored(setMin, '2026-05-04T08:00:00.000Z'),
        stored(both, '2026-05-04T08:01:00.000Z'),
        stored(setMax, '2026-05-04T08:05:00.000Z'),
      ],
      now: at('2026-05-04T08:06:00Z'),
    });
    expect(plan.execute).toEqual([
      { ruleName: 'both', scheduleTime: at('2026-05-04T08:01:00Z'), values: { minReplicas: 2 } },
      { ruleName: 'max', scheduleTime: at('2026-05-04T08:05:00Z'), values: { maxReplicas: 50 } },
    ]);
    expect(plan.missed.map((m) => m.ruleName)).toEqual(['min']);
  });

  it('rules due at the same instant all apply, in spec order', () => {
    const a = { name: 'a', schedule: '0 9 * * *', targetReplicas: 5 };
    const b = { name: 'b', schedule: '0 9 * * *', targetReplicas: 7 };
    const plan = planCronExecutions({
      object: obj([a, b]),
      state: [stored(a, '2026-05-04T09:00:00.000Z'), stored(b, '2026-05-04T09:00:00.000Z')],
      now: at('2026-05-04T09:00:00.010Z'),
    });
    expect(plan.execute.map((e) => [e.ruleName, e.values.replicas])).toEqual([
      ['a', 5],
      ['b', 7],
    ]);
    expect(plan.missed).toEqual([]);
  });

  it('ignores fields meant for the other kind of target', () => {
    const rule = { name: 'r', schedule: '0 9 * * *', targetReplicas: 3, targetMinReplicas: 1, targetMaxReplicas: 9 };
    const plan = planCronExecutions({
      object: obj([rule]),
      state: [stored(rule, '2026-05-04T09:00:00.000Z')],
      now: at('2026-05-04T09:00:01Z'),
    });
    expect(plan.execute[0]?.values).toEqual({ replicas: 3 });
    const planF = planCronExecutions({
      object: obj([rule], fhpa),
      state: [stored(rule, '2026-05-04T09:00:00.000Z')],
      now: at('2026-05-04T09:00:01Z'),
    });
    expect(planF.execute[0]?.values).toEqual({ minReplicas: 1, maxReplicas: 9 });
  });

  it('bounds a very long outage of a per-second rule and still applies the latest occurrence', () => {
    const rule = { name: 'r', schedule: '* * * * * *', targetReplicas: 1 };
    const plan = planCronExecutions({
      object: obj([rule]),
      state: [stored(rule, '2026-05-01T00:00:00.000Z')],
      now: at('2026-05-04T00:00:00.500Z'),
    });
    expect(plan.execute.map((e) => e.scheduleTime.toISOString())).toEqual(['2026-05-04T00:00:00.000Z']);
    expect(plan.missed).toHaveLength(32);
    expect(plan.unrecorded.r).toBeGreaterThan(0);
    expect(plan.state[0]?.nextDue).toBe('2026-05-04T00:00:01.000Z');
  });
});

describe('planCronExecutions: rule changes', () => {
  it('a suspended rule has no due time and no executions, even when it was due', () => {
    const rule = { ...up, suspend: true };
    const plan = planCronExecutions({
      object: obj([rule]),
      state: [stored(up, '2026-05-04T08:30:00.000Z')],
      now: at('2026-05-04T08:31:00Z'),
    });
    expect(plan.execute).toEqual([]);
    expect(plan.missed).toEqual([]);
    expect(plan.state).toEqual([{ ruleName: 'scale-up', clock: ruleClock(rule), nextDue: null }]);
    expect(plan.nextWakeAt).toBeUndefined();
  });

  it('unsuspending restarts the clock from now without replaying the suspension', () => {
    const suspended = { ...up, suspend: true };
    const plan = planCronExecutions({
      object: obj([up]),
      state: [stored(suspended, null)],
      now: at('2026-05-04T09:00:00Z'),
    });
    expect(plan.execute).toEqual([]);
    expect(plan.state[0]?.nextDue).toBe('2026-05-05T08:30:00.000Z');
  });

  it('a schedule or zone edit restarts the clock; a target edit keeps the due time', () => {
    const state = [stored(up, '2026-05-04T08:30:00.000Z')];
    const now = at('2026-05-04T08:00:00Z');
    const edited = planCronExecutions({ object: obj([{ ...up, schedule: '*/20 * * * *' }]), state, now });
    expect(edited.state[0]?.nextDue).toBe('2026-05-04T08:20:00.000Z');
    const zoned = planCronExecutions({ object: obj([{ ...up, timeZone: 'Asia/Shanghai' }]), state, now });
    expect(zoned.state[0]?.nextDue).toBe('2026-05-05T00:30:00.000Z');
    const retargeted = planCronExecutions({ object: obj([{ ...up, targetReplicas: 5 }]), state, now });
    expect(retargeted.state[0]?.nextDue).toBe('2026-05-04T08:30:00.000Z');
    expect(retargeted.stateChanged).toBe(false);
  });

  it('a renamed rule is a new rule and the old name is removed; a deleted rule is removed', () => {
    const state = [stored(up, '2026-05-04T08:30:00.000Z'), stored(down, '2026-05-04T11:00:00.000Z')];
    const renamed = { ...up, name: 'morning' };
    const plan = planCronExecutions({ object: obj([renamed]), state, now: at('2026-05-04T08:45:00Z') });
    // the renamed rule does not inherit the 08:30 due time, so nothing runs
    expect(plan.execute).toEqual([]);
    expect(plan.missed).toEqual([]);
    expect(plan.state.map((s) => [s.ruleName, s.nextDue])).toEqual([['morning', '2026-05-05T08:30:00.000Z']]);
    expect(plan.removed).toEqual(['scale-up', 'scale-down']);
    expect(plan.stateChanged).toBe(true);
  });

  it('an empty rule list plans nothing', () => {
    const plan = planCronExecutions({ object: obj([]), state: [], now: at('2026-05-04T08:45:00Z') });
    expect(plan).toMatchObject({
      execute: [],
      missed: [],
      state: [],
      removed: [],
      stateChanged: false,
      nextWakeAt: undefined,
    });
  });

  it('rejects bad input', () => {
    expect(() => planCronExecutions({ object: obj([up]), state: [], now: new Date(Number.NaN) })).toThrow(RangeError);
    expect(() =>
      planCronExecutions({ object: obj([up]), state: [], now: at('2026-05-04T08:45:00Z'), catchUpWindowMs: -1 }),
    ).toThrow('catchUpWindowMs: must be >= 0, got -1');
    expect(() =>
      planCronExecutions({
        object: obj([{ ...up, timeZone: 'No/Where' }]),
        state: [],
        now: at('2026-05-04T08:45:00Z'),
      }),
    ).toThrow('unknown time zone "No/Where"');
  });
});

describe('planCronExecutions: excludeDates', () => {
  const holidays = { ...up, excludeDates: ['2026-12-25', '* * * * * SAT,SUN'] };

  it('skips an occurrence on an excluded date, records the entry, and moves the clock on', () => {
    const plan = planCronExecutions({
      object: obj([holidays]),
      state: [stored(holidays, '2026-12-25T08:30:00.000Z')],
      now: at('2026-12-25T08:30:00.010Z'),
    });
    expect(plan.execute).toEqual([]);
    expect(plan.missed).toEqual([]);
    expect(plan.skipped).toEqual([
      {
        ruleName: 'scale-up',
        scheduleTime: at('2026-12-25T08:30:00Z'),
        excludeDate: '2026-12-25',
        message: 'skipped: 2026-12-25 (UTC) is excluded by excludeDates entry "2026-12-25"',
      },
    ]);
    expect(plan.state[0]?.nextDue).toBe('2026-12-26T08:30:00.000Z');
    expect(plan.stateChanged).toBe(true);
  });

  it('fires on a date no entry names', () => {
    const plan = planCronExecutions({
      object: obj([holidays]),
      state: [stored(holidays, '2026-12-24T08:30:00.000Z')],
      now: at('2026-12-24T08:30:00.010Z'),
    });
    expect(plan.execute.map((e) => e.scheduleTime)).toEqual([at('2026-12-24T08:30:00Z')]);
    expect(plan.skipped).toEqual([]);
  });

  it("reads the date in the rule's zone: 08:30 in Tokyo on the 25th is the 24th in UTC", () => {
    const rule = { ...up, timeZone: 'Asia/Tokyo', excludeDates: ['2026-12-25'] };
    const plan = planCronExecutions({
      object: obj([rule]),
      state: [stored(rule, '2026-12-24T23:30:00.000Z')],
      now: at('2026-12-24T23:30:00.010Z'),
    });
    expect(plan.skipped.map((s) => s.message)).toEqual([
      'skipped: 2026-12-25 (Asia/Tokyo) is excluded by excludeDates entry "2026-12-25"',
    ]);
  });

  it('a skipped occurrence supersedes nothing: an older due occurrence of another rule still applies', () => {
    const early = { name: 'early', schedule: '0 8 * * *', targetReplicas: 7 };
    const plan = planCronExecutions({
      object: obj([early, holidays]),
      state: [stored(early, '2026-12-25T08:00:00.000Z'), stored(holidays, '2026-12-25T08:30:00.000Z')],
      now: at('2026-12-25T08:31:00Z'),
      catchUpWindowMs: 3_600_000,
    });
    expect(plan.execute).toEqual([
      { ruleName: 'early', scheduleTime: at('2026-12-25T08:00:00Z'), values: { replicas: 7 } },
    ]);
    expect(plan.skipped.map((s) => s.ruleName)).toEqual(['scale-up']);
    expect(plan.missed).toEqual([]);
  });

  it('after an outage over a range crossing the year, each excluded occurrence is a skip, not a miss', () => {
    const rule = { ...up, excludeDates: ['2026-12-31/2027-01-01'] };
    const plan = planCronExecutions({
      object: obj([rule]),
      state: [stored(rule, '2026-12-30T08:30:00.000Z')],
      now: at('2027-01-02T08:30:00.010Z'),
    });
    expect(plan.skipped.map((s) => s.scheduleTime.toISOString())).toEqual([
      '2026-12-31T08:30:00.000Z',
      '2027-01-01T08:30:00.000Z',
    ]);
    expect(plan.missed.map((m) => m.scheduleTime.toISOString())).toEqual(['2026-12-30T08:30:00.000Z']);
    expect(plan.execute.map((e) => e.scheduleTime.toISOString())).toEqual(['2027-01-02T08:30:00.000Z']);
  });

  it('editing excludeDates keeps the due time (it is not part of the clock)', () => {
    expect(ruleClock(holidays)).toBe(ruleClock(up));
  });
});
