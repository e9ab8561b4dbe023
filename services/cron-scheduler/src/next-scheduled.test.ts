import { describe, expect, it } from 'vitest';
import type { RuleState } from '@flotilla/cron';
import { needsNextScheduled } from './next-scheduled.js';

const s = (ruleName: string, nextDue: string | null, clock = 'c'): RuleState => ({ ruleName, clock, nextDue });
const exec = (ruleName: string) => ({ ruleName, scheduleTime: new Date(0), values: {} });

describe('needsNextScheduled', () => {
  it.each([
    ['nothing changed', [s('a', '1')], { state: [s('a', '1')] }, false],
    ['first plan of an object', [], { state: [s('a', '1')] }, true],
    ['a rule removed', [s('a', '1'), s('b', '1')], { state: [s('a', '1')], removed: ['b'] }, true],
    ['a rule renamed', [s('a', '1')], { state: [s('b', '1')], removed: ['a'] }, true],
    ['a schedule edited', [s('a', '1')], { state: [s('a', '2', 'd')] }, true],
    ['suspended', [s('a', '1')], { state: [s('a', null, 'd')] }, true],
    ['advanced by its own execution', [s('a', '1')], { state: [s('a', '2')], execute: [exec('a')] }, false],
    [
      'advanced by its own miss',
      [s('a', '1')],
      { state: [s('a', '2')], missed: [{ ...exec('a'), message: 'm' }] },
      false,
    ],
    [
      'advanced with no event of its own',
      [s('a', '1'), s('b', '1')],
      { state: [s('a', '2'), s('b', '2')], execute: [exec('a')] },
      true,
    ],
  ] as const)('%s', (_name, prev, plan, expected) => {
    expect(needsNextScheduled(prev, { removed: [], execute: [], missed: [], ...plan } as never)).toBe(expected);
  });
});
