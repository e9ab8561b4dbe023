import {
  ConflictError,
  AlreadyExistsError,
  createJson,
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
 * The status bucket. Only the status writer writes here; every write is a compare-and-set so that two writer
 * replicas (or a replay racing a live writer) cannot lose each other's changes.
 */
export class StatusStore {
  constructor(
    private readonly bus: Bus,
    private readonly maxRetries = 50,
  ) {}

  async get<S>(ref: ObjectRef): Promise<Versioned<StatusRecord<S>> | undefined> {
    return getJson<StatusRecord<S>>(this.bus.status, objectKey(ref));
  }

  /**
   * Folds the event at stream position `seq` into the stored status with `evolve`, unless a record already holds
   * that event or a later one. Returns the record as stored afterwards.
   */
  async fold<S>(ref: ObjectRef, seq: number, evolve: (current: S | undefined) => S): Promise<StatusRecord<S>> {
    const key = objectKey(ref);
    for (let attempt = 0; ; attempt++) {
      const current = await getJson<StatusRecord<S>>(this.bus.status, key);
      if (current && current.value.seq >= seq) return current.value;
      const status = evolve(current === undefined ? undefined : structuredClone(current.value.status));
      const next: StatusRecord<S> = { seq, status };
      try {
        if (current) await updateJson(this.bus.status, key, next, current.revision);
        else await createJson(this.bus.status, key, next);
        return next;
      } catch (err) {
        const lost = err instanceof ConflictError || err instanceof AlreadyExistsError;
        if (!lost || attempt >= this.maxRetries) throw err;
        await backoff(attempt);
      }
    }
  }

  /** Drops the record of a deleted object unless it already holds a later event (a re-created object's). */
  async remove(ref: ObjectRef, seq: number): Promise<void> {
    const key = objectKey(ref);
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

  /** Removes every status (the first step of a rebuild by replay). */
  async wipe(): Promise<void> {
    const keys: string[] = [];
    for await (const k of await this.bus.status.keys()) keys.push(k);
    for (let i = 0; i < keys.length; i += 512)
      await Promise.all(keys.slice(i, i + 512).map((k) => this.bus.status.purge(k)));
  }

  /** Writes whole records at once, replacing what is there (the last step of a rebuild). */
  async putAll(entries: Iterable<[string, StatusRecord]>): Promise<number> {
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
