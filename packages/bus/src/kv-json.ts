import { gunzipSync, gzipSync } from 'node:zlib';
import { DeliverPolicy, type JetStreamClient, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import type { KV, KvEntry } from '@nats-io/kv';
import {
  AlreadyExistsError,
  ConflictError,
  isNoMessageFound,
  isWrongLastSequence,
  UndecodableValueError,
} from './errors.js';

/** A KV value decoded from JSON, with the revision that compare-and-set needs. */
export interface Versioned<T> {
  key: string;
  value: T;
  revision: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * JSON above this size is stored and sent gzipped: a message may not pass the server's max_payload (1 MiB by
 * default), and the status of a WorkloadRebalancer over 10,000 workloads is about 1.1 MB of JSON (some 60 kB
 * gzipped). Smaller values stay plain JSON, readable by any NATS tool.
 */
export const GZIP_ABOVE_BYTES = 256 * 1024;

/** JSON text never starts with byte 0x1f, so gzip's magic number tells the two apart. */
const isGzip = (b: Uint8Array) => b.length > 2 && b[0] === 0x1f && b[1] === 0x8b;

export const encodeJson = (v: unknown): Uint8Array => {
  const b = encoder.encode(JSON.stringify(v));
  return b.length > GZIP_ABOVE_BYTES ? gzipSync(b) : b;
};

/**
 * The most a gzipped value may expand to when read. Every value Flotilla writes fits in one message (NATS's
 * max_payload, 1 MiB by default) gzipped, and its JSON gzips about 20:1 (the largest, a WorkloadRebalancer's status
 * over 10,000 workloads, is 1.1 MB of JSON in 60 kB), so no value Flotilla writes comes near this. Without a bound a
 * 1 MiB gzip stream written by anyone else can expand to 1 GiB inside the reader, again after every restart.
 */
export const MAX_DECODED_JSON_BYTES = 64 * 1024 * 1024;

const inflate = (b: Uint8Array, source: string): Uint8Array => {
  try {
    return gunzipSync(b, { maxOutputLength: MAX_DECODED_JSON_BYTES });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
      throw new UndecodableValueError(
        source,
        'too-large',
        `gzipped ${b.length} bytes expand past ${MAX_DECODED_JSON_BYTES} bytes (MAX_DECODED_JSON_BYTES)`,
        { cause: err },
      );
    throw new UndecodableValueError(source, 'bad-gzip', `not a gzip stream: ${(err as Error).message}`, {
      cause: err,
    });
  }
};

/**
 * The JSON value of `b` (gzipped or plain), or an UndecodableValueError naming `source` (where it was read: a bucket
 * and key, a subject and sequence) when it is not one or expands past MAX_DECODED_JSON_BYTES.
 */
export const decodeJson = <T>(b: Uint8Array, source = 'a value'): T => {
  const text = decoder.decode(isGzip(b) ? inflate(b, source) : b);
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new UndecodableValueError(source, 'bad-json', `not JSON: ${(err as Error).message}`, { cause: err });
  }
};

/** Where a KV value was read, for an UndecodableValueError: `<bucket> <key>`. */
export const kvSource = (bucket: string, key: string): string => `${bucket} ${key}`;

/**
 * A copy of `s` that holds nothing else: a key cut from a message's subject (`subject.slice(...)`) is a V8 sliced
 * string that keeps the whole subject alive, which a cache of 10,000 keys pays for 10,000 times (about 1.5 MiB).
 */
export const ownedString = (s: string): string => Buffer.from(s, 'utf8').toString('utf8');

const isLive = (e: KvEntry | null): e is KvEntry => e !== null && e.operation === 'PUT';

export async function getJson<T>(kv: KV, key: string): Promise<Versioned<T> | undefined> {
  const e = await kv.get(key);
  return isLive(e) ? { key, value: decodeJson<T>(e.value, kvSource(e.bucket, key)), revision: e.revision } : undefined;
}

/**
 * Writes only if the key has never been written (no value, no delete marker): one round trip, where createJson reads
 * the key after a refusal to tell a deleted one. Returns the new revision, or undefined when the key has a history.
 */
export async function createJsonIfNew(kv: KV, key: string, value: unknown): Promise<number | undefined> {
  try {
    return await kv.put(key, encodeJson(value), { previousSeq: 0 });
  } catch (err) {
    if (isWrongLastSequence(err)) return undefined;
    throw err;
  }
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
 * The newest revision (stream sequence) of any key matching `filter` (a NATS wildcard over keys), deletes included;
 * 0 when none. One request, however many keys match: a cache that has seen this revision holds every write to them
 * made before the call.
 */
export async function lastRevisionOf(jsm: JetStreamManager, bucket: string, filter: string): Promise<number> {
  try {
    return (await jsm.streams.getMessage(`KV_${bucket}`, { last_by_subj: kvSubject(bucket, filter) }))?.seq ?? 0;
  } catch (err) {
    if (isNoMessageFound(err)) return 0;
    throw err;
  }
}

/** How long a listing waits for its next message before asking the server whether any will come. */
const LIST_SILENCE_CHECK_MS = 1000;

/**
 * The live values of every key matching `filter` (a NATS wildcard over keys), read in one ordered consumer pass
 * instead of a get per key.
 *
 * The pass reads the last message of every key, up to the newest matching sequence when it began. A bucket keeps one
 * message per key, so a key rewritten while the pass runs loses the message the pass was about to deliver; when
 * anything was written during the pass, the keys the stream holds but the pass never saw are read one by one at the
 * end. Every key that exists throughout the pass is listed. `lastRevision` is never below a sequence the pass skipped
 * without seeing its successor, so a watch resuming after it misses nothing.
 *
 * Nothing waits on a timer for its outcome (a timer that ended rounds early on a loaded machine lost keys): a
 * silence only makes the pass ask the server whether anything matching is left to come (a stream purged under it).
 */
export async function listJson<T>(
  js: JetStreamClient,
  bucket: string,
  filter: string,
  /**
   * Makes each value of the list as it is read (default: the JSON decoded): an informer that keeps a projection of a
   * large kind projects here, so the whole kind is never held decoded at once. A value that is not JSON, or expands
   * past MAX_DECODED_JSON_BYTES, throws an UndecodableValueError naming its bucket and key.
   */
  decode: (data: Uint8Array, revision: number, key: string) => T = (data, _revision, key) =>
    decodeJson<T>(data, kvSource(bucket, key)),
): Promise<Snapshot<T>> {
  const stream = `KV_${bucket}`;
  const subjects = kvSubject(bucket, filter);
  const prefixLen = kvSubject(bucket, '').length;
  const jsm = await js.jetstreamManager();
  const lastSeq = async () => (await jsm.streams.info(stream)).state.last_seq;
  const lastMatchingSeq = () => lastRevisionOf(jsm, bucket, filter);
  const before = await lastSeq();
  const consumer = await js.consumers.getPushConsumer(stream, {
    filter_subjects: subjects,
    deliver_policy: DeliverPolicy.LastPerSubject,
  });
  // An ordered push consumer outlives its subscription on the server (for 5 minutes without interest), and nats-server
  // 2.15 (unlike 2.9) caps a stream at 1,000 consumers by default: a busy projection listing a bucket many times a second reached
  // the cap. Deleted in the background once read, so a listing costs no extra round trip.
  try {
    let lastRevision = before;
    if ((await consumer.info(true)).num_pending === 0) return { items: [], lastRevision };
    const target = await lastMatchingSeq();

    const byKey = new Map<string, Versioned<T>>();
    const seen = new Set<string>();
    const take = (subject: string, seq: number, data: Uint8Array, operation: string | undefined) => {
      const key = ownedString(subject.slice(prefixLen));
      seen.add(key);
      lastRevision = Math.max(lastRevision, seq);
      if (operation === 'DEL' || operation === 'PURGE') byKey.delete(key);
      else if ((byKey.get(key)?.revision ?? 0) < seq)
        byKey.set(key, { key, value: decode(data, seq, key), revision: seq });
    };

    const messages = await consumer.consume();
    const iterator = messages[Symbol.asyncIterator]();
    let lastDelivered = 0;
    let waiting: ReturnType<typeof iterator.next> | undefined;
    /** The next message, or done when nothing matching past the last one delivered exists any more. */
    const nextMessage = async (): Promise<IteratorResult<JsMsg, undefined>> => {
      for (;;) {
        // The same `next()` is awaited again after a silence: an abandoned one would swallow the message it gets.
        waiting ??= iterator.next();
        let timer: NodeJS.Timeout | undefined;
        const silence = new Promise<'silence'>((r) => {
          timer = setTimeout(() => r('silence'), LIST_SILENCE_CHECK_MS);
        });
        const next = await Promise.race([waiting, silence]).finally(() => clearTimeout(timer));
        if (next !== 'silence') {
          waiting = undefined;
          return next;
        }
        if ((await lastMatchingSeq()) <= lastDelivered) return { done: true, value: undefined };
      }
    };
    try {
      // The message at `target`, or the one that replaced it, ends the pass: messages come in sequence order.
      while (lastDelivered < target) {
        const next = await nextMessage();
        if (next.done) break;
        const m = next.value;
        lastDelivered = m.seq;
        take(m.subject, m.seq, m.data, m.headers?.get('KV-Operation'));
      }
    } finally {
      messages.stop();
      // stop() only queues the end behind the messages not yet taken, and the subscription stays open (taking every
      // message the consumer still sends) until an iteration reaches it: a listing left one open each time.
      void (async () => {
        while (!(await (waiting ?? iterator.next())).done) waiting = undefined;
      })().catch(() => undefined);
    }

    if ((await lastSeq()) !== before) {
      // Written to during the pass: a rewritten key may have lost its message before delivery.
      const held = (await jsm.streams.info(stream, { subjects_filter: subjects })).state.subjects ?? {};
      for (const subject of Object.keys(held)) {
        if (seen.has(subject.slice(prefixLen))) continue;
        try {
          const m = await jsm.streams.getMessage(stream, { last_by_subj: subject });
          if (m) take(m.subject, m.seq, m.data, m.header?.get('KV-Operation'));
        } catch (err) {
          if (!isNoMessageFound(err)) throw err; // deleted since: nothing to list
        }
      }
    }
    return { items: [...byKey.values()], lastRevision };
  } finally {
    void consumer.delete().catch(() => undefined);
  }
}
