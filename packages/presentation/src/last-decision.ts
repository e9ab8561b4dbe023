import { EventTypes, lastEvent, readEvents, type Bus, type CloudEvent } from '@flotilla/bus';

/** A binding's latest scheduling decision, and the newest "kept" confirmation of it if one came later. */
export interface DecisionEvents {
  decision?: CloudEvent;
  kept?: CloudEvent;
}

/**
 * The newest BindingScheduled / BindingScheduleFailed event of a binding. A "kept" event (the scheduler confirming the
 * stored clusters, at a new generation or after a failure that no longer holds, without scheduling) explains nothing:
 * the clusters it confirms are those of the last successful scheduling, which is then looked up in the binding's
 * BindingScheduled history. Only that case reads history; otherwise one direct read per event type suffices.
 */
export async function lastDecision(
  bus: Bus,
  kind: string,
  namespace: string | undefined,
  name: string,
  uid?: string,
): Promise<DecisionEvents> {
  const types = [EventTypes.BindingScheduled, EventTypes.BindingScheduleFailed];
  const found = await Promise.all(types.map((type) => lastEvent(bus, { kind, namespace, name, type })));
  const newest = found.reduce((a, b) => (b && (!a || b.seq > a.seq) ? b : a), undefined);
  // A newest decision about an earlier binding of this name means this one has none yet.
  if (!newest || !ofBinding(newest.event, uid)) return { decision: undefined };
  if (!isKept(newest.event)) return { decision: newest.event };
  let placed: CloudEvent | undefined;
  for await (const d of readEvents(bus, {
    filter: { kind, namespace: namespace ?? '', name, type: EventTypes.BindingScheduled },
  })) {
    if (d.seq >= newest.seq) break;
    if (!isKept(d.event) && ofBinding(d.event, uid)) placed = d.event;
  }
  return placed ? { decision: placed, kept: newest.event } : { decision: newest.event };
}

const isKept = (e: CloudEvent) => (e.data as { kept?: unknown } | undefined)?.kept === true;
/** Whether a decision is about this incarnation of the binding (events of older schedulers carry no uid). */
const ofBinding = (e: CloudEvent, uid: string | undefined) => {
  const bindingUid = (e.data as { bindingUid?: unknown } | undefined)?.bindingUid;
  return uid === undefined || bindingUid === undefined || bindingUid === uid;
};
