import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { busNames, type BusNames } from './names.js';
import { BusUnavailableError } from './errors.js';
import { ensureEventsStream, type EventsRetention } from './provision.js';

export interface BusOptions {
  /** `nats://[user:password@]host:port`; credentials in the URL are used and never logged. */
  url: string;
  user?: string | undefined;
  password?: string | undefined;
  token?: string | undefined;
  prefix?: string | undefined;
  /** Connection name shown by the server's monitoring. */
  name?: string | undefined;
  retention?: Partial<EventsRetention> | undefined;
  /** Fail fast when the server is not there (default 2000 ms). */
  connectTimeoutMs?: number | undefined;
}

export interface Bus {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly names: BusNames;
  readonly objects: KV;
  readonly status: KV;
  readonly kubeEvents: KV;
  close(): Promise<void>;
}

/** Splits credentials out of a NATS URL so that the server list carries none. */
export function natsServerAndAuth(url: string): { server: string; user?: string; password?: string } {
  const u = new URL(url.includes('://') ? url : `nats://${url}`);
  const server = `${u.protocol}//${u.host}`;
  const user = u.username ? decodeURIComponent(u.username) : undefined;
  const password = u.password ? decodeURIComponent(u.password) : undefined;
  return { server, ...(user ? { user } : {}), ...(password ? { password } : {}) };
}

/**
 * Connects, and creates (idempotently) the events stream and the object, status and event buckets.
 * Throws BusUnavailableError when NATS does not answer or JetStream is off.
 */
export async function connectBus(opts: BusOptions): Promise<Bus> {
  const names = busNames(opts.prefix);
  const { server, user, password } = natsServerAndAuth(opts.url);
  let nc: NatsConnection;
  try {
    nc = await connect({
      servers: server,
      name: opts.name,
      user: opts.user ?? user,
      pass: opts.password ?? password,
      token: opts.token,
      timeout: opts.connectTimeoutMs ?? 2000,
      maxReconnectAttempts: -1,
      // Otherwise every request (each KV operation, each JetStream publish) builds an Error up front to keep its
      // call site for a possible timeout: a tenth of a busy controller's CPU. Our errors name key and operation.
      noAsyncTraces: true,
    });
  } catch (cause) {
    throw new BusUnavailableError(server, { cause });
  }
  try {
    const jsm = await jetstreamManager(nc);
    const js = jetstream(nc);
    await ensureEventsStream(jsm, names, opts.retention);
    const kvm = new Kvm(js);
    const [objects, status, kubeEvents] = await Promise.all([
      kvm.create(names.objectsBucket, { history: 1 }),
      kvm.create(names.statusBucket, { history: 1 }),
      kvm.create(names.kubeEventsBucket, { history: 1 }),
    ]);
    return { nc, js, jsm, names, objects, status, kubeEvents, close: () => nc.drain() };
  } catch (cause) {
    await nc.close();
    throw new BusUnavailableError(server, { cause });
  }
}

/** Removes every stream and bucket of a prefix: for tests and `flotilla reset`. */
export async function destroyBus(bus: Bus): Promise<void> {
  const { jsm, names } = bus;
  for (const stream of [
    names.eventsStream,
    names.metricsStream,
    `KV_${names.objectsBucket}`,
    `KV_${names.statusBucket}`,
    `KV_${names.kubeEventsBucket}`,
  ]) {
    await jsm.streams.delete(stream).catch(() => false);
  }
}
