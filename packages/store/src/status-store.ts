import { isDeepStrictEqual } from 'node:util';
import {
  ConflictError,
  isAlreadyExists,
  createJson,
  createJsonIfNew,
  deleteKey,
  encodeJson,
  getJson,
  listJson,
  updateJson,
  type Bus,
  type Versioned,
} from '@flotilla/bus';
import { backoff } from './backoff.js';
import { kindFilter, objectKey, refFromKey, type ObjectRef } from './object.js';

/**
 * What the status bucket holds per object: the status, and the stream sequence of the last event folded into it.
 * The sequence makes folding idempotent: a redelivered event (seq <= the stored one) changes nothing.
 */
export interface StatusRecord<S = unknown> {
  seq: number;
  status: S;
}

/**
 * Whether folding an event left nothing to store: the status it produced is the stored one, or, where nothing is
 * stored, empty (an event that sets no status field, such as a template's ReplicasApplied). Such a fold writes
 * nothing, live or in a replay, and the record keeps the sequence of the last event that changed it; a redelivered
 * event changes nothing either way, since the same state folds it to the same status.
 */
export function foldChangesNothing<S>(current: StatusRecord<S> | undefined, next: S): boolean {
  if (current) return isDeepStrictEqual(next, current.status);
  return (
    next === undefined ||
    (typeof next === 'object' && next !== null && !Array.isArray(next) && Object.keys(next).length === 0)
  );
}

/**
 * The record folding `steps` one at a time into `record` leaves: the status after the last, with the sequence of the
 * last step that changed it; steps the record holds already are skipped. `record` itself when none changed it.
 */
function foldSteps<S>(record: StatusRecord<S> | undefined, steps: readonly FoldStep<S>[]): StatusRecord<S> | undefined {
  let out = record;
  for (const step of steps) {
    if (out && out.seq >= step.seq) continue;
    const status = step.evolve(out === undefined ? undefined : structuredClone(out.status));
    if (!foldChangesNothing(out, status)) out = { seq: step.seq, status };
  }
  return out;
}

/** One event of `StatusStore.foldMany`: its stream position and how it evolves the status. */
export interface FoldStep<S> {
  seq: number;
  evolve: (current: S | undefined) => S;
}

export interface StatusStoreOptions {
  /** How often a fold that lost its compare-and-set is tried again. */
  maxRetries?: number;
  /** How many of the records it wrote last the store remembers, to fold the next event of the object without a read. */
  rememberedWrites?: number;
  /**
   * How many keys the store remembers having seen in the bucket. A key it has not seen is most likely new (a burst's
   * bindings), and its first fold is written without a read; one that turns out to have a history is then read.
   */
  knownKeys?: number;
}

/** The store's defaults, defined once. */
export const STATUS_STORE_DEFAULTS = {
  maxRetries: 50,
  // A burst's objects get their next event about a member-agent tick after the last: a few hundred keys apart.
  rememberedWrites: 2048,
  // Keys only: some 100 bytes each.
  knownKeys: 100_000,
} as const satisfies Required<StatusStoreOptions>;

/**
 * The status bucket. Only the status writer writes here; every write is a compare-and-set so that two writer
 * replicas (or a replay racing a live writer) cannot lose each other's changes.
 */
export class StatusStore {
  private readonly maxRetries: number;
  private readonly rememberedWrites: number;
  private readonly knownKeysLimit: number;
  /** Keys seen in the bucket (read, written or refused as not new), least recently added first. */
  private readonly known = new Set<string>();
  /**
   * The records this store wrote last, with their revisions, least recently written first. The events of one object
   * come to the status writer one after another, so the next fold of an object usually starts from what this store
   * wrote, and the compare-and-set on that revision proves it is still what is stored: a record written since by
   * anyone else (another replica, a rebuild, a delete) fails it, and the fold reads the store and tries again.
   */
  private readonly written = new Map<string, Versioned<StatusRecord>>();

  constructor(
    private readonly bus: Bus,
    opts: StatusStoreOptions = {},
  ) {
    this.maxRetries = opts.maxRetries ?? STATUS_STORE_DEFAULTS.maxRetries;
    this.rememberedWrites = opts.rememberedWrites ?? STATUS_STORE_DEFAULTS.rememberedWrites;
    this.knownKeysLimit = opts.knownKeys ?? STATUS_STORE_DEFAULTS.knownKeys;
    for (const [name, value] of Object.entries({
      maxRetries: this.maxRetries,
      rememberedWrites: this.rememberedWrites,
      knownKeys: this.knownKeysLimit,
    }))
      if (!Number.isInteger(value) || value < 0)
        throw new RangeError(`StatusStore: ${name} must be a whole number, not ${value}`);
  }

  async get<S>(ref: ObjectRef): Promise<Versioned<StatusRecord<S>> | undefined> {
    return getJson<StatusRecord<S>>(this.bus.status, objectKey(ref));
  }

  /**
   * Folds the event at stream position `seq` into the stored status with `evolve`, unless a record already holds
   * that event or a later one. Returns the record as stored afterwards.
   */
  fold<S>(ref: ObjectRef, seq: number, evolve: (current: S | undefined) => S): Promise<StatusRecord<S>> {
    return this.foldMany(ref, [{ seq, evolve }]);
  }

  /**
   * Folds several events of one object, in stream order, with one read and at most one write: the record stored is
   * the one folding them one at a time would have left (the status after the last, with the sequence of the last
   * event that changed it), so a replay still rebuilds it. Events the stored record already holds are skipped.
   */
  async foldMany<S>(ref: ObjectRef, steps: readonly FoldStep<S>[]): Promise<StatusRecord<S>> {
    const key = objectKey(ref);
    const first = steps[0];
    if (!first) throw new RangeError('StatusStore.foldMany: no events to fold');
    for (let attempt = 0; ; attempt++) {
      // What this store wrote saves the read; whether an event is folded already is the stored record's to say.
      const remembered = attempt === 0 ? (this.written.get(key) as Versioned<StatusRecord<S>> | undefined) : undefined;
      if (attempt === 0 && !remembered && !this.known.has(key)) {
        const created = await this.createIfNew(key, steps);
        if (created) return created;
      }
      const current =
        remembered && remembered.value.seq < first.seq
          ? remembered
          : await getJson<StatusRecord<S>>(this.bus.status, key);
      if (current) this.noteKnown(key);
      const record = foldSteps(current?.value, steps);
      if (record === current?.value) {
        // Nothing to write, and so no compare-and-set to prove the memory right: the record may be gone under it (a
        // NATS restarted without its data, whose re-created bucket is empty). The bucket says, on the next attempt.
        if (current && current === remembered) {
          this.written.delete(key);
          continue;
        }
        return record ?? { seq: steps.at(-1)!.seq, status: {} as S };
      }
      const next = record!;
      try {
        const revision = current
          ? await updateJson(this.bus.status, key, next, current.revision)
          : await createJson(this.bus.status, key, next);
        this.remember({ key, value: next, revision });
        return next;
      } catch (err) {
        this.written.delete(key);
        const lost = err instanceof ConflictError || isAlreadyExists(err);
        if (!lost || attempt >= this.maxRetries) throw err;
        await backoff(attempt);
      }
    }
  }

  /** Drops the record of a deleted object unless it already holds a later event (a re-created object's). */
  async remove(ref: ObjectRef, seq: number): Promise<void> {
    const key = objectKey(ref);
    this.written.delete(key);
    const current = await getJson<StatusRecord>(this.bus.status, key);
    if (!current || current.value.seq >= seq) return;
    await deleteKey(this.bus.status, key, current.revision).catch((err: unknown) => {
      if (!(err instanceof ConflictError)) throw err;
    });
  }

  async list<S>(kind: string): Promise<Array<{ ref: ObjectRef; record: StatusRecord<S> }>> {
    const snap = await listJson<StatusRecord<S>>(this.bus.js, this.bus.names.statusBucket, kindFilter(kind));
    return snap.items.map((i) => ({ ref: refFromKey(i.key), record: i.value }));
  }

  /** Every record, by key: for comparing a rebuilt status with the live one. */
  async all(): Promise<Map<string, StatusRecord>> {
    const snap = await listJson<StatusRecord>(this.bus.js, this.bus.names.statusBucket, '>');
    return new Map(snap.items.map((i) => [i.key, i.value]));
  }

  /**
   * The first fold of a key this store has not seen, written as a creation without a read: undefined when the key has
   * a history (then it is read), or when the events store nothing from no status (the stored one might still change).
   */
  private async createIfNew<S>(key: string, steps: readonly FoldStep<S>[]): Promise<StatusRecord<S> | undefined> {
    const record = foldSteps<S>(undefined, steps);
    if (record === undefined) return undefined;
    const revision = await createJsonIfNew(this.bus.status, key, record);
    this.noteKnown(key);
    if (revision === undefined) return undefined;
    this.remember({ key, value: record, revision });
    return record;
  }

  private noteKnown(key: string): void {
    if (this.knownKeysLimit === 0) return;
    this.known.delete(key);
    this.known.add(key);
    if (this.known.size > this.knownKeysLimit) this.known.delete(this.known.values().next().value!);
  }

  private remember(record: Versioned<StatusRecord>): void {
    this.noteKnown(record.key);
    if (this.rememberedWrites === 0) return;
    this.written.delete(record.key);
    this.written.set(record.key, record);
    if (this.written.size > this.rememberedWrites) this.written.delete(this.written.keys().next().value!);
  }

  /** Removes every status (the first step of a rebuild by replay). */
  async wipe(): Promise<void> {
    this.written.clear();
    this.known.clear();
    const keys: string[] = [];
    for await (const k of await this.bus.status.keys()) keys.push(k);
    for (let i = 0; i < keys.length; i += 512)
      await Promise.all(keys.slice(i, i + 512).map((k) => this.bus.status.purge(k)));
  }

  /** Writes whole records at once, replacing what is there (the last step of a rebuild). */
  async putAll(entries: Iterable<[string, StatusRecord]>): Promise<number> {
    this.written.clear();
    let n = 0;
    let pending: Promise<unknown>[] = [];
    for (const [key, value] of entries) {
      pending.push(this.bus.status.put(key, encodeJson(value)));
      n++;
      if (pending.length >= 512) {
        await Promise.all(pending);
        pending = [];
      }
    }
    await Promise.all(pending);
    return n;
  }
}
