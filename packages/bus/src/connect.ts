import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { watchConnection, type BusConnectionListener } from './connection-watch.js';
import { busNames, type BusNames } from './names.js';
import { BusUnavailableError, isStreamNotFound } from './errors.js';
import {
  DEFAULT_METRICS_MAX_AGE_MS,
  ensureEventsStream,
  ensureMetricsStream,
  type EventsRetention,
} from './provision.js';
import { inboxPrefixOf } from './nats-permissions.js';
import { resendUnansweredWrites } from './resend-writes.js';

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
  /**
   * Connection name shown by the server's monitoring, as `<name>@<prefix>`: what an operator (and a bench counting
   * messages per connection in /connz) tells the services of one installation by, where several share a NATS.
   */
  name?: string | undefined;
  retention?: Partial<EventsRetention> | undefined;
  /** Fail fast when the server is not there (default 2000 ms). */
  connectTimeoutMs?: number | undefined;
  /**
   * How long a JetStream request (a publish, a KV read or write, a stream lookup) waits for its answer (default
   * 5000 ms). On a cluster a request sent while a stream elects its leader gets no answer at all: a write is sent
   * again, as the same message, every WRITE_ATTEMPT_MS within this time (resend-writes.ts), so it is answered soon
   * after the new leader is; a read waits out this long.
   */
  requestTimeoutMs?: number | undefined;
  /** Told of every disconnect and reconnect after the connection is made. */
  onConnection?: BusConnectionListener | undefined;
  /**
   * Whether this connection administers JetStream (default true): creates the streams and buckets it finds missing
   * and brings the events stream's retention and replicas up to date. Otherwise it only creates what is missing when
   * the server lets it (an open server), and waits for the administering identity where it does not
   * (StreamsNotProvisionedError, retryable).
   */
  administer?: boolean | undefined;
}

/**
 * A stream or bucket is missing and this connection's user may not create it: the administering identity (the
 * gateway) has not made it yet, or has not re-made it after NATS lost its data. Retry.
 */
export class StreamsNotProvisionedError extends Error {
  constructor(
    readonly stream: string,
    options?: ErrorOptions,
  ) {
    super(
      `stream ${stream} is missing and this NATS user may not create it: the gateway (the one identity that administers JetStream) creates it; start the gateway, or wait for it`,
      options,
    );
    this.name = 'StreamsNotProvisionedError';
  }
}
export const isStreamsNotProvisioned = (err: unknown): err is StreamsNotProvisionedError =>
  err instanceof StreamsNotProvisionedError;

/** The server refused a request of this user by its permissions (nats.js reports it as the request's error). */
export function isPermissionsViolation(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) if (/permissions violation/i.test(e.message)) return true;
  return false;
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

/**
 * The events stream and the buckets: created if missing (idempotent: safe from every replica at once), and, by the
 * administering identity, the events stream's retention and replicas brought up to date. A creation this user may not
 * make is the administering identity's to make: StreamsNotProvisionedError.
 */
async function provision(
  jsm: JetStreamManager,
  js: JetStreamClient,
  names: BusNames,
  replicas: number,
  retention: Partial<EventsRetention> | undefined,
  administer: boolean,
) {
  const refused = (stream: string) => (err: unknown) => {
    throw isPermissionsViolation(err) ? new StreamsNotProvisionedError(stream, { cause: err }) : err;
  };
  await ensureEventsStream(jsm, names, retention, { replicas, update: administer }).catch(refused(names.eventsStream));
  // Its readers raise its max age as their histories need (the hpa-assigner); made here so that no writer must.
  await ensureMetricsStream(jsm, { names, replicas }, DEFAULT_METRICS_MAX_AGE_MS, { update: administer }).catch(
    refused(names.metricsStream),
  );
  const kvm = new Kvm(js);
  const bucket = { history: 1, replicas };
  const open = (name: string) => kvm.create(name, bucket).catch(refused(`KV_${name}`));
  const [objects, status, kubeEvents, trails, leases, usage] = await Promise.all([
    open(names.objectsBucket),
    open(names.statusBucket),
    open(names.kubeEventsBucket),
    open(names.trailsBucket),
    open(names.leasesBucket),
    open(names.usageBucket),
  ]);
  return { objects, status, kubeEvents, trails, leases, usage };
}

/** The streams every service needs: the events stream, the metric samples' and the buckets' streams. */
export function requiredStreams(names: BusNames): string[] {
  return [
    names.eventsStream,
    names.metricsStream,
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
  retention: Partial<EventsRetention> | undefined,
  administer: boolean,
): Promise<string[]> {
  let now = await streamIdentities(jsm, names);
  const lost = [...now]
    .filter(([stream, created]) => created === undefined || created !== known.get(stream))
    .map(([s]) => s);
  if (lost.length === 0) return [];
  // The bucket handles stay valid: they address their streams by name, which the re-created ones keep.
  if ([...now.values()].includes(undefined)) {
    await provision(jsm, js, names, replicas, retention, administer);
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
      ...(opts.name !== undefined && { name: `${opts.name}@${names.prefix}` }),
      user: opts.user ?? user,
      pass: opts.password ?? password,
      token: opts.token,
      // Replies come to this user's own inbox prefix, which the shipped authorization lets no one else read.
      inboxPrefix: inboxPrefixOf(opts.user ?? user),
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
    resendUnansweredWrites(js, { timeoutMs: timeout });
    const replicas = opts.replicas ?? defaultReplicas(nc.info);
    const administer = opts.administer ?? true;
    const { objects, status, kubeEvents, trails, leases, usage } = await provision(
      jsm,
      js,
      names,
      replicas,
      opts.retention,
      administer,
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
      repair: () => repairBus(jsm, js, names, known, replicas, retention, administer),
    };
  } catch (cause) {
    await nc.close();
    if (isStreamsNotProvisioned(cause)) throw cause;
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
