import { describe, expect, it } from 'vitest';
import type { Cluster, Taint } from '@flotilla/scheduling';
import { decideTaints, NOT_READY_TAINT, UNREACHABLE_TAINT } from './decide.js';

const now = new Date('2026-01-01T00:10:00Z');
const cluster = (status: string | undefined, since = '2026-01-01T00:00:00Z', taints: Taint[] = []): Cluster => ({
  metadata: { name: 'm1' },
  spec: { taints },
  ...(status ? { status: { conditions: [{ type: 'Ready', status, lastTransitionTime: since }] } } : {}),
});

describe('decideTaints', () => {
  it.each([
    ['ready cluster, nothing to do', cluster('True'), 60_000, {}],
    ['no status yet, nothing to do', cluster(undefined), 60_000, {}],
    [
      'not ready within the grace period: look again when it ends',
      cluster('False', '2026-01-01T00:09:30Z'),
      60_000,
      { recheckAfterMs: 30_000 },
    ],
    [
      'not ready past the grace period: NoExecute not-ready',
      cluster('False'),
      60_000,
      { taints: [{ key: NOT_READY_TAINT, effect: 'NoExecute', timeAdded: '2026-01-01T00:10:00Z' }] },
    ],
    [
      'unknown past the grace period: NoExecute unreachable',
      cluster('Unknown'),
      60_000,
      { taints: [{ key: UNREACHABLE_TAINT, effect: 'NoExecute', timeAdded: '2026-01-01T00:10:00Z' }] },
    ],
    [
      'already tainted: unchanged',
      cluster('False', undefined, [{ key: NOT_READY_TAINT, effect: 'NoExecute', timeAdded: 'x' }]),
      60_000,
      {},
    ],
    [
      "recovered: our taints go, the user's stay",
      cluster('True', undefined, [
        { key: NOT_READY_TAINT, effect: 'NoExecute' },
        { key: 'dedicated', value: 'ml', effect: 'NoSchedule' },
      ]),
      60_000,
      { taints: [{ key: 'dedicated', value: 'ml', effect: 'NoSchedule' }] },
    ],
  ])('%s', (_name, c, grace, want) => {
    expect(decideTaints(c, now, grace)).toEqual(want);
  });
});
