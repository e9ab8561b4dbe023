import { AckPolicy, DeliverPolicy, type Consumer, type ConsumerConfig, type JsMsg } from '@nats-io/jetstream';
import type { Bus } from './connect.js';
import {
  isConsumerNotFound,
  isNoMessageFound,
  isUndecodable,
  ReadIncompleteError,
  type UndecodableValueError,
} from './errors.js';
import { eventTypeOf, type CloudEvent } from './cloud-event.js';
import { eventFilter, eventSubject, type EventAddress } from './subjects.js';
import { decodeJson, encodeJson, getJson } from './kv-json.js';
import { KeyedLanes } from './keyed-lanes.js';

export interface PublishResult {
  seq: number;
  /** True when JetStream dropped it as a re-publish of the same message id. */
  duplicate: boolean;
}

export function subjectOf(bus: Bus, e: CloudEvent): string {
  return eventSubject(bus.names.eventsRoot, {
    kind: e.flotillakind,
    namespace: e.flotillanamespace || undefined,
    name: e.flotillaname,
    type: eventTypeOf(e),
  });
}

/** Appends a domain event; the CloudEvent id is the message id, so a retry of the same decision stores it once. */
export async function publishEvent(bus: Bus, e: CloudEvent): Promise<PublishResult> {
  const ack = await bus.js.publish(subjectOf(bus, e), encodeJson(e), { msgID: e.id });
  return { seq: ack.seq, duplicate: ack.duplicate };
}

export interface DeliveredEvent<T = unknown> {
  event: CloudEvent<T>;
  /** Stream sequence: the position of this event in the log. */
  seq: number;
  /** 1 on first delivery, more after a crash or a nak. */
  deliveryCount: number;
}

export interface ConsumeOptions {
  /** Durable consumer name: every replica with the same name shares one position in the stream. */
  durable: string;
  filter?: Partial<EventAddress>;
  /** Unacknowledged events are redelivered after this long (default 30 s). */
  ackWaitMs?: number;
  /** Delay between attempts at an event whose handler threw (default 1 s). */
  retryDelayMs?: number;
  /** Attempts at one event before it is given up (terminated); unlimited by default. */
  maxDeliver?: number;
  /**
   * Events with the same key are handled one at a time, in stream order; events of different keys up to
   * `concurrency` at once. Without it every event shares one key: the whole stream in order.
   */
  orderKey?: (d: DeliveredEvent) => string;
  /** Events handled at once (default 1). */
  concurrency?: number;
  /**
   * Only one process consumes at a time (a leader). It starts right after the consumer's acknowledgement floor, in
   * stream order, instead of getting a previous holder's unacknowledged events back only when their ack wait runs
   * out, behind later ones. Handlers must recognise the events a previous holder handled without acknowledging.
   */
  exclusive?: boolean;
  handler: (d: DeliveredEvent) => Promise<void>;
  /**
   * Handles the events of one key that are waiting when its turn comes all at once, in stream order: what arrived
   * while the key's previous events were handled, or together in one delivery (a member's reports of several clusters,
   * say). The status writer folds them in one write. A batch that throws is handled again one event at a time through
   * `handler`, so a failing or undecodable event is retried, told and set aside alone, as without this. A single event
   * goes to `handler`.
   */
  handleBatch?: (ds: DeliveredEvent[]) => Promise<void>;
  /**
   * Whether an event may join a batch (default: every one). One that may not is handled alone, after the batch
   * before it was acknowledged and before the events after it: the status writer's deletes, so that a fold before a
   * delete is never handled again after it.
   */
  batchable?: (d: DeliveredEvent) => boolean;
  /**
   * Order across keys, where it matters: an event `follows` picks out is handled only once every earlier event
   * `leads` picks out has been handled, whatever their keys (later events of its key wait behind it). The status
   * writer folds a binding's report only after the cluster reports published before it: the scheduler lets go of a
   * binding's assumed pods in a cluster when the binding's status reports them, and counts them from the cluster's
   * summary after that, so a binding's status stored first left them counted nowhere for a moment.
   */
  orderAcross?: {
    leads: (d: DeliveredEvent) => boolean;
    follows: (d: DeliveredEvent) => boolean;
    /**
     * How long a leading event holds the followers after it at most (default ORDER_ACROSS_MAX_WAIT_MS): one that keeps
     * failing (retried in place) must not stop the followers of every other key for good.
     */
    maxWaitMs?: number;
  };
  /**
   * Told when an exclusive consumer finds deliveries lost on the way (its connection moved to another NATS node, or
   * the consumer's leader died, with events sent and not received): it starts again after its acknowledgement floor.
   */
  onDeliveriesLost?: (lost: LostDeliveries) => void;
  /**
   * Told when a consume session ends by itself (its consumer deleted, a refusal from the server): the consumer is
   * created again (an exclusive one after its acknowledgement floor). Default: a process warning.
   */
  onSessionEnded?: (err: unknown) => void;
  /**
   * Told of each failed attempt at creating the consumer again (its stream gone with a NATS that lost its data, say);
   * it is tried again after `retryDelayMs`. Default: a process warning.
   */
  onReopenFailed?: (err: unknown) => void;
  /**
   * Told of each failed attempt at an event (it is tried again) and of a message that could not be settled (nak or
   * term with the connection gone: the server delivers the event again after the ack wait).
   */
  onError?: (err: unknown, d: DeliveredEvent) => void;
  /**
   * Told of each event set aside because it cannot be decoded (not JSON, or gzipped past MAX_DECODED_JSON_BYTES), or
   * because its handler threw an UndecodableValueError (a stored value it needs cannot be decoded): the event is
   * terminated, so it is never delivered again, and the next goes on. Reading it again would fail the same way.
   * Default: a process warning.
   */
  onUndecodable?: (aside: SetAside) => void;
}

/** How long a leading event of `orderAcross` holds the followers after it at most. */
export const ORDER_ACROSS_MAX_WAIT_MS = 10_000;

/** An event a consumer set aside: terminated, never delivered again. */
export interface SetAside {
  /** Stream sequence of the event. */
  seq: number;
  subject: string;
  error: UndecodableValueError;
}

/** Consumer sequences of deliveries the server sent that never arrived, and the event that came after them. */
export interface LostDeliveries {
  /** The first delivery (consumer sequence) missing. */
  fromDelivery: number;
  /** The last delivery missing. */
  toDelivery: number;
  /** The stream sequence of the event that arrived after the gap (it is not handled: it comes again, in order). */
  arrivedSeq: number;
}

/**
 * The deliveries missing before one numbered `delivery` when the one before it was numbered `previous`, or undefined
 * when none is: a consumer numbers its deliveries (redeliveries too) 1, 2, 3, ... and only one process takes an
 * exclusive consumer's deliveries, so a number skipped is a delivery lost on the way.
 */
export function lostBefore(
  previous: number,
  delivery: number,
): { fromDelivery: number; toDelivery: number } | undefined {
  return delivery > previous + 1 ? { fromDelivery: previous + 1, toDelivery: delivery - 1 } : undefined;
}

export interface Subscription {
  stop(): Promise<void>;
}

const nanos = (ms: number) => ms * 1_000_000;

/**
 * The reserved kind under which an exclusive consumer's start position is kept in the objects bucket (no API kind,
 * so no user or informer touches it).
 */
export const CONSUMER_POSITION_KIND = 'ConsumerPosition';

/**
 * Processes events at least once through a durable pull consumer with explicit ack: an event is acknowledged only
 * after its handler resolved, so a crash mid-handler redelivers it. Handlers must therefore be idempotent.
 * A handler that throws is retried in place, holding back the later events of its key: handing it back to the
 * server instead would let those overtake it, and a fold that skips what it has already passed would lose it.
 */
export async function consumeEvents(bus: Bus, opts: ConsumeOptions): Promise<Subscription> {
  await openDurable(bus, opts);
  const consumer = await bus.js.consumers.get(bus.names.eventsStream, opts.durable);
  const lanes = new KeyedLanes({
    limit: opts.concurrency ?? 1,
    // What reaches here: settling a message failed without an onError to tell, or onError itself threw.
    onError: (err, key) =>
      process.emitWarning(err instanceof Error ? err : new Error(String(err)), {
        code: 'FLOTILLA_EVENT_SETTLE_FAILED',
        detail: `consumer ${opts.durable}, order key ${JSON.stringify(key)}`,
      }),
  });
  const keyOf = opts.orderKey ?? (() => '');
  let stopping = false;
  /** Terminates an event that cannot be decoded or handled for that reason, and tells. */
  const setAside = (m: JsMsg, error: UndecodableValueError): void => {
    m.term(error.message);
    const aside: SetAside = { seq: m.seq, subject: m.subject, error };
    if (opts.onUndecodable) opts.onUndecodable(aside);
    else
      process.emitWarning(error, {
        code: 'FLOTILLA_EVENT_UNDECODABLE',
        detail: `consumer ${opts.durable}: event at stream sequence ${m.seq} set aside (terminated)`,
      });
  };

  const handle = async (m: JsMsg, d: DeliveredEvent): Promise<void> => {
    for (let attempt = 1; ; attempt++) {
      // Stopping (leadership lost, say): what has not started goes back to the server for the next consumer.
      if (stopping) return void m.nak();
      try {
        await opts.handler(d);
        m.ack();
        return;
      } catch (err) {
        // A stored value the handler needs cannot be decoded: every attempt would fail alike.
        if (isUndecodable(err)) return setAside(m, err);
        opts.onError?.(err, d);
        if (opts.maxDeliver !== undefined && opts.maxDeliver > 0 && attempt >= opts.maxDeliver) return void m.term();
        m.working();
        await new Promise((r) => setTimeout(r, opts.retryDelayMs ?? 1000));
      }
    }
  };

  // Stream sequences queued or running here. An event that waits behind a slow one of its key longer than the ack
  // wait comes again; that copy is dropped (acknowledging the first delivery settles it). What waits is bounded by
  // the consumer's max_ack_pending (the server's default, 1,000).
  const inHand = new Set<number>();
  // A consumer deleted under a session ends it (the default goes on pulling from nothing, without a word, for ever);
  // the loop below then creates it again.
  const sessionOptions = () => ({ max_messages: 256, abort_on_missing_resource: true });
  let messages = await consumer.consume(sessionOptions());
  /**
   * Takes one consume session's messages into the lanes. Returns the deliveries lost when an exclusive consumer
   * finds some missing: the server sends the lost ones again only after their ack wait, behind later events of their
   * key, and a fold that skips what it has passed would drop them. The session then ends there, un-handled.
   */
  /** Per key, the events waiting for a batch that has not started yet (with handleBatch). */
  const waiting = new Map<string, Array<{ m: JsMsg; d: DeliveredEvent }>>();
  const handleAlone = (m: JsMsg, d: DeliveredEvent): Promise<void> =>
    handle(m, d).catch((err: unknown) => {
      if (!opts.onError) throw err;
      opts.onError(err, d);
    });
  const runBatch = async (key: string, batch: Array<{ m: JsMsg; d: DeliveredEvent }>): Promise<void> => {
    // One turn of the event loop first: the session hands over what it has already received, so that events of
    // this key delivered together join the batch.
    await new Promise((r) => setImmediate(r));
    if (waiting.get(key) === batch) waiting.delete(key);
    try {
      if (batch.length > 1 && opts.handleBatch && !stopping) {
        try {
          await opts.handleBatch(batch.map((b) => b.d));
          for (const b of batch) b.m.ack();
          return;
        } catch (err) {
          // Told, then handled again one at a time below, where each event's failure is told, retried or set aside on
          // its own (what the batch did is recognised by the handlers as done).
          opts.onError?.(err, batch[0]!.d);
        }
      }
      for (const b of batch) await handleAlone(b.m, b.d);
    } finally {
      for (const b of batch) inHand.delete(b.m.seq);
    }
  };
  /** Queues an event into its key's lane, in a batch where it may join one. */
  const queue = (key: string, m: JsMsg, d: DeliveredEvent): void => {
    if (opts.handleBatch) {
      const joins = opts.batchable?.(d) ?? true;
      const open = joins ? waiting.get(key) : undefined;
      if (open) open.push({ m, d });
      else {
        const fresh = [{ m, d }];
        // An event that may not join a batch closes the one before it, and none joins it.
        if (joins) waiting.set(key, fresh);
        else waiting.delete(key);
        lanes.add(key, () => runBatch(key, fresh).finally(() => leaderHandled(fresh)));
      }
      return;
    }
    lanes.add(key, () =>
      handleAlone(m, d).finally(() => {
        inHand.delete(m.seq);
        leaderHandled([{ m }]);
      }),
    );
  };
  // orderAcross: the leading events taken and not yet handled (stream sequence → when taken), and per key the events
  // held (outside the lanes, so that a held event takes no place of the `concurrency` the leaders need).
  const leaders = new Map<number, number>();
  const held = new Map<string, Array<{ m: JsMsg; d: DeliveredEvent }>>();
  const maxWaitMs = opts.orderAcross?.maxWaitMs ?? ORDER_ACROSS_MAX_WAIT_MS;
  let expiry: ReturnType<typeof setTimeout> | undefined;
  /**
   * The first leading event still holding the followers after it: the earliest taken and not handled, within its
   * hold. Leaders are taken in stream order, so it is also the one whose hold runs out first.
   */
  const firstLeader = (): { seq: number; takenAt: number } | undefined => {
    const now = Date.now();
    for (const [seq, takenAt] of leaders) if (now - takenAt < maxWaitMs) return { seq, takenAt };
    return undefined;
  };
  const mustWait = (d: DeliveredEvent, seq: number, first: number) => first < seq && opts.orderAcross!.follows(d);
  /** Queues the held events whose leaders are all handled (or held them long enough), each key's in order. */
  const release = (all = false): void => {
    const first = all ? Number.POSITIVE_INFINITY : (firstLeader()?.seq ?? Number.POSITIVE_INFINITY);
    for (const [key, events] of held) {
      while (events.length && !mustWait(events[0]!.d, events[0]!.m.seq, first)) {
        const { m, d } = events.shift()!;
        queue(key, m, d);
      }
      if (!events.length) held.delete(key);
    }
    expireLater();
  };
  /** While events are held, looks again when the oldest leader's hold runs out. */
  const expireLater = (): void => {
    const first = expiry || !held.size ? undefined : firstLeader();
    if (!first) return;
    expiry = setTimeout(
      () => {
        expiry = undefined;
        release();
      },
      Math.max(0, first.takenAt + maxWaitMs - Date.now()) + 1,
    );
    expiry.unref();
  };
  const leaderHandled = (done: ReadonlyArray<{ m: JsMsg }>): void => {
    if (!opts.orderAcross) return;
    let any = false;
    for (const { m } of done) any = leaders.delete(m.seq) || any;
    if (any && held.size) release();
  };
  const enqueue = (key: string, m: JsMsg, d: DeliveredEvent): void => {
    if (opts.orderAcross) {
      if (opts.orderAcross.leads(d)) leaders.set(m.seq, Date.now());
      const behind = held.get(key);
      if (behind) return void behind.push({ m, d });
      if (mustWait(d, m.seq, firstLeader()?.seq ?? Number.POSITIVE_INFINITY)) {
        held.set(key, [{ m, d }]);
        expireLater();
        return;
      }
    }
    queue(key, m, d);
  };
  const take = async (session: typeof messages): Promise<LostDeliveries | undefined> => {
    // An exclusive consumer is created afresh (openDurable), so its first delivery is numbered 1.
    let lastDelivery = 0;
    for await (const m of session) {
      if (opts.exclusive) {
        const lost = lostBefore(lastDelivery, m.info.deliverySequence);
        if (lost) return { ...lost, arrivedSeq: m.seq };
        lastDelivery = m.info.deliverySequence;
      }
      if (inHand.has(m.seq)) continue;
      let d: DeliveredEvent;
      try {
        d = toDelivered(m);
      } catch (err) {
        // Thrown here it would end the session, and the consumer created again would deliver it again, for ever.
        if (!isUndecodable(err)) throw err;
        setAside(m, err);
        continue;
      }
      inHand.add(m.seq);
      enqueue(keyOf(d), m, d);
    }
    return undefined;
  };
  /** The consumer created again after its acknowledgement floor, tried until it is (undefined once stopping). */
  const reopen = async (): Promise<typeof messages | undefined> => {
    for (;;) {
      if (stopping) return undefined;
      try {
        // Acks are sent without a reply: the round trip makes sure the floor counts them.
        await bus.nc.flush();
        await openDurable(bus, opts);
        const next = await (await bus.js.consumers.get(bus.names.eventsStream, opts.durable)).consume(sessionOptions());
        if (!stopping) return next;
        await next.close().catch(() => undefined);
        return undefined;
      } catch (err) {
        if (opts.onReopenFailed) opts.onReopenFailed(err);
        else
          process.emitWarning(err instanceof Error ? err : new Error(String(err)), {
            code: 'FLOTILLA_CONSUMER_REOPEN_FAILED',
            detail: `consumer ${opts.durable}: tried again after ${opts.retryDelayMs ?? 1000} ms`,
          });
        await new Promise((r) => setTimeout(r, opts.retryDelayMs ?? 1000));
      }
    }
  };
  const loop = (async () => {
    for (;;) {
      let lost: LostDeliveries | undefined;
      let ended: unknown;
      try {
        lost = await take(messages);
      } catch (err) {
        ended = err;
      }
      if (stopping) return;
      // Not stopping, so the session ended by itself (its consumer deleted, the server's refusal, a closed
      // connection): nothing more would come, and the events not yet handled would wait for ever.
      if (lost) opts.onDeliveriesLost?.(lost);
      else if (opts.onSessionEnded) opts.onSessionEnded(ended);
      else
        process.emitWarning(ended instanceof Error ? ended : new Error('the consume session ended'), {
          code: 'FLOTILLA_CONSUMER_SESSION_ENDED',
          detail: `consumer ${opts.durable}: created again`,
        });
      // What arrived before the gap is handled and acknowledged first; the consumer is then created again after its
      // acknowledgement floor (as at a handover), so the lost events come back in stream order, before later ones.
      // Held events go too: a lost leader comes back only after the floor, and they are in hand until handled.
      release(true);
      await lanes.drain();
      const next = await reopen();
      if (!next) return;
      messages = next;
    }
  })();
  return {
    async stop() {
      stopping = true;
      await messages.close().catch(() => undefined);
      await loop.catch(() => undefined);
      // Held events are handed back at once (stopping naks what has not started), not after their ack wait.
      release(true);
      clearTimeout(expiry);
      await lanes.drain();
      // Acks are sent without a reply; a round trip makes sure the server has them before the next holder starts.
      await bus.nc.flush().catch(() => undefined);
    },
  };
}

async function openDurable(bus: Bus, opts: ConsumeOptions): Promise<void> {
  const config: Partial<ConsumerConfig> = {
    durable_name: opts.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: eventFilter(bus.names.eventsRoot, opts.filter),
    ack_wait: nanos(opts.ackWaitMs ?? 30_000),
    max_deliver: -1,
  };
  const stream = bus.names.eventsStream;
  if (!opts.exclusive) {
    await bus.jsm.consumers.add(stream, config);
    return;
  }
  const existing = await bus.jsm.consumers.info(stream, opts.durable).catch((err: unknown) => {
    if (isConsumerNotFound(err)) return undefined;
    throw err;
  });
  const positionKey = `${CONSUMER_POSITION_KIND}._.${opts.durable}`;
  let startSeq: number | undefined;
  if (existing) {
    startSeq = existing.ack_floor.stream_seq + 1;
    // Kept before the consumer goes, so that a holder that dies before recreating it does not send the next one
    // back to the first event.
    await bus.objects.put(positionKey, encodeJson({ startSeq }));
    // Recreated at the floor: the server forgets what it had delivered and not had acknowledged.
    await bus.jsm.consumers.delete(stream, opts.durable);
  } else {
    startSeq = (await getJson<{ startSeq: number }>(bus.objects, positionKey))?.value.startSeq;
  }
  await bus.jsm.consumers.add(
    stream,
    startSeq === undefined
      ? config
      : { ...config, deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: startSeq },
  );
}

/** Where an event was read, for an UndecodableValueError: its subject and stream sequence. */
const eventSource = (subject: string, seq: number) => `event ${subject} at stream sequence ${seq}`;

function toDelivered(m: JsMsg): DeliveredEvent {
  return {
    event: decodeJson<CloudEvent>(m.data, eventSource(m.subject, m.seq)),
    seq: m.seq,
    deliveryCount: m.info.deliveryCount,
  };
}

/**
 * The newest event stored under one exact address (kind, namespace, name and type), fetched directly instead of
 * reading the object's whole history: for views such as `flotilla describe` that show the latest decision only.
 */
export async function lastEvent<T = unknown>(
  bus: Bus,
  a: EventAddress,
): Promise<{ event: CloudEvent<T>; seq: number } | undefined> {
  const m = await bus.jsm.streams.getMessage(bus.names.eventsStream, {
    last_by_subj: eventSubject(bus.names.eventsRoot, a),
  });
  return m ? { event: decodeJson<CloudEvent<T>>(m.data, eventSource(m.subject, m.seq)), seq: m.seq } : undefined;
}

export interface ReadOptions {
  filter?: Partial<EventAddress> | undefined;
  /** Several addresses at once, merged in stream order (without `follow`); wins over `filter`. */
  filters?: ReadonlyArray<Partial<EventAddress>> | undefined;
  /** Several whole filter subjects at once, as `filters` (wins over it). */
  subjects?: readonly string[] | undefined;
  /** A whole filter subject, already built from an address (internal to `filters`). */
  subject?: string;
  /** Start at the first event stored at or after this time (default: the first event). */
  since?: Date;
  /** Start at this stream sequence (default: the first event). */
  fromSeq?: number;
  /** Keep going after the last stored event, delivering new ones as they arrive. */
  follow?: boolean;
  signal?: AbortSignal;
}

export interface ReadUpToOptions {
  /** The stream the read is on (for the error that says a read could not be completed). */
  stream: string;
  /** Opens an ordered consumer on the read's filter: where the read starts, or at stream sequence `fromSeq`. */
  open: (fromSeq?: number) => Promise<Consumer>;
  /** The stream sequence of the newest stored message the read's filter matches (0 when none). */
  newestMatching: () => Promise<number>;
  /**
   * The first stream sequence the read can return, when known (a read from a time does not know it: until it has
   * returned a message, an empty fetch ends it).
   */
  startSeq?: number | undefined;
  /** The read ends here: the last sequence stored when it began. */
  lastSeq: number;
  signal?: AbortSignal;
}

/** Empty fetches in a row, with matching messages left, before a read gives up with a ReadIncompleteError. */
const MAX_EMPTY_FETCHES = 5;

/**
 * Reads stored messages in order through ordered consumers, in batches, up to stream sequence `lastSeq`, and ends
 * there instead of waiting for more.
 *
 * A fetch that comes back empty is not taken as the end: an expiry that fires first (a stalled event loop, a busy
 * server) looks the same as a filter with nothing left, and what the server had sent to that fetch is gone with it.
 * So the stream is asked for the newest message the filter matches; when it is past the last one read, the read
 * goes on from just after that one with a new consumer.
 */
export async function* readUpTo(o: ReadUpToOptions): AsyncGenerator<JsMsg> {
  let consumer = await o.open();
  let lastRead: number | undefined;
  let emptyFetches = 0;
  try {
    for (;;) {
      const batch = await consumer.fetch({ max_messages: 10_000, expires: 1000 });
      let received = 0;
      let countedShort = false;
      for await (const m of batch) {
        received++;
        if (m.seq > o.lastSeq) return; // stored after the read began
        yield m;
        lastRead = m.seq;
        if (m.seq === o.lastSeq || o.signal?.aborted) return;
        // Nothing pending: leave the batch at once (its iterator would otherwise wait out `expires` for messages that
        // never come), but only once the stream confirms it: the count is the server's as it sent this message, and a
        // short one would end the read with matching messages left unread.
        if (m.info.pending === 0) {
          // Stored after the read began is not this read's: no new consumer for it.
          if (Math.min(await o.newestMatching(), o.lastSeq) <= m.seq) return;
          countedShort = true;
          break;
        }
      }
      if (countedShort) {
        // What the server sent after this one went with the batch: on from just after the last message read.
        emptyFetches = 0;
        discardConsumer(consumer);
        consumer = await o.open(lastRead! + 1);
        continue;
      }
      if (received > 0) {
        emptyFetches = 0;
        continue;
      }
      const after = lastRead ?? (o.startSeq === undefined ? undefined : o.startSeq - 1);
      if (after === undefined) return;
      const newest = await o.newestMatching();
      if (newest <= after) return;
      if (++emptyFetches >= MAX_EMPTY_FETCHES) throw new ReadIncompleteError(o.stream, after, newest);
      discardConsumer(consumer);
      consumer = await o.open(after + 1);
    }
  } finally {
    discardConsumer(consumer);
  }
}

/**
 * Deletes a read's ordered consumer in the background. The server keeps one for 5 minutes after its last fetch, and
 * nats-server 2.15 (unlike 2.9) caps a stream at 1,000 consumers by default: reads many times a second reached it.
 */
function discardConsumer(consumer: Consumer): void {
  try {
    void consumer.delete().catch(() => undefined);
  } catch {
    // never created on the server (no fetch reached it): nothing to delete
  }
}

/** The stream sequence of the newest message on `subject` (a filter: wildcards allowed), 0 when there is none. */
export async function newestSeqOn(bus: Bus, stream: string, subject: string): Promise<number> {
  try {
    return (await bus.jsm.streams.getMessage(stream, { last_by_subj: subject }))?.seq ?? 0;
  } catch (err) {
    if (isNoMessageFound(err)) return 0;
    throw err;
  }
}

/**
 * Reads the event log in order with an ephemeral ordered consumer (no acks): for replay, audits and
 * `flotilla events`. Without `follow` it ends at the last event stored when it started.
 */
export async function* readEvents(bus: Bus, opts: ReadOptions = {}): AsyncGenerator<DeliveredEvent> {
  if (opts.filters || opts.subjects) {
    // One ordered consumer per address, merged by stream sequence: several filter subjects on one consumer need
    // nats-server 2.10, and each address's read is one subject's messages only, however large the stream.
    if (opts.follow) throw new RangeError('readEvents: `filters` reads what is stored; follow one `filter` instead');
    const subjects = [
      ...new Set(opts.subjects ?? (opts.filters ?? []).map((f) => eventFilter(bus.names.eventsRoot, f))),
    ];
    const reads = await Promise.all(
      subjects.map(async (subject) => {
        const out: DeliveredEvent[] = [];
        // An exact subject with nothing stored from the start on is not read at all (a read of nothing waits out a
        // fetch's expiry; the projections' reads of what is new mostly find nothing).
        if (!subject.includes('*') && !subject.includes('>')) {
          const last = await bus.jsm.streams.getMessage(bus.names.eventsStream, { last_by_subj: subject });
          if (!last || (opts.fromSeq !== undefined && last.seq < opts.fromSeq)) return out;
        }
        const one = { ...opts, filters: undefined, subjects: undefined, filter: undefined, subject };
        for await (const d of readEvents(bus, one)) out.push(d);
        return out;
      }),
    );
    yield* reads.flat().sort((a, b) => a.seq - b.seq);
    return;
  }
  const stream = bus.names.eventsStream;
  const filter = opts.subject ?? eventFilter(bus.names.eventsRoot, opts.filter);
  const open = (fromSeq = opts.fromSeq) =>
    bus.js.consumers.get(stream, {
      filter_subjects: filter,
      ...(fromSeq
        ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: fromSeq }
        : opts.since
          ? { deliver_policy: DeliverPolicy.StartTime, opt_start_time: opts.since.toISOString() }
          : {}),
    });
  if (!opts.follow) {
    const lastSeq = (await bus.jsm.streams.info(stream)).state.last_seq;
    if (lastSeq === 0) return;
    const newestMatching = () => newestSeqOn(bus, stream, filter);
    const startSeq = opts.fromSeq ?? (opts.since ? undefined : 1);
    const read = readUpTo({ stream, open, newestMatching, startSeq, lastSeq, signal: opts.signal });
    for await (const m of read) yield toDelivered(m);
    return;
  }
  const consumer = await open();
  const messages = await consumer.consume({ max_messages: 1024 });
  const abort = () => void messages.close();
  opts.signal?.addEventListener('abort', abort, { once: true });
  // An abort that came while the consumer was being opened fired before the listener was there.
  if (opts.signal?.aborted) abort();
  try {
    // What the consumer had buffered when the abort came is not read either.
    for await (const m of messages) {
      if (opts.signal?.aborted) return;
      yield toDelivered(m);
    }
  } finally {
    opts.signal?.removeEventListener('abort', abort);
    await messages.close().catch(() => undefined);
  }
}
