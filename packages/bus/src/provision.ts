import {
  DiscardPolicy,
  RetentionPolicy,
  StorageType,
  type JetStreamManager,
  type StreamConfig,
} from '@nats-io/jetstream';
import { isStreamNameInUse, isStreamNotFound } from './errors.js';
import type { BusNames } from './names.js';

export interface EventsRetention {
  /** Oldest event kept, in milliseconds (0 = forever). */
  maxAgeMs: number;
  /** Most events kept (-1 = unlimited). */
  maxMessages: number;
  /** Most bytes kept (-1 = unlimited); past it the oldest events go first. */
  maxBytes: number;
  /** Window in which a re-published message id is dropped as a duplicate. */
  duplicateWindowMs: number;
}

export const DEFAULT_RETENTION: EventsRetention = {
  maxAgeMs: 7 * 24 * 3600 * 1000,
  maxMessages: -1,
  maxBytes: 512 * 1024 * 1024,
  duplicateWindowMs: 10 * 60 * 1000,
};

const nanos = (ms: number) => ms * 1_000_000;

export interface EventsStreamOptions {
  /** The stream's replicas (default 1); an existing stream is brought to it (JetStream adds or removes peers). */
  replicas?: number | undefined;
  /**
   * Bring an existing stream's retention and replicas up to date (default true): the administering identity's part.
   * Other users only create the stream when it is missing and the server lets them.
   */
  update?: boolean | undefined;
}

/**
 * Creates the events stream, or brings an existing one's retention, replicas and protections up to date. Safe to call
 * from every replica.
 */
export async function ensureEventsStream(
  jsm: JetStreamManager,
  names: BusNames,
  retention: Partial<EventsRetention> = {},
  opts: EventsStreamOptions = {},
): Promise<void> {
  const r = { ...DEFAULT_RETENTION, ...retention };
  const config: Partial<StreamConfig> & { name: string } = {
    name: names.eventsStream,
    subjects: [`${names.eventsRoot}.>`],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_age: nanos(r.maxAgeMs),
    max_msgs: r.maxMessages,
    max_bytes: r.maxBytes,
    discard: DiscardPolicy.Old,
    duplicate_window: nanos(r.duplicateWindowMs),
    allow_direct: true,
    num_replicas: opts.replicas ?? 1,
    // The record of every decision: no message is deleted and the stream is never purged, by anyone; events leave it
    // only by the retention limits above.
    deny_delete: true,
    deny_purge: true,
  };
  try {
    await jsm.streams.info(names.eventsStream);
    if (opts.update ?? true) await jsm.streams.update(names.eventsStream, config);
  } catch (err) {
    if (!isStreamNotFound(err)) throw err;
    await jsm.streams.add(config).catch(async (addErr: unknown) => {
      // Another replica created it between our info and add.
      if (!isStreamNameInUse(addErr)) throw addErr;
    });
  }
}

/** The metrics stream's max age when nothing asks for more: Crane's default historyLength (15 days) and an hour. */
export const DEFAULT_METRICS_MAX_AGE_MS = (15 * 24 + 1) * 3_600_000;

/**
 * Creates the metrics stream, or raises its retention. `maxAgeMs` is the longest history one user needs (an
 * EffectiveHPA's `historyLength` plus Crane's extra hour); an existing stream keeps a longer max age (set by the
 * operator, or needed by another user), since lowering it would drop samples at once.
 */
export async function ensureMetricsStream(
  jsm: JetStreamManager,
  bus: { names: BusNames; replicas: number },
  maxAgeMs: number,
  opts: { update?: boolean } = {},
): Promise<void> {
  const { metricsStream, metricsRoot } = bus.names;
  const config = {
    name: metricsStream,
    subjects: [`${metricsRoot}.>`],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_age: nanos(maxAgeMs),
    // One sample per workload and timestamp: a repeated report (a retry, a restarted agent) is dropped.
    duplicate_window: nanos(Math.min(maxAgeMs, 10 * 60 * 1000)),
    allow_direct: true,
    num_replicas: bus.replicas,
  };
  const current = await jsm.streams.info(metricsStream).then(
    (info) => info.config,
    () => undefined,
  );
  if (!current)
    await jsm.streams.add(config).catch((err: unknown) => {
      if (!isStreamNameInUse(err)) throw err;
    });
  else if ((opts.update ?? true) && current.max_age < config.max_age)
    await jsm.streams.update(metricsStream, { ...current, ...config });
}
