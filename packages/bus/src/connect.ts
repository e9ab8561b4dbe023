import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { watchConnection, type BusConnectionListener } from './connection-watch.js';
import { busNames, type BusNames } from './names.js';
import { BusUnavailableError, isStreamNotFound } from './errors.js';
import { ensureEventsStream, type EventsRetention } from './provision.js';

/** JetStream's own default request timeout, kept unless NATS_TIMEOUT_MS says otherwise. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 5000;

export interface BusOptions {
  /**
   * `nats://[user:password@]host:port`, or several such URLs separated by commas (the servers of one cluster: the
   * client connects to one and fails over to the others). Credentials in a URL are used and never logged.
   */
  url: string;
  /**
   * Replicas of the events stream and the buckets when this connection creates them (1 to 5). Unset: 1 on a single
   * server, 3 when the server belongs to a cluster (its INFO names one).
   */
  replicas?: number | undefined;
  user?: string | undefined;
  password?: string | undefined;
  token?: string | undefined;
  prefix?: string | undefined;
  /** Connection name shown by the server's monitoring. */
  name?: string | undefined;
  retention?: Partial<EventsRetention> | undefined;
  /** Fail fast when the server is not there (default 2000 ms). */
  connectTimeoutMs?: number | undefined;
  /**
   * How long a JetStream request (a publish, a KV read or write, a stream lookup) waits for its answer (default
   * 5000 ms). On a cluster a request sent while a stream elects its leader gets no answer at all, so a write stalls
   * for the election plus up to this long.
   */
  requestTimeoutMs?: number | undefined;
  /** Told of every disconnect and reconnect after the connection is made. */
  onConnection?: BusConnectionListener | undefined;
}

export interface Bus {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly names: BusNames;
  /** Replicas of the streams and buckets this connection creates (BusOptions.replicas, or its default). */
  readonly replicas: number;
  readonly objects: KV;
  readonly status: KV;
  readonly kubeEvents: KV;
  readonly trails: KV;
  /** Member-agent leases per cluster (see BusNames.leasesBucket). */
  readonly leases: KV;
  /** Member workloads' latest usage per binding and cluster (see BusNames.usageBucket). */
  readonly usage: KV;
  close(): Promise<void>;
  /**
   * Re-creates the events stream and buckets if the server lost them (a NATS restarted without its data) and returns
   * the names of those it had to re-create; empty when all were there.
   */
  repair(): Promise<string[]>;
}

/** The events stream and the three buckets, created if missing (idempotent: safe from every replica at once). */
async function provision(
  jsm: JetStreamManager,
  js: JetStreamClient,
  names: BusNames,
  replicas: number,
  retention?: Partial<EventsRetention>,
) {
  await ensureEventsStream(jsm, names, retention, { replicas });
  const kvm = new Kvm(js);
  const bucket = { history: 1, replicas };
  const [objects, status, kubeEvents, trails, leases, usage] = await Promise.all([
    kvm.create(names.objectsBucket, bucket),
    kvm.create(names.statusBucket, bucket),
    kvm.create(names.kubeEventsBucket, bucket),
    kvm.create(names.trailsBucket, bucket),
    kvm.create(names.leasesBucket, bucket),
    kvm.create(names.usageBucket, bucket),
  ]);
  return { objects, status, kubeEvents, trails, leases, usage };
}

/** The streams every service needs: the events stream and the buckets' streams. */
export function requiredStreams(names: BusNames): string[] {
  return [
    names.eventsStream,
    `KV_${names.objectsBucket}`,
    `KV_${names.statusBucket}`,
    `KV_${names.kubeEventsBucket}`,
    `KV_${names.trailsBucket}`,
    `KV_${names.leasesBucket}`,
    `KV_${names.usageBucket}`,
  ];
}

/** Each required stream's creation time (undefined: missing), which tells a stream from its re-created namesake. */
async function streamIdentities(jsm: JetStreamManager, names: BusNames): Promise<Map<string, string | undefined>> {
  const ids = new Map<string, string | undefined>();
  for (const stream of requiredStreams(names)) {
    const created = await jsm.streams.info(stream).then(
      (info) => info.created,
      (err: unknown) => {
        if (isStreamNotFound(err)) return undefined;
        throw err;
      },
    );
    ids.set(stream, created);
  }
  return ids;
}

/**
 * Finds the streams this connection's user lost: missing now, or present under a newer creation time (another
 * client, a CLI say, re-created them first on a server that lost its data). Re-creates the missing ones.
 */
async function repairBus(
  jsm: JetStreamManager,
  js: JetStreamClient,
  names: BusNames,
  known: Map<string, string | undefined>,
  replicas: number,
  retention?: Partial<EventsRetention>,
): Promise<string[]> {
  let now = await streamIdentities(jsm, names);
  const lost = [...now]
    .filter(([stream, created]) => created === undefined || created !== known.get(stream))
    .map(([s]) => s);
  if (lost.length === 0) return [];
  // The bucket handles stay valid: they address their streams by name, which the re-created ones keep.
  if ([...now.values()].includes(undefined)) {
    await provision(jsm, js, names, replicas, retention);
    now = await streamIdentities(jsm, names);
  }
  for (const [stream, created] of now) known.set(stream, created);
  return lost;
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
 * The servers of a comma-separated list of NATS URLs, without credentials, and the credentials of the first URL that
 * carries any (the servers of one cluster share their users).
 */
export function natsServersAndAuth(urls: string): { servers: string[]; user?: string; password?: string } {
  const parsed = urls
    .split(',')
    .map((u) => u.trim())
    .filter((u) => u !== '')
    .map(natsServerAndAuth);
  const withAuth = parsed.find((p) => p.user !== undefined);
  return {
    servers: parsed.map((p) => p.server),
    ...(withAuth?.user !== undefined ? { user: withAuth.user } : {}),
    ...(withAuth?.password !== undefined ? { password: withAuth.password } : {}),
  };
}

/** Stream and bucket replicas when none are configured: 3 on a server that belongs to a cluster, else 1. */
export function defaultReplicas(serverInfo: { cluster?: string | undefined } | undefined): number {
  return serverInfo?.cluster ? 3 : 1;
}

/**
 * Connects, and creates (idempotently) the events stream and the object, status and event buckets.
 * Throws BusUnavailableError when NATS does not answer or JetStream is off.
 */
export async function connectBus(opts: BusOptions): Promise<Bus> {
  const names = busNames(opts.prefix);
  const { servers, user, password } = natsServersAndAuth(opts.url);
  const server = servers.join(',');
  let nc: NatsConnection;
  try {
    nc = await connect({
      servers,
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
    const timeout = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const jsm = await jetstreamManager(nc, { timeout });
    const js = jetstream(nc, { timeout });
    const replicas = opts.replicas ?? defaultReplicas(nc.info);
    const { objects, status, kubeEvents, trails, leases, usage } = await provision(
      jsm,
      js,
      names,
      replicas,
      opts.retention,
    );
    const known = await streamIdentities(jsm, names);
    if (opts.onConnection) watchConnection(nc, opts.onConnection);
    const retention = opts.retention;
    return {
      nc,
      js,
      jsm,
      names,
      replicas,
      objects,
      status,
      kubeEvents,
      trails,
      leases,
      usage,
      close: () => nc.drain(),
      repair: () => repairBus(jsm, js, names, known, replicas, retention),
    };
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
    `KV_${names.trailsBucket}`,
    `KV_${names.leasesBucket}`,
    `KV_${names.usageBucket}`,
  ]) {
    await jsm.streams.delete(stream).catch(() => false);
  }
}
