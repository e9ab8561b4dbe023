import { randomUUID } from 'node:crypto';
import { EventTypes } from './event-types.js';

/**
 * A CloudEvents 1.0 structured-mode JSON envelope. `subject` is `<Kind>/<namespace>/<name>` (namespace empty for
 * cluster-scoped objects); the extension attributes repeat the address for filtering tools that do not parse it.
 */
export interface CloudEvent<T = unknown> {
  specversion: '1.0';
  id: string;
  source: string;
  type: string;
  subject: string;
  time: string;
  datacontenttype: 'application/json';
  flotillakind: string;
  flotillanamespace: string;
  flotillaname: string;
  data: T;
}

/** CloudEvents `type` of a Flotilla domain event: `io.flotilla.<EventType>`. */
export const EVENT_TYPE_PREFIX = 'io.flotilla.';

export interface NewEvent<T> {
  /** Deterministic ids make re-publishing the same decision a no-op (JetStream de-duplicates by message id). */
  id?: string;
  source: string;
  type: string;
  kind: string;
  namespace?: string | undefined;
  name: string;
  time: Date;
  data: T;
}

export function cloudEvent<T>(e: NewEvent<T>): CloudEvent<T> {
  const ns = e.namespace ?? '';
  return {
    specversion: '1.0',
    id: e.id ?? randomUUID(),
    source: e.source,
    type: `${EVENT_TYPE_PREFIX}${e.type}`,
    subject: `${e.kind}/${ns}/${e.name}`,
    time: e.time.toISOString(),
    datacontenttype: 'application/json',
    flotillakind: e.kind,
    flotillanamespace: ns,
    flotillaname: e.name,
    data: e.data,
  };
}

/** One deletion, as {@link objectDeletedEvent} records it. */
export interface ObjectDeletion {
  /** Who deleted the object: the service or controller name, as every event's `source`. */
  source: string;
  kind: string;
  namespace?: string | undefined;
  name: string;
  /**
   * The incarnation deleted (`metadata.uid`). The store gives every object one; an object without one (the API's type
   * leaves it optional) is known by its address instead, as the other events' ids do.
   */
  uid: string | undefined;
  time: Date;
}

/**
 * The ObjectDeleted event of one incarnation of an object. Its id is the uid's, the same for every writer and every
 * retry, so a delete retried or repeated by another replica is stored once (JetStream de-duplicates by id), and a
 * later object of the same name, a new uid, gets its own.
 */
export function objectDeletedEvent(d: ObjectDeletion): CloudEvent<Record<string, never>> {
  return cloudEvent({
    id: `${d.uid ?? `${d.kind}/${d.namespace ?? ''}/${d.name}`}/${EventTypes.ObjectDeleted}`,
    source: d.source,
    type: EventTypes.ObjectDeleted,
    kind: d.kind,
    namespace: d.namespace,
    name: d.name,
    time: d.time,
    data: {},
  });
}

/** The domain event type without the CloudEvents prefix (`BindingScheduled`). */
export function eventTypeOf(e: CloudEvent): string {
  return e.type.startsWith(EVENT_TYPE_PREFIX) ? e.type.slice(EVENT_TYPE_PREFIX.length) : e.type;
}
