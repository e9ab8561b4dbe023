import { randomUUID } from 'node:crypto';

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

/** The domain event type without the CloudEvents prefix (`BindingScheduled`). */
export function eventTypeOf(e: CloudEvent): string {
  return e.type.startsWith(EVENT_TYPE_PREFIX) ? e.type.slice(EVENT_TYPE_PREFIX.length) : e.type;
}
