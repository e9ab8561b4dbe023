import { describe, expect, it } from 'vitest';
import { planFailBacks, type FailBackCandidate, type FailBackPlanInput } from './fail-back-budget.js';

const t0 = Date.parse('2026-01-01T00:00:00Z');
const at = (s: number) => new Date(t0 + s * 1000).toISOString();
const c = (key: string, holdingSince: number, readyAt: number, policy = 'pp/a'): FailBackCandidate => ({
  key,
  policy,
  holdingSince: at(holdingSince),
  readyAt: at(readyAt),
});
const plan = (over: Partial<FailBackPlanInput>) =>
  planFailBacks({
    candidates: [],
    recentTriggers: [],
    budget: { max: 2, periodMs: 60_000 },
    now: new Date(t0),
    ...over,
  }).map((p) => [
    p.key,
    p.moveAt === undefined ? '-' : (Date.parse(p.moveAt) - t0) / 1000,
    p.turn ?? '-',
    p.waitingFor,
  ]);

describe('planFailBacks: at most max fail-backs in any period, oldest hold first', () => {
  it.each<[string, Partial<FailBackPlanInput>, unknown[]]>([
    ['nothing waits', {}, []],
    [
      'a region recovers: five ready at once, two a minute, the oldest hold first',
      {
        candidates: [c('e', -50, 0), c('b', -80, 0), c('d', -60, 0), c('a', -90, 0), c('c', -70, 0)],
      },
      [
        ['a', 0, 1, 'None'],
        ['b', 0, 2, 'None'],
        ['c', 60, 3, 'Budget'],
        ['d', 60, 4, 'Budget'],
        ['e', 120, 5, 'Budget'],
      ],
    ],
    [
      'recent fail-backs hold their slots for a period; an older one is forgotten',
      { candidates: [c('a', -90, 0), c('b', -80, 0)], recentTriggers: [at(-30), at(-10), at(-70)] },
      [
        ['a', 30, 1, 'Budget'],
        ['b', 50, 2, 'Budget'],
      ],
    ],
    [
      'an older hold still in its window does not hold back a younger one that is ready',
      { candidates: [c('old', -100, 40), c('young', -20, 0)] },
      [
        ['young', 0, 1, 'None'],
        ['old', 40, 2, 'StabilizationWindow'],
      ],
    ],
    [
      'same hold start: by key, so every replica and the CLI plan alike',
      { candidates: [c('y', -10, 0), c('x', -10, 0)], budget: { max: 1, periodMs: 60_000 } },
      [
        ['x', 0, 1, 'None'],
        ['y', 60, 2, 'Budget'],
      ],
    ],
    [
      "a policy's maxConcurrent: one under way leaves room for one more of its own; other policies go on",
      {
        candidates: [c('a1', -90, 0), c('a2', -80, 0), c('b1', -70, 0, 'pp/b')],
        inFlight: new Map([['pp/a', 1]]),
        maxConcurrent: new Map([['pp/a', 2]]),
        budget: { max: 5, periodMs: 60_000 },
      },
      [
        ['a1', 0, 1, 'None'],
        ['b1', 0, 2, 'None'],
        ['a2', '-', '-', 'MaxConcurrent'],
      ],
    ],
  ])('%s', (_t, over, expected) => expect(plan(over)).toEqual(expected));
});
