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
}

/**
 * Creates the events stream, or brings an existing one's retention and replicas up to date. Safe to call from every
 * replica.
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
  };
  try {
    await jsm.streams.info(names.eventsStream);
    await jsm.streams.update(names.eventsStream, config);
  } catch (err) {
    if (!isStreamNotFound(err)) throw err;
    await jsm.streams.add(config).catch(async (addErr: unknown) => {
      // Another replica created it between our info and add.
      if (!isStreamNameInUse(addErr)) throw addErr;
    });
  }
}
