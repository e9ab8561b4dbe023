import { describe, expect, it } from 'vitest';
import type { AnyObject } from './content.js';
import { decideFinalizer, type FinalizerInput, MIRROR_FINALIZER, withMirrorFinalizer } from './finalizer.js';

const host = (finalizers: string[], deleting = false): AnyObject => ({
  metadata: {
    name: 'web',
    finalizers,
    ...(deleting ? { deletionTimestamp: '2026-11-26T12:00:00Z' } : {}),
  },
});
const ours = [MIRROR_FINALIZER];

describe('decideFinalizer', () => {
  const cases: Array<[string, FinalizerInput, ReturnType<typeof decideFinalizer>]> = [
    ['no host object', { host: undefined, mirrored: true, inFlotilla: true }, 'none'],
    ['mirrored on both sides, no finalizer yet: put on', { host: host([]), mirrored: true, inFlotilla: true }, 'add'],
    ['mirrored, has it', { host: host(ours), mirrored: true, inFlotilla: true }, 'none'],
    [
      'not in Flotilla (admission refused it): nothing to wait for',
      { host: host(['other']), mirrored: true, inFlotilla: false },
      'none',
    ],
    [
      "being deleted, Flotilla's copy still there: kept (kubectl delete waits)",
      { host: host(ours, true), mirrored: true, inFlotilla: true },
      'none',
    ],
    [
      "being deleted, Flotilla's copy gone: taken off",
      { host: host(['other', MIRROR_FINALIZER], true), mirrored: true, inFlotilla: false },
      'remove',
    ],
    ['being deleted, not ours', { host: host(['other'], true), mirrored: true, inFlotilla: false }, 'none'],
    [
      'a template no policy selects any more: taken off',
      { host: host(ours), mirrored: false, inFlotilla: true },
      'remove',
    ],
    ['a template never selected', { host: host([]), mirrored: false, inFlotilla: false }, 'none'],
  ];
  it.each(cases)('%s', (_name, input, expected) => {
    expect(decideFinalizer(input)).toBe(expected);
  });
});

describe('withMirrorFinalizer', () => {
  it("adds once and removes only the bridge's, keeping the others in order", () => {
    expect(withMirrorFinalizer(undefined, 'add')).toEqual([MIRROR_FINALIZER]);
    expect(withMirrorFinalizer(['a', MIRROR_FINALIZER, 'b'], 'add')).toEqual(['a', 'b', MIRROR_FINALIZER]);
    expect(withMirrorFinalizer(['a', MIRROR_FINALIZER, 'b'], 'remove')).toEqual(['a', 'b']);
  });
});
