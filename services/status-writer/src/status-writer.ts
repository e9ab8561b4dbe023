import { EventTypes, eventTypeOf, type CloudEvent, type DeliveredEvent } from '@flotilla/bus';
import {
  foldChangesNothing,
  KubeEventStore,
  objectKey,
  type ObjectRef,
  type StatusRecord,
  type StatusStore,
  type StoredKubeEvent,
} from '@flotilla/store';
import type { FoldLag } from './fold-lag.js';
import type { ReducerRegistry, Status, StatusData } from './reducers.js';

export function refOfEvent(e: CloudEvent): ObjectRef {
  return { kind: e.flotillakind, namespace: e.flotillanamespace || undefined, name: e.flotillaname };
}

/** The Kubernetes-style events an event carries (`kubeEvent`, or `kubeEvents` for several), as the store records them. */
function kubeEventInputs(e: CloudEvent) {
  const d = e.data as StatusData | undefined;
  const all = [...(d?.kubeEvent ? [d.kubeEvent] : []), ...(Array.isArray(d?.kubeEvents) ? d.kubeEvents : [])];
  return all.map((k) => ({ ...k, component: e.source, time: new Date(e.time) }));
}

/**
 * Live folding: one event at a time, in stream order (only the leader consumes, so order holds), each step one
 * compare-and-set on the object's status record. Redelivered events are recognised by sequence and change nothing.
 */
export class StatusWriter {
  constructor(
    private readonly statuses: StatusStore,
    private readonly kubeEvents: KubeEventStore,
    private readonly reducers: ReducerRegistry,
    private readonly lag?: FoldLag,
  ) {}

  async handle(d: DeliveredEvent): Promise<void> {
    const ref = refOfEvent(d.event);
    if (eventTypeOf(d.event) === EventTypes.ObjectDeleted) {
      await this.statuses.remove(ref, d.seq);
    } else if (!this.reducers.changesNothing(d.event)) {
      // An event that changes no status is neither read for nor written (as StatusStore.fold would find).
      await this.statuses.fold<Status>(ref, d.seq, (s) => this.reducers.fold(s, d.event));
    }
    for (const k of kubeEventInputs(d.event)) await this.kubeEvents.record(ref, k, d.seq);
    this.lag?.foldedEvent();
  }

  /**
   * Several events of one object, in stream order, folded with one read and at most one write (StatusStore.foldMany):
   * the record is the one folding them one at a time leaves, so a replay still rebuilds it. A delete is no fold: events
   * with one among them are handled one at a time (the live fold never batches a delete: foldEvents' `batchable`).
   */
  async handleMany(ds: readonly DeliveredEvent[]): Promise<void> {
    const first = ds[0];
    if (!first) return;
    if (ds.length === 1 || ds.some((d) => eventTypeOf(d.event) === EventTypes.ObjectDeleted)) {
      for (const d of ds) await this.handle(d);
      return;
    }
    const ref = refOfEvent(first.event);
    const steps = ds
      .filter((d) => !this.reducers.changesNothing(d.event))
      .map((d) => ({ seq: d.seq, evolve: (s: Status | undefined) => this.reducers.fold(s, d.event) }));
    if (steps.length) await this.statuses.foldMany<Status>(ref, steps);
    for (const d of ds) for (const k of kubeEventInputs(d.event)) await this.kubeEvents.record(ref, k, d.seq);
    // Counted once all is done: a batch that fails is handled again event by event, and counted there.
    for (const _ of ds) this.lag?.foldedEvent();
  }
}

/**
 * Rebuild by replay, in memory: the same reducers over the whole log give the status the live writer built.
 * Returns the maps to store; `rebuildStatus` in replay.ts writes them.
 */
export class ReplayFold {
  readonly statuses = new Map<string, StatusRecord<Status>>();
  readonly kubeEvents = new Map<string, StoredKubeEvent>();
  events = 0;

  constructor(private readonly reducers: ReducerRegistry) {}

  add(d: DeliveredEvent): void {
    this.events++;
    const ref = refOfEvent(d.event);
    const key = objectKey(ref);
    if (eventTypeOf(d.event) === EventTypes.ObjectDeleted) this.statuses.delete(key);
    else {
      // As the live fold: an event that changes nothing is not stored (StatusStore.fold).
      const current = this.statuses.get(key);
      const status = this.reducers.fold(current?.status, d.event);
      if (!foldChangesNothing(current, status)) this.statuses.set(key, { seq: d.seq, status });
    }
    for (const k of kubeEventInputs(d.event)) {
      const kk = KubeEventStore.key(ref, k);
      this.kubeEvents.set(kk, KubeEventStore.next(this.kubeEvents.get(kk), ref, k, d.seq));
    }
  }
}
