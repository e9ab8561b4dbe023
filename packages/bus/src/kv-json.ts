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
    if (isWrongLastSequence(err) || /exists/i.test((err as Error).message)) throw new AlreadyExistsError(key, { cause: err });
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
 */
export async function listJson<T>(js: JetStreamClient, bucket: string, filter: string): Promise<Snapshot<T>> {
  const stream = `KV_${bucket}`;
  const jsm = await js.jetstreamManager();
  // Taken before the consumer starts: every later write is either in the pass below or after this sequence.
  let lastRevision = (await jsm.streams.info(stream)).state.last_seq;
  const consumer = await js.consumers.getPushConsumer(stream, {
    filter_subjects: kvSubject(bucket, filter),
    deliver_policy: DeliverPolicy.LastPerSubject,
  });
  const items: Versioned<T>[] = [];
  const info = await consumer.info(true);
  if (info.num_pending === 0) return { items, lastRevision };
  const prefixLen = kvSubject(bucket, '').length;
  const messages = await consumer.consume();
  try {
    for await (const m of messages) {
      lastRevision = Math.max(lastRevision, m.seq);
      const op = m.headers?.get('KV-Operation');
      if (op !== 'DEL' && op !== 'PURGE') {
        items.push({ key: m.subject.slice(prefixLen), value: decodeJson<T>(m.data), revision: m.seq });
      }
      if (m.info.pending === 0) break;
    }
  } finally {
    await messages.close().catch(() => undefined);
  }
  return { items, lastRevision };
}
