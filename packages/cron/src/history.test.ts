import { describe, expect, it } from 'vitest';
import type { CronRuleExecutedData, CronRuleFailedData } from './events.js';
import { evolveHistory } from './history.js';
import type { CronFederatedHPAStatus } from '@flotilla/api';

const ok = (n: number, limit = 3, extra: Partial<CronRuleExecutedData> = {}): CronRuleExecutedData => ({
  ruleName: 'r',
  scheduleTime: `2026-05-04T0${n}:00:00Z`,
  executionTime: `2026-05-04T0${n}:00:00.042Z`,
  appliedReplicas: n,
  nextExecutionTime: `2026-05-04T0${n + 1}:00:00.000Z`,
  successfulHistoryLimit: limit,
  ...extra,
});
const bad = (n: number, limit = 3): CronRuleFailedData => ({
  ruleName: 'r',
  scheduleTime: `2026-05-04T0${n}:00:00Z`,
  executionTime: `2026-05-04T0${n}:00:01.500Z`,
  message: `failure ${n}`,
  missed: false,
  nextExecutionTime: `2026-05-04T0${n + 1}:00:00.000Z`,
  failedHistoryLimit: limit,
});

function fold(events: Parameters<typeof evolveHistory>[1][], start?: CronFederatedHPAStatus): CronFederatedHPAStatus {
  return events.reduce<CronFederatedHPAStatus>((s, e) => evolveHistory(s, e), start ?? {});
}

describe('evolveHistory', () => {
  it('records successes newest first, cut to the limit, with whole-second times and the next time', () => {
    const s = fold([1, 2, 3, 4].map((n) => ({ type: 'CronRuleExecuted' as const, data: ok(n) })));
    expect(s.executionHistories).toEqual([
      {
        ruleName: 'r',
        nextExecutionTime: '2026-05-04T05:00:00Z',
        successfulExecutions: [
          { scheduleTime: '2026-05-04T04:00:00Z', executionTime: '2026-05-04T04:00:00Z', appliedReplicas: 4 },
          { scheduleTime: '2026-05-04T03:00:00Z', executionTime: '2026-05-04T03:00:00Z', appliedReplicas: 3 },
          { scheduleTime: '2026-05-04T02:00:00Z', executionTime: '2026-05-04T02:00:00Z', appliedReplicas: 2 },
        ],
      },
    ]);
  });

  it('records only the applied fields', () => {
    const s = fold([
      { type: 'CronRuleExecuted', data: ok(1, 3, { appliedReplicas: undefined, appliedMinReplicas: 7 }) },
    ]);
    expect(s.executionHistories?.[0]?.successfulExecutions).toEqual([
      { scheduleTime: '2026-05-04T01:00:00Z', executionTime: '2026-05-04T01:00:00Z', appliedMinReplicas: 7 },
    ]);
  });

  it('keeps failures apart from successes and cuts them to their own limit', () => {
    const s = fold([
      { type: 'CronRuleExecuted', data: ok(1) },
      { type: 'CronRuleFailed', data: bad(2, 2) },
      { type: 'CronRuleFailed', data: bad(3, 2) },
      { type: 'CronRuleFailed', data: bad(4, 2) },
    ]);
    const h = s.executionHistories?.[0];
    expect(h?.successfulExecutions).toHaveLength(1);
    expect(h?.failedExecutions).toEqual([
      { scheduleTime: '2026-05-04T04:00:00Z', executionTime: '2026-05-04T04:00:01Z', message: 'failure 4' },
      { scheduleTime: '2026-05-04T03:00:00Z', executionTime: '2026-05-04T03:00:01Z', message: 'failure 3' },
    ]);
    expect(h?.nextExecutionTime).toBe('2026-05-04T05:00:00Z');
  });

  it('records each schedule time once: a repeat is dropped, a missed time already applied stays applied, a success replaces a failure', () => {
    const missed2 = { ...bad(2), message: 'missed', missed: true };
    const s = fold([
      { type: 'CronRuleExecuted', data: ok(1) },
      { type: 'CronRuleExecuted', data: { ...ok(1), executionTime: '2026-05-04T01:12:00Z' } },
      { type: 'CronRuleExecuted', data: ok(2) },
      { type: 'CronRuleFailed', data: missed2 },
      { type: 'CronRuleFailed', data: bad(3) },
      { type: 'CronRuleFailed', data: bad(3) },
    ]);
    const h = s.executionHistories?.[0];
    expect(h?.successfulExecutions?.map((e) => [e.scheduleTime, e.executionTime])).toEqual([
      ['2026-05-04T02:00:00Z', '2026-05-04T02:00:00Z'],
      ['2026-05-04T01:00:00Z', '2026-05-04T01:00:00Z'],
    ]);
    expect(h?.failedExecutions?.map((e) => e.scheduleTime)).toEqual(['2026-05-04T03:00:00Z']);
    expect(h?.nextExecutionTime).toBe('2026-05-04T04:00:00Z');

    // A stale repeat does not move the next time back, and a repeat of a time already cut by the limit stays out.
    const late = fold(
      [{ type: 'CronRuleExecuted', data: ok(1) }],
      fold([3, 4, 5].map((n) => ({ type: 'CronRuleExecuted' as const, data: ok(n, 2) }))),
    ).executionHistories?.[0];
    expect(late?.successfulExecutions?.map((e) => e.scheduleTime)).toEqual([
      '2026-05-04T05:00:00Z',
      '2026-05-04T04:00:00Z',
    ]);
    expect(late?.nextExecutionTime).toBe('2026-05-04T06:00:00Z');

    const healed = fold([{ type: 'CronRuleExecuted', data: ok(3) }], s).executionHistories?.[0];
    expect(healed?.failedExecutions).toBeUndefined();
    expect(healed?.successfulExecutions?.[0]?.scheduleTime).toBe('2026-05-04T03:00:00Z');
  });

  it('keeps no failures with failedHistoryLimit 0 and does not crash', () => {
    const s = fold([
      {
        type: 'CronNextScheduled',
        data: { rules: [{ ruleName: 'r', nextExecutionTime: '2026-05-04T02:00:00.000Z' }] },
      },
      { type: 'CronRuleFailed', data: bad(2, 0) },
      { type: 'CronRuleFailed', data: bad(3, 0) },
    ]);
    expect(s.executionHistories).toEqual([{ ruleName: 'r', nextExecutionTime: '2026-05-04T04:00:00Z' }]);
  });

  it('lowering a limit trims older records at the next record', () => {
    const s = fold(
      [1, 2, 3]
        .map((n) => ({ type: 'CronRuleExecuted' as const, data: ok(n) }))
        .concat([{ type: 'CronRuleExecuted', data: ok(4, 1) }]),
    );
    expect(s.executionHistories?.[0]?.successfulExecutions?.map((e) => e.appliedReplicas)).toEqual([4]);
  });

  it('CronNextScheduled sets next times, clears them when suspended, drops removed rules and appends new ones', () => {
    const start = fold([
      { type: 'CronRuleExecuted', data: { ...ok(1), ruleName: 'b' } },
      { type: 'CronRuleExecuted', data: { ...ok(1), ruleName: 'a' } },
      { type: 'CronRuleExecuted', data: { ...ok(1), ruleName: 'gone' } },
    ]);
    const s = evolveHistory(start, {
      type: 'CronNextScheduled',
      data: {
        rules: [
          { ruleName: 'c', nextExecutionTime: '2026-05-04T09:00:00.000Z' },
          { ruleName: 'a', nextExecutionTime: null },
          { ruleName: 'b', nextExecutionTime: '2026-05-04T08:00:00.000Z' },
        ],
      },
    });
    expect(s.executionHistories?.map((h) => [h.ruleName, h.nextExecutionTime, h.successfulExecutions?.length])).toEqual(
      [
        ['b', '2026-05-04T08:00:00Z', 1],
        ['a', undefined, 1],
        ['c', '2026-05-04T09:00:00Z', undefined],
      ],
    );
    expect('nextExecutionTime' in (s.executionHistories?.[1] ?? {})).toBe(false);
  });

  it("a rename discards the old name's history", () => {
    const start = fold([{ type: 'CronRuleExecuted', data: ok(1) }]);
    const s = evolveHistory(start, {
      type: 'CronNextScheduled',
      data: { rules: [{ ruleName: 'renamed', nextExecutionTime: '2026-05-04T09:00:00Z' }] },
    });
    expect(s.executionHistories).toEqual([{ ruleName: 'renamed', nextExecutionTime: '2026-05-04T09:00:00Z' }]);
  });

  it('an object with no rules left has no histories', () => {
    const s = evolveHistory(fold([{ type: 'CronRuleExecuted', data: ok(1) }]), {
      type: 'CronNextScheduled',
      data: { rules: [] },
    });
    expect(s).toEqual({});
  });

  it('does not mutate its input and is deterministic on replay', () => {
    const start = fold([{ type: 'CronRuleExecuted', data: ok(1) }]);
    const copy = structuredClone(start);
    const e = { type: 'CronRuleFailed' as const, data: bad(2) };
    expect(evolveHistory(start, e)).toEqual(evolveHistory(copy, e));
    expect(start).toEqual(copy);
  });
});

describe('evolveHistory: skipped executions (excludeDates)', () => {
  const skip = (n: number, limit = 3) => ({
    type: 'CronRuleSkipped' as const,
    data: {
      ruleName: 'r',
      scheduleTime: `2026-05-04T0${n}:00:00Z`,
      executionTime: `2026-05-04T0${n}:00:00.020Z`,
      reason: 'ExcludedDate' as const,
      excludeDate: '2026-05-04',
      message: 'skipped: 2026-05-04 (UTC) is excluded by excludeDates entry "2026-05-04"',
      nextExecutionTime: `2026-05-04T0${n + 1}:00:00.000Z`,
      skippedHistoryLimit: limit,
    },
  });

  it('records skips newest first with their reason, cut to the limit, once per schedule time', () => {
    const s = fold([skip(1), skip(2), skip(2), skip(3, 2)]);
    expect(s.executionHistories).toEqual([
      {
        ruleName: 'r',
        nextExecutionTime: '2026-05-04T04:00:00Z',
        skippedExecutions: [
          {
            scheduleTime: '2026-05-04T03:00:00Z',
            executionTime: '2026-05-04T03:00:00Z',
            reason: 'ExcludedDate',
            message: 'skipped: 2026-05-04 (UTC) is excluded by excludeDates entry "2026-05-04"',
          },
          {
            scheduleTime: '2026-05-04T02:00:00Z',
            executionTime: '2026-05-04T02:00:00Z',
            reason: 'ExcludedDate',
            message: 'skipped: 2026-05-04 (UTC) is excluded by excludeDates entry "2026-05-04"',
          },
        ],
      },
    ]);
  });

  it('keeps successes and skips side by side', () => {
    const s = fold([{ type: 'CronRuleExecuted', data: ok(1) }, skip(2)]);
    expect(s.executionHistories?.[0]?.successfulExecutions).toHaveLength(1);
    expect(s.executionHistories?.[0]?.skippedExecutions).toHaveLength(1);
  });
});
