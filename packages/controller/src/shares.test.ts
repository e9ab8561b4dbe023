import { describe, expect, it } from 'vitest';
import { fnv1a32, membershipChange, ownerOf, ownsKey } from './shares.js';

const keys = Array.from({ length: 10_000 }, (_, i) => `ResourceBinding.team-${i % 17}.app-${i}-deployment`);

function shares(members: string[]): Map<string, number> {
  const counts = new Map<string, number>(members.map((m) => [m, 0]));
  for (const k of keys) {
    const owner = ownerOf(k, members) as string;
    counts.set(owner, (counts.get(owner) ?? 0) + 1);
  }
  return counts;
}

describe('fnv1a32', () => {
  it.each(['', 'a', 'b', 'ResourceBinding.default.web-deployment'])(
    'is a stable 32-bit unsigned hash of %j',
    (text) => {
      const h = fnv1a32(text);
      expect(Number.isInteger(h) && h >= 0 && h < 2 ** 32).toBe(true);
      expect(fnv1a32(text)).toBe(h);
    },
  );

  it('spreads keys that differ in their last character', () => {
    const hashes = new Set(Array.from({ length: 1000 }, (_, i) => fnv1a32(`key-${i}`) >>> 22)); // top 10 bits
    expect(hashes.size).toBeGreaterThan(550);
  });
});

describe('ownerOf', () => {
  it.each([
    { members: [], owner: undefined },
    { members: ['only'], owner: 'only' },
  ])('$members → $owner', ({ members, owner }) => {
    expect(ownerOf('ResourceBinding.default.web-deployment', members)).toBe(owner);
  });

  it('does not depend on the order of the member list', () => {
    for (const k of keys.slice(0, 500)) expect(ownerOf(k, ['a', 'b', 'c'])).toBe(ownerOf(k, ['c', 'a', 'b']));
  });

  it.each([2, 3, 5])('splits 10,000 keys evenly over %i members (each within 10%% of its share)', (n) => {
    const members = Array.from({ length: n }, (_, i) => `scheduler-${i}-5f3a`);
    for (const count of shares(members).values()) {
      expect(count).toBeGreaterThan((keys.length / n) * 0.9);
      expect(count).toBeLessThan((keys.length / n) * 1.1);
    }
  });

  it('moves only the keys of a member that leaves, and only to a member that joins', () => {
    const before = ['a', 'b', 'c'];
    for (const k of keys) {
      const was = ownerOf(k, before);
      const afterLeave = ownerOf(k, ['a', 'c']);
      if (was !== 'b') expect(afterLeave).toBe(was);
      const afterJoin = ownerOf(k, [...before, 'd']);
      if (afterJoin !== 'd') expect(afterJoin).toBe(was);
    }
  });
});

describe('ownsKey', () => {
  it.each([
    { self: 'a', members: [], owns: true }, // alone (the list does not show it yet): everything
    { self: 'a', members: ['a'], owns: true },
  ])('$self among $members owns every key', ({ self, members, owns }) => {
    for (const k of keys.slice(0, 100)) expect(ownsKey(k, self, members)).toBe(owns);
  });

  it('gives every key to exactly one of the members', () => {
    const members = ['a', 'b', 'c'];
    for (const k of keys) expect(members.filter((m) => ownsKey(k, m, members))).toHaveLength(1);
  });
});

describe('membershipChange', () => {
  it.each([
    { before: [], after: ['a'], joined: ['a'], left: [] },
    { before: ['a', 'b'], after: ['b', 'a'], joined: [], left: [] },
    { before: ['a', 'b'], after: ['a', 'c'], joined: ['c'], left: ['b'] },
    { before: ['a', 'b', 'c'], after: [], joined: [], left: ['a', 'b', 'c'] },
  ])('$before → $after', ({ before, after, joined, left }) => {
    expect(membershipChange(before, after)).toEqual({ joined, left });
  });
});
