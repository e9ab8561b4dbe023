import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { BindingObjectReference } from '@flotilla/api';
import {
  isAlreadyExists,
  ConflictError,
  createJson,
  encodeJson,
  getJson,
  listJson,
  updateJson,
  type Bus,
} from '@flotilla/bus';
import { backoff } from './backoff.js';
import { kindFilter, objectKey, type ObjectRef } from './object.js';

/** A Kubernetes-style event (core/v1 Event's fields that tools read). */
export interface KubeEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  involvedObject: Pick<BindingObjectReference, 'kind' | 'namespace' | 'name' | 'uid'> &
    Partial<Pick<BindingObjectReference, 'apiVersion'>>;
  count: number;
  firstTimestamp: string;
  lastTimestamp: string;
  source: { component: string };
}

/** As stored: the event plus the stream sequence of the last domain event counted, so a redelivery counts once. */
export interface StoredKubeEvent extends KubeEvent {
  seq: number;
}

export interface KubeEventInput {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  component: string;
  time: Date;
  apiVersion?: string;
  uid?: string;
}

/**
 * Events keyed by object, reason and message: a repeat of the same reason and message counts up, as the Kubernetes
 * event recorder aggregates; a different message (another decision) is an event of its own, so none is lost.
 */
export class KubeEventStore {
  constructor(private readonly bus: Bus) {}

  /** The message goes in as a digest: a KV key allows only a few characters, and messages have any. */
  static key(ref: ObjectRef, e: Pick<KubeEventInput, 'type' | 'reason' | 'message'>): string {
    const digest = createHash('sha256').update(`${e.type}\n${e.message}`).digest('hex').slice(0, 16);
    return `${objectKey(ref)}.${e.reason}.${digest}`;
  }

  /** Pure: the event after one more occurrence. */
  static next(current: StoredKubeEvent | undefined, ref: ObjectRef, e: KubeEventInput, seq: number): StoredKubeEvent {
    const at = e.time.toISOString();
    if (current && current.seq >= seq) return current;
    if (current && current.message === e.message && current.type === e.type) {
      return { ...current, count: current.count + 1, lastTimestamp: at, seq };
    }
    return {
      seq,
      type: e.type,
      reason: e.reason,
      message: e.message,
      involvedObject: {
        ...(e.apiVersion ? { apiVersion: e.apiVersion } : {}),
        kind: ref.kind,
        ...(ref.namespace ? { namespace: ref.namespace } : {}),
        name: ref.name,
        ...(e.uid ? { uid: e.uid } : {}),
      },
      count: 1,
      firstTimestamp: at,
      lastTimestamp: at,
      source: { component: e.component },
    };
  }

  /** Counts one occurrence caused by the domain event at stream position `seq` (idempotent per seq). */
  async record(ref: ObjectRef, e: KubeEventInput, seq: number): Promise<KubeEvent> {
    const key = KubeEventStore.key(ref, e);
    // Keyed by the message's digest, an event is almost always new: create it without reading first, and read only
    // when it exists (a repeat to count, or this very occurrence redelivered).
    const first = KubeEventStore.next(undefined, ref, e, seq);
    try {
      await createJson(this.bus.kubeEvents, key, first);
      return first;
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
    for (let attempt = 0; ; attempt++) {
      const current = await getJson<StoredKubeEvent>(this.bus.kubeEvents, key);
      const next = KubeEventStore.next(current?.value, ref, e, seq);
      if (current && isDeepStrictEqual(current.value, next)) return next;
      try {
        if (current) await updateJson(this.bus.kubeEvents, key, next, current.revision);
        else await createJson(this.bus.kubeEvents, key, next);
        return next;
      } catch (err) {
        const lost = err instanceof ConflictError || isAlreadyExists(err);
        if (!lost || attempt >= 50) throw err;
        await backoff(attempt);
      }
    }
  }

  /** Events of a kind (or all), optionally of one object, oldest first. */
  async list(q: { kind?: string; namespace?: string; name?: string } = {}): Promise<KubeEvent[]> {
    const filter = q.kind ? kindFilter(q.kind, q.namespace) : '>';
    const snap = await listJson<StoredKubeEvent>(this.bus.js, this.bus.names.kubeEventsBucket, filter);
    return snap.items
      .map(({ value: { seq: _seq, ...event } }) => event)
      .filter(
        (e) =>
          (q.name === undefined || e.involvedObject.name === q.name) &&
          (q.namespace === undefined || (e.involvedObject.namespace ?? '') === q.namespace),
      )
      .sort((a, b) => a.lastTimestamp.localeCompare(b.lastTimestamp));
  }

  /** Every stored event by key: for comparing a rebuild with the live state. */
  async all(): Promise<Map<string, StoredKubeEvent>> {
    const snap = await listJson<StoredKubeEvent>(this.bus.js, this.bus.names.kubeEventsBucket, '>');
    return new Map(snap.items.map((i) => [i.key, i.value]));
  }

  async putAll(entries: Iterable<[string, StoredKubeEvent]>): Promise<void> {
    let pending: Promise<unknown>[] = [];
    for (const [key, value] of entries) {
      pending.push(this.bus.kubeEvents.put(key, encodeJson(value)));
      if (pending.length >= 512) {
        await Promise.all(pending);
        pending = [];
      }
    }
    await Promise.all(pending);
  }

  async wipe(): Promise<void> {
    const keys: string[] = [];
    for await (const k of await this.bus.kubeEvents.keys()) keys.push(k);
    await Promise.all(keys.map((k) => this.bus.kubeEvents.purge(k)));
  }
}
