/**
 * @flotilla/presentation: how Flotilla's objects and decisions read to a person, shared by the `flotilla` command and
 * the gateway's dashboard views, so that a page says what the CLI says. Tables and ages as kubectl prints them, `get`'s
 * columns per kind, one line per domain event, a binding's latest scheduling decision and a workload's replica trail.
 */
export { formatAge, formatTable } from './table.js';
export { COLUMNS, type Column } from './columns.js';
export { objectRows } from './object-rows.js';
export { eventMessage } from './event-message.js';
export { type DecisionEvents, lastDecision } from './last-decision.js';
export { replicaTrail } from './replica-trail.js';
