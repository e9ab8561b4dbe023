import { consumeEvents, EventTypes, eventTypeOf, type Bus, type CloudEvent, type Subscription } from '@flotilla/bus';
import { objectKey } from '@flotilla/store';
import type { FoldLag } from './fold-lag.js';
import { refOfEvent, type StatusWriter } from './status-writer.js';

/** What the live fold logs through: pino's call shape. */
export interface FoldLogger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface FoldEventsOptions {
  bus: Bus;
  writer: StatusWriter;
  /** The durable consumer's name: its position in the log is the writer's. */
  durable: string;
  /** Objects folded at once; the events of one object are always folded in stream order, never two folds at once. */
  concurrency: number;
  logger: FoldLogger;
  /** Counts the events set aside (flotilla_status_events_undecodable_total). */
  lag?: FoldLag;
  /** Told of each event once it is folded (the replica-trail projector follows them). */
  onFolded?: (e: CloudEvent) => void;
}

/**
 * The live fold: the leader's durable consumer of the event log, each event folded by `writer`. An event that cannot
 * be decoded (or whose status record cannot) is logged with its stream sequence and set aside, and the fold goes on
 * with the next: handed back, it would come again after every restart and hold the writer for ever.
 */
export function foldEvents(o: FoldEventsOptions): Promise<Subscription> {
  const { logger } = o;
  return consumeEvents(o.bus, {
    durable: o.durable,
    // The fold skips an event older than what it folded last for the object: a handover must not reorder.
    exclusive: true,
    concurrency: o.concurrency,
    orderKey: (d) => objectKey(refOfEvent(d.event)),
    handler: async (d) => {
      await o.writer.handle(d);
      o.onFolded?.(d.event);
    },
    // An object's events waiting together (a member's reports of its clusters, what queued behind a slow fold) are
    // folded in one status write.
    handleBatch: async (ds) => {
      await o.writer.handleMany(ds);
      for (const d of ds) o.onFolded?.(d.event);
    },
    // A delete is folded alone, once what came before it is acknowledged: handled again after it (a batch that
    // failed, or redelivered after a crash), an earlier fold would bring the deleted status back for a moment.
    batchable: (d) => eventTypeOf(d.event) !== EventTypes.ObjectDeleted,
    // A binding's report is folded after the cluster reports published before it (a member-agent publishes a round's
    // cluster reports first): the scheduler counts a binding's pods in a cluster from the cluster's summary once the
    // binding's status reports them, and folded first, they were counted nowhere for a moment.
    orderAcross: {
      leads: (d) => eventTypeOf(d.event) === EventTypes.ClusterStatusReported,
      follows: (d) => eventTypeOf(d.event) === EventTypes.WorkloadStatusReported,
    },
    onUndecodable: ({ seq, subject, error }) => {
      o.lag?.setAsideEvent();
      logger.error(
        { err: error, seq, subject, source: error.source, reason: error.reason },
        'an event cannot be decoded, or the status it folds into cannot: set aside (terminated, not folded)',
      );
    },
    onDeliveriesLost: (lost) =>
      logger.warn(
        lost,
        'events sent to the status writer were lost on the way; folding again from the last acknowledged',
      ),
    onSessionEnded: (err) =>
      logger.warn({ err }, "the status writer's event consumer stopped delivering; creating it again"),
    onReopenFailed: (err) =>
      logger.warn({ err }, "creating the status writer's event consumer again failed; trying again in 1 s"),
    onError: (err, d) =>
      logger.error(
        { err, seq: d.seq, type: d.event.type },
        'folding an event failed; retrying it before later events of its object',
      ),
  });
}
