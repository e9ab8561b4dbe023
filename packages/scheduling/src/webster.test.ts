import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fnv1a32, prefersDescendingNames } from './tie-break.js';
import { websterSeats } from './webster.js';

const seats = (n: number, weights: Record<string, number>, desc = false) =>
  Object.fromEntries(
    websterSeats(
      n,
      Object.entries(weights).map(([name, weight]) => ({ name, weight })),
      desc,
    ).map((s) => [s.name, s.replicas]),
  );

describe('websterSeats', () => {
  it.each<{ n: number; w: Record<string, number>; want: Record<string, number> }>([
    { n: 9, w: { m1: 2, m2: 1, m3: 1, m4: 1 }, want: { m1: 3, m2: 2, m3: 2, m4: 2 } },
    { n: 2, w: { m1: 2, m2: 1 }, want: { m1: 1, m2: 1 } },
    { n: 12, w: { m1: 8, m2: 8, m3: 10 }, want: { m1: 4, m2: 4, m3: 4 } },
    { n: 12, w: { m2: 8, m3: 10 }, want: { m2: 5, m3: 7 } },
    { n: 12, w: { m1: 4, m2: 6, m3: 8 }, want: { m1: 3, m2: 4, m3: 5 } },
    { n: 0, w: { m1: 1, m2: 1 }, want: { m1: 0, m2: 0 } },
    { n: 5, w: { m1: 0, m2: 0 }, want: { m1: 0, m2: 0 } },
    { n: 3, w: { m1: 1, m2: 0 }, want: { m1: 3, m2: 0 } },
    { n: 7, w: { a: 1 }, want: { a: 7 } },
  ])('$n seats over $w', ({ n, w, want }) => {
    expect(seats(n, w)).toEqual(want);
  });

  it('returns nothing when there are no parties', () => {
    expect(websterSeats(5, [])).toEqual([]);
  });

  it('returns parties sorted by name, zero seats included', () => {
    expect(
      websterSeats(1, [
        { name: 'b', weight: 1 },
        { name: 'a', weight: 0 },
      ]),
    ).toEqual([
      { name: 'a', replicas: 0 },
      { name: 'b', replicas: 1 },
    ]);
  });

  it('counts initial seats when choosing and keeps them', () => {
    // b already holds 2, so its priority is 1/5 while a's is 1/1: both new seats go to a.
    expect(
      websterSeats(2, [
        { name: 'a', weight: 1 },
        { name: 'b', weight: 1, initial: 2 },
      ]),
    ).toEqual([
      { name: 'a', replicas: 2 },
      { name: 'b', replicas: 2 },
    ]);
  });

  it.each([
    { desc: false, want: { a: 1, b: 0 } },
    { desc: true, want: { a: 0, b: 1 } },
  ])('breaks equal priorities by name order (descending=$desc)', ({ desc, want }) => {
    expect(seats(1, { a: 1, b: 1 }, desc)).toEqual(want);
  });

  it('prefers fewer seats before the name rule', () => {
    // a: 3/(2·1+1)=1, b: 1/1=1 tie; b holds fewer seats, so b wins even with ascending names.
    expect(seats(2, { a: 3, b: 1 })).toEqual({ a: 1, b: 1 });
  });

  it('always hands out exactly n seats when some party has votes', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 200 }),
        fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 1, maxLength: 20 }),
        (n, ws) => {
          fc.pre(ws.some((w) => w > 0));
          const out = websterSeats(
            n,
            ws.map((w, i) => ({ name: `c${i}`, weight: w })),
          );
          expect(out.reduce((s, x) => s + x.replicas, 0)).toBe(n);
          for (const x of out) if (ws[Number(x.name.slice(1))] === 0) expect(x.replicas).toBe(0);
        },
      ),
    );
  });

  it('hands out seats exactly as the one-seat-at-a-time scan does, ties included', () => {
    // The straightforward reading of the upstream loop, kept here as the oracle.
    const naive = (n: number, ws: number[], init: number[], desc: boolean) => {
      const held = init.slice();
      const names = ws.map((_, i) => `c${String(i).padStart(2, '0')}`);
      if (ws.some((w) => w > 0)) {
        for (let s = 0; s < n; s++) {
          let best = -1;
          for (let i = 0; i < ws.length; i++) {
            if (ws[i]! <= 0) continue;
            if (best < 0) {
              best = i;
              continue;
            }
            const pi = ws[i]! / (2 * held[i]! + 1);
            const pb = ws[best]! / (2 * held[best]! + 1);
            if (
              pi > pb ||
              (pi === pb &&
                (held[i]! < held[best]! ||
                  (held[i] === held[best] && (desc ? names[i]! > names[best]! : names[i]! < names[best]!))))
            )
              best = i;
          }
          held[best]! += 1;
        }
      }
      return names.map((name, i) => ({ name, replicas: held[i]! }));
    };
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 60 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 3 })), {
          minLength: 1,
          maxLength: 15,
        }),
        fc.boolean(),
        (n, parties, desc) => {
          const ws = parties.map((p) => p[0]);
          const init = parties.map((p) => p[1]);
          const got = websterSeats(
            n,
            ws.map((w, i) => ({ name: `c${String(i).padStart(2, '0')}`, weight: w, initial: init[i]! })),
            desc,
          );
          expect(got).toEqual(naive(n, ws, init, desc));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('never gives a party more than its weight when n ≤ total weight (capacities)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 1, maxLength: 12 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (ws, f) => {
          const total = ws.reduce((a, b) => a + b, 0);
          const n = Math.floor(total * f);
          const out = websterSeats(
            n,
            ws.map((w, i) => ({ name: `c${i}`, weight: w })),
          );
          for (const x of out) expect(x.replicas).toBeLessThanOrEqual(ws[Number(x.name.slice(1))]!);
        },
      ),
    );
  });
});

describe('FNV-1a tie-break parity', () => {
  it.each([
    { uid: '4858ca61-3ff8-4095-8267-f3d059d8074c', hash: 0xf20af388, desc: false },
    { uid: 'd43fdeeb-d750-4e2b-bee3-64eb94534f4c', hash: 0x955149a3, desc: true },
  ])('$uid', ({ uid, hash, desc }) => {
    expect(fnv1a32(uid)).toBe(hash);
    expect(prefersDescendingNames(uid)).toBe(desc);
  });

  it('hashes the UTF-8 bytes of non-ASCII input', () => {
    // FNV-1a of "é" (0xc3 0xa9) differs from hashing the single code unit 0xe9.
    let h = 0x811c9dc5;
    for (const byte of [0xc3, 0xa9]) h = Math.imul(h ^ byte, 0x01000193);
    expect(fnv1a32('é')).toBe(h >>> 0);
  });

  it('treats an empty or absent UID as ascending', () => {
    expect(prefersDescendingNames('')).toBe(false);
    expect(prefersDescendingNames(undefined)).toBe(false);
  });
});
