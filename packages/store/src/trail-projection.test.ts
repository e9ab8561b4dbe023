import type { DeliveredEvent } from '@flotilla/bus';
import { describe, expect, it } from 'vitest';
import { readThrough, TRAIL_READ_ATTEMPTS, TrailReadIncompleteError } from './trail-projection.js';

const at = (seq: number) => ({ seq }) as DeliveredEvent;

/**
 * A stored stream of `stored` sequences whose reads end early as a stalled fetch makes them: the n-th read gives at
 * most `lengths[n]` events (all the rest when there is no n-th length).
 */
function storedStream(stored: number[], lengths: number[]) {
  const reads: number[] = [];
  const read = async function* (fromSeq: number) {
    const n = reads.push(fromSeq) - 1;
    const rest = stored.filter((s) => s >= fromSeq);
    yield* rest.slice(0, lengths[n] ?? rest.length).map(at);
  };
  return { read, reads };
}

async function all(it: AsyncIterable<DeliveredEvent>): Promise<number[]> {
  const out: number[] = [];
  for await (const d of it) out.push(d.seq);
  return out;
}

describe('readThrough: a read that ends short of a stored sequence reads on', () => {
  it('reads once when the first read reaches the target', async () => {
    const s = storedStream([3, 4, 7, 9], []);
    expect(await all(readThrough(s.read, 3, 9, 'x'))).toEqual([3, 4, 7, 9]);
    expect(s.reads).toEqual([3]);
  });

  it('goes on from where a read stopped short (a stalled fetch), each event once and in order', async () => {
    const s = storedStream([3, 4, 7, 9, 12], [2, 0, 1]);
    expect(await all(readThrough(s.read, 3, 12, 'x'))).toEqual([3, 4, 7, 9, 12]);
    expect(s.reads).toEqual([3, 5, 5, 8]);
  });

  it('ends at once when the sequences up to the target were dropped as the oldest', async () => {
    const s = storedStream([20, 21], []);
    expect(await all(readThrough(s.read, 3, 12, 'x'))).toEqual([20, 21]);
  });

  it(`gives up with a typed error after ${TRAIL_READ_ATTEMPTS} reads in a row bring nothing new`, async () => {
    const s = storedStream([3, 4, 9], [2, 0, 0, 0]);
    const err = await all(readThrough(s.read, 3, 9, 'the events stream')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TrailReadIncompleteError);
    expect(err).toMatchObject({ subject: 'the events stream', reached: 4, target: 9 });
    expect(s.reads).toEqual([3, 5, 5, 5]);
  });
});
