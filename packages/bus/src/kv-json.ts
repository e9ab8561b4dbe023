import { DeliverPolicy, type JetStreamClient } from '@nats-io/jetstream';
import type { KV, KvEntry } from '@nats-io/kv';
import { AlreadyExistsError, ConflictError, isWrongLastSequence } from './errors.js';

/** A KV value decoded from JSON, with the revision that compare-and-set needs. */
export interface Versioned<T> {
  key: string;
  value: T;
  revision: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
export const encodeJson = (v: unknown): Uint8Array => encoder.encode(JSON.stringify(v));
export const decodeJson = <T>(b: Uint8Array): T => JSON.parse(decoder.decode(b)) as T;

const isLive = (e: KvEntry | null): e is KvEntry => e !== null && e.operation === 'PUT';

export async function getJson<T>(kv: KV, key: string): Promise<Versioned<T> | undefined> {
  const e = await kv.get(key);
  return isLive(e) ? { key, value: decodeJson<T>(e.value), revision: e.revision } : undefined;
}

/** Writes only if the key is absent (or deleted). Returns the new revision. */
export async function createJson(kv: KV, key: string, value: unknown): Promise<number> {
  try {
    return await kv.create(key, encodeJson(value));
  } catch (err) {
    if (isWrongLastSequence(err)) throw new AlreadyExistsError(key, { cause: err });
    throw err;
  }
}

/** Compare-and-set: writes only if the key is still at `revision`. Returns the new revision. */
export async function updateJson(kv: KV, key: string, value: unknown, revision: number): Promise<number> {
  try {
    return await kv.update(key, encodeJson(value), revision);
  } catch (err) {
    if (isWrongLastSequence(err)) throw new ConflictError(key, revision, { cause: err });
    throw err;
  }
}

/** Deletes only if the key is still at `revision` (or unconditionally without one). */
export async function deleteKey(kv: KV, key: string, revision?: number): Promise<void> {
  try {
    await kv.delete(key, revision === undefined ? undefined : { previousSeq: revision });
  } catch (err) {
    if (revision !== undefined && isWrongLastSequence(err)) throw new ConflictError(key, revision, { cause: err });
    throw err;
  }
}

/** Every key prefix of a KV bucket's stream: `$KV.<bucket>.` */
const kvSubject = (bucket: string, key: string) => `$KV.${bucket}.${key}`;

export interface Snapshot<T> {
  items: Versioned<T>[];
  /** The highest stream sequence seen; a watch resuming after it misses nothing. */
  lastRevision: number;
}

/**
 * The live values of every key matching `filter` (a NATS wildcard over keys), read in one ordered consumer pass
 * instead of a get per key.
 *
 * A bucket keeps one message per key, so a key rewritten while the pass runs loses its old message before it is
 * delivered and shows up later, under a newer sequence. The pass therefore reads up to the stream's last sequence,
 * then again up to the new last sequence while writers have moved it (a few rounds at most), keeping the newest
 * value per key: every key that exists throughout the pass is listed.
 */
export async function listJson<T>(js: JetStreamClient, bucket: string, filter: string): Promise<Snapshot<T>> {
  const stream = `KV_${bucket}`;
  const jsm = await js.jetstreamManager();
  const lastSeq = async () => (await jsm.streams.info(stream)).state.last_seq;
  const consumer = await js.consumers.getPushConsumer(stream, {
    filter_subjects: kvSubject(bucket, filter),
    deliver_policy: DeliverPolicy.LastPerSubject,
  });
  const byKey = new Map<string, Versioned<T>>();
  let lastRevision = await lastSeq();
  if ((await consumer.info(true)).num_pending === 0) return { items: [], lastRevision };
  const prefixLen = kvSubject(bucket, '').length;
  const messages = await consumer.consume();
  const iterator = messages[Symbol.asyncIterator]();
  // Later rounds only wait briefly: what they look for is already stored, or was written to other keys.
  const nextWithin = (ms: number) =>
    Promise.race([
      iterator.next(),
      new Promise<{ done: true; value: undefined }>((r) => setTimeout(() => r({ done: true, value: undefined }), ms)),
    ]);
  try {
    let target = lastRevision;
    for (let round = 0; round < 5; round++) {
      for (;;) {
        const next = round === 0 ? await iterator.next() : await nextWithin(100);
        if (next.done) break;
        const m = next.value;
        lastRevision = Math.max(lastRevision, m.seq);
        const key = m.subject.slice(prefixLen);
        const op = m.headers?.get('KV-Operation');
        if (op === 'DEL' || op === 'PURGE') byKey.delete(key);
        else if ((byKey.get(key)?.revision ?? 0) < m.seq)
          byKey.set(key, { key, value: decodeJson<T>(m.data), revision: m.seq });
        if (m.seq >= target || m.info.pending === 0) break;
      }
      const moved = await lastSeq();
      if (moved <= target) break;
      target = moved;
    }
  } finally {
    messages.stop();
  }
  return { items: [...byKey.values()], lastRevision };
}
