import { APPLIED_PLACEMENT_ANNOTATION } from '@flotilla/api';
import type { StatusRecord, StoredObject } from '@flotilla/store';

/** The part of a pino logger the agent uses, so tests can pass a plain object. */
export interface AgentLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/**
 * A binding's placement (often the larger part of it) only matters to the scheduler: the agent drops it, and its
 * record as the applied-placement annotation (its JSON again).
 */
export function withoutPlacement(o: StoredObject): StoredObject {
  const { placement: _placement, ...spec } = (o.spec ?? {}) as Record<string, unknown>;
  const annotations = o.metadata.annotations;
  if (annotations?.[APPLIED_PLACEMENT_ANNOTATION] === undefined) return { ...o, spec };
  const { [APPLIED_PLACEMENT_ANNOTATION]: _applied, ...kept } = annotations;
  return { ...o, metadata: { ...o.metadata, annotations: kept }, spec };
}

/**
 * What the agent reads of a binding's status: the entries of its aggregated status (what it reported, once folded),
 * whole, since a report's event id chains from them; not the conditions, which take as much again.
 */
export function bindingStatusForAgent(r: StatusRecord<Record<string, unknown>>): StatusRecord<Record<string, unknown>> {
  const aggregatedStatus = r.status?.aggregatedStatus;
  return { seq: r.seq, status: aggregatedStatus === undefined ? {} : { aggregatedStatus } };
}
