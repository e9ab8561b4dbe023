import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliverPolicy, type Consumer, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import { testBus } from './testing/index.js';
import type { Bus } from './connect.js';
import { cloudEvent } from './cloud-event.js';
import { ReadIncompleteError } from './errors.js';
import { newestSeqOn, publishEvent, readUpTo } from './events.js';
import { eventFilter } from './subjects.js';

// A fetch can come back empty although the server sent it messages: its expiry fired first (an event loop stalled
// past it, a busy server), and what was sent to it is gone. These tests make exactly that happen, on real JetStream,
// by draining a real fetch and handing the reader nothing.
let bus: Bus & { dispose(): Promise<void> };
let stream: string;
let filter: string;
let seqs: number[];
beforeAll(async () => {
  bus = await testBus('read-up-to');
  stream = bus.names.eventsStream;
  filter = eventFilter(bus.names.eventsRoot, { kind: 'Deployment', namespace: 'default', name: 'web' });
  seqs = [];
  for (let i = 0; i < 30; i++) {
    // every third event is another workload's: the read's filter skips it
    const name = i % 3 === 2 ? 'other' : 'web';
    const e = cloudEvent({
      source: 'test',
      type: 'Seen',
      kind: 'Deployment',
      namespace: 'default',
      name,
      time: new Date(),
      data: { i },
    });
    const seq = (await publishEvent(bus, e)).seq;
    if (name === 'web') seqs.push(seq);
  }
});
afterAll(async () => {
  await bus?.dispose();
});

/**
 * Opens ordered consumers on the filter. `seen(n)` is how many messages the reader gets of fetch `n` (1-based, across
 * consumers): the rest of what the server sent to that fetch is lost; undefined gets them all.
 */
function opener(seen: (fetch: number) => number | undefined, o: { pendingShortAt?: number } = {}) {
  const calls = { opens: 0, fetches: 0, delivered: 0 };
  const open = async (fromSeq?: number): Promise<Consumer> => {
    calls.opens++;
    const real = await bus.js.consumers.get(stream, {
      filter_subjects: filter,
      ...(fromSeq ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: fromSeq } : {}),
    });
    const fetch = async (opts: Parameters<Consumer['fetch']>[0]): Promise<ConsumerMessages> => {
      const batch = await real.fetch(opts);
      const keep = seen(++calls.fetches);
      if (o.pendingShortAt !== undefined)
        // The server's count of what is left, short: the message says nothing is pending after it.
        return (async function* () {
          for await (const m of batch) {
            const short = ++calls.delivered === o.pendingShortAt;
            yield short
              ? (Object.defineProperty(Object.create(m), 'info', { value: { ...m.info, pending: 0 } }) as JsMsg)
              : m;
          }
        })() as unknown as ConsumerMessages;
      if (keep === undefined) return batch;
      const kept: JsMsg[] = [];
      for await (const m of batch) {
        if (kept.length === keep) break;
        kept.push(m);
      }
      return (async function* () {
        yield* kept;
      })() as unknown as ConsumerMessages;
    };
    return Object.assign(Object.create(real) as Consumer, { fetch });
  };
  return { open, calls };
}

async function readAll(o: { open: (fromSeq?: number) => Promise<Consumer>; startSeq?: number; lastSeq?: number }) {
  const out: number[] = [];
  const lastSeq = o.lastSeq ?? (await bus.jsm.streams.info(stream)).state.last_seq;
  const newestMatching = () => newestSeqOn(bus, stream, filter);
  for await (const m of readUpTo({ stream, open: o.open, newestMatching, startSeq: o.startSeq ?? 1, lastSeq }))
    out.push(m.seq);
  return out;
}

describe('readUpTo (real JetStream)', () => {
  it('reads every matching message up to the last one stored, in order', async () => {
    const { open, calls } = opener(() => undefined);
    expect(await readAll({ open })).toEqual(seqs);
    expect(calls.opens).toBe(1);
  });

  it('a first fetch that lost its messages does not end the read: it goes on from the start with a new consumer', async () => {
    const { open, calls } = opener((n) => (n === 1 ? 0 : undefined));
    expect(await readAll({ open })).toEqual(seqs);
    expect(calls.opens).toBe(2);
  });

  it('a fetch cut short mid-batch: the read goes on from just after the last message read', async () => {
    // the reader gets 4 of the first fetch's messages; the consumer has sent everything, so its next fetch is empty
    const { open, calls } = opener((n) => (n === 1 ? 4 : undefined));
    expect(await readAll({ open })).toEqual(seqs);
    expect(calls.opens).toBe(2);
  });

  it('a message whose pending count says nothing is left, short of what is stored, does not end the read', async () => {
    // The server's count as it sent a message, short of what is stored: the stream is asked before the read ends.
    const { open, calls } = opener(() => undefined, { pendingShortAt: 7 });
    expect(await readAll({ open })).toEqual(seqs);
    expect(calls.opens).toBe(2);
  });

  it('ends, with no second consumer, when nothing matches after where it starts', async () => {
    const { open, calls } = opener(() => undefined);
    const past = seqs.at(-1)! + 1;
    expect(await readAll({ open: (from) => open(from ?? past), startSeq: past })).toEqual([]);
    expect(calls.opens).toBe(1);
  });

  it('fetches that keep losing their messages are a ReadIncompleteError, never a short answer', async () => {
    const { open } = opener(() => 0);
    await expect(readAll({ open })).rejects.toThrow(ReadIncompleteError);
  });
});
