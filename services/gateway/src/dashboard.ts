import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveDspConfig, resolveKind, type EffectiveHorizontalPodAutoscaler } from '@flotilla/api';
import { eventTypeOf, readEvents, type Bus, type CloudEvent, type EventAddress } from '@flotilla/bus';
import type { StoredLike } from '@flotilla/client';
import {
  DASHBOARD_PACKAGE_URL,
  DASHBOARD_PATH,
  type FeedEvent,
  pageOf,
  parsePageRequest,
  sseMessage,
} from '@flotilla/dashboard';
import { FORECAST_CURVES_SPAN_SECONDS, forecastCurves, predictionEnabled, type ForecastCurves } from '@flotilla/ehpa';
import { JetStreamHistory } from '@flotilla/metric-history';
import { eventMessage, lastDecision, objectRows, replicaTrail } from '@flotilla/presentation';
import type { Informer, Informers, ObjectStore, Projection, StatusRecord, StoredObject } from '@flotilla/store';
import { BadRequestError, NoSuchPathError, ReplayTooFarError, ShuttingDownError } from './errors.js';

/** The EffectiveHPAs whose forecast curves are kept between requests. */
const CURVES_KEPT = 256;

/** How many of the newest events a feed opens with, before it follows new ones. */
export const FEED_BACKLOG = 200;
/** How far back, and how many of them at most, the `history` view reads one object's events. */
export const HISTORY_DEFAULTS = { hours: 24, limit: 2000 } as const;
/** A comment line this often keeps proxies from closing an idle event stream. */
const KEEPALIVE_MS = 15_000;

/** What one reader of the event stream may cost the gateway. */
export interface StreamLimits {
  /**
   * How far behind the stream's last sequence a `Last-Event-ID` may be: a tab that slept through more starts again
   * from the newest events (its page reads what it shows afresh), and a replay of the whole log is `flotilla events`'
   * to do, not one HTTP response's.
   */
  maxReplay: number;
  /**
   * How long a reader may leave what the gateway wrote unread before its stream is ended. Meanwhile nothing more is
   * taken from NATS for it, so what it costs is one socket's buffer and one pull of the consumer, however many events
   * are stored.
   */
  stalledMs: number;
}
export const STREAM_DEFAULTS: StreamLimits = { maxReplay: 10_000, stalledMs: 30_000 };

/** One open event stream, as `openStreams` tells it. */
export interface StreamState {
  /** Events written to the response. */
  events: number;
  /** Bytes written and not yet taken by the socket (`res.writableLength`), now and at most so far. */
  buffered: number;
  peakBuffered: number;
  /** True while the stream waits for its reader to take what it was given before it reads NATS again. */
  waitingForReader: boolean;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.map': 'application/json',
};

/** One page of `get rb -o wide` across namespaces, as the Workloads page shows it. */
export interface BindingsPage {
  headers: string[];
  rows: Array<{ namespace: string; name: string; cells: string[] }>;
  page: number;
  pageSize: number;
  total: number;
}

/** What the Workloads page's columns read of a binding (`get rb -o wide`): who it is, its clusters, its age. */
export const BINDING_ROW_PROJECTION: Projection<StoredObject, StoredObject> = {
  name: 'dashboardBindingRow',
  project: (o) => ({
    apiVersion: o.apiVersion,
    kind: o.kind,
    metadata: {
      name: o.metadata.name,
      namespace: o.metadata.namespace,
      creationTimestamp: o.metadata.creationTimestamp,
      resourceVersion: o.metadata.resourceVersion,
    },
    spec: { clusters: (o.spec as { clusters?: unknown } | undefined)?.clusters },
  }),
};

/** What the same columns read of a binding's status: its conditions and the affinity group it observes. */
export const BINDING_STATUS_ROW_PROJECTION: Projection<StatusRecord, unknown> = {
  name: 'dashboardBindingStatusRow',
  project: (r) => {
    const s = (r.status ?? {}) as { conditions?: unknown; schedulerObservingAffinityName?: unknown };
    return { conditions: s.conditions, schedulerObservingAffinityName: s.schedulerObservingAffinityName };
  },
};

const byNamespaceAndName = (a: StoredObject, b: StoredObject) =>
  (a.metadata.namespace ?? '').localeCompare(b.metadata.namespace ?? '') ||
  a.metadata.name.localeCompare(b.metadata.name);

/**
 * What the dashboard reads beyond the API's operations, each a read: one page of the bindings (the list is paged
 * here, so that the browser never receives 10,000 of them), one workload's decision and replica trail (what
 * `describe` and `explain replicas` read from the event log), and the live event feed. Built on the CLI's own
 * functions, so that the page and the CLI say the same thing.
 */
export class DashboardViews {
  private rows?: { objects: Informer<StoredObject>; status: Informer<unknown>; synced: boolean };
  /** The open event streams, ended by `stop` (an open stream would otherwise keep the HTTP server from closing). */
  private readonly streams = new Map<AbortController, { state: StreamState; res: ServerResponse }>();
  private stopped = false;
  private readonly limits: StreamLimits;
  /** Streams ended because their reader stopped reading for longer than `stalledMs`. */
  endedStalled = 0;
  /** The last forecast curves per EffectiveHPA, kept for the sample interval they were computed in. */
  private readonly curves = new Map<string, { slot: string; value: ForecastCurves }>();

  constructor(
    private readonly o: {
      bus: Bus;
      store: ObjectStore;
      /** The process's informers, for the cache of the bindings' row fields (`start`); without them pages list the store. */
      informers?: Informers;
      now?: () => Date;
      /** What one reader of the event stream may cost (STREAM_DEFAULTS for what is not given). */
      stream?: Partial<StreamLimits>;
    },
  ) {
    this.limits = { ...STREAM_DEFAULTS, ...o.stream };
  }

  /** The event streams open now: what each has written and what waits in its response's buffer. */
  openStreams(): StreamState[] {
    return [...this.streams.values()].map(({ state, res }) => ({ ...state, buffered: res.writableLength }));
  }

  /**
   * Starts the cache of the bindings' row fields (with informers): the Workloads page then answers from memory. Until
   * the cache has listed the store, pages are read from the store. The first page asked for starts it: a gateway no
   * one opens the dashboard of receives and decodes no binding (during a burst, four deliveries per binding).
   */
  start(): void {
    if (!this.o.informers || this.rows) return;
    const rows = {
      objects: this.o.informers.objects('ResourceBinding', BINDING_ROW_PROJECTION as Projection<never, StoredObject>),
      status: this.o.informers.status('ResourceBinding', BINDING_STATUS_ROW_PROJECTION as Projection<never, unknown>),
      synced: false,
    };
    this.rows = rows;
    void Promise.all([rows.objects.start(), rows.status.start()]).then(() => {
      rows.synced = true;
    });
  }

  /** Ends every open event stream and stops the cache: call before closing the HTTP server. */
  stop(): void {
    this.stopped = true;
    for (const stream of this.streams.keys()) stream.abort();
    this.rows?.objects.stop();
    this.rows?.status.stop();
  }

  /**
   * Every binding (of a namespace) with the fields its row shows: from the cache once it has listed the store, from
   * the store until then (or without informers; 10,000 bindings listed from the store take 0.4 to 1.6 s, the cache a
   * few milliseconds).
   */
  private async bindingRows(namespace: string | undefined): Promise<StoredObject[]> {
    if (!this.stopped) this.start();
    if (!this.rows?.synced) return this.o.store.list('ResourceBinding', namespace);
    const { objects, status } = this.rows;
    return objects
      .values()
      .filter((o) => namespace === undefined || o.metadata.namespace === namespace)
      .sort(byNamespaceAndName)
      .map((o) => ({
        ...o,
        status: status.get({ kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name }),
      }));
  }

  private now(): Date {
    return this.o.now?.() ?? new Date();
  }

  async bindings(q: URLSearchParams): Promise<BindingsPage> {
    const req = pageRequest(q);
    const namespace = q.get('namespace') || undefined;
    const page = pageOf((await this.bindingRows(namespace)) as StoredLike[], req);
    const { headers, rows } = objectRows(page.items, {
      wide: true,
      allNamespaces: true,
      now: this.now(),
      kind: 'ResourceBinding',
    });
    return {
      headers,
      rows: rows.map((cells, i) => ({
        namespace: page.items[i]!.metadata.namespace ?? '',
        name: page.items[i]!.metadata.name,
        cells,
      })),
      page: page.page,
      pageSize: page.pageSize,
      total: page.total,
    };
  }

  /** A binding, its latest scheduling decision, and its workload's replica trail. */
  async workload(q: URLSearchParams): Promise<object> {
    const namespace = q.get('namespace') || 'default';
    const name = required(q, 'name');
    const binding = (await this.o.store.mustGet({ kind: 'ResourceBinding', namespace, name })) as StoredLike;
    const uid = binding.metadata.uid;
    const { decision, kept } = await lastDecision(
      this.o.bus,
      'ResourceBinding',
      namespace,
      name,
      typeof uid === 'string' ? uid : undefined,
    );
    const resource = (binding.spec as { resource?: { kind?: string; namespace?: string; name?: string } } | undefined)
      ?.resource;
    const workload =
      resource?.kind && resource.name
        ? { kind: resource.kind, namespace: resource.namespace ?? namespace, name: resource.name }
        : undefined;
    const lister = {
      list: async (kind: string, ns?: string) => ({
        items: (await this.o.store.list(resolveKind(kind).kind, ns)) as StoredLike[],
      }),
    };
    const trail = workload ? await replicaTrail(this.o.bus, lister, workload) : [];
    const brief = (e: CloudEvent | undefined) => e && { type: eventTypeOf(e), time: e.time, data: e.data };
    return { binding, workload, decision: brief(decision), kept: brief(kept), trail };
  }

  /**
   * One object's domain events with their data, oldest first: the newest HISTORY_DEFAULTS.limit of the last `hours`
   * (an EffectiveHPA's decisions carry its proposals, from which its page draws load, forecast and replicas).
   */
  async history(
    q: URLSearchParams,
  ): Promise<{ items: Array<{ seq: number; time: string; type: string; data: unknown }> }> {
    const kind = resolveKind(required(q, 'kind'));
    const name = required(q, 'name');
    const hours = Number(q.get('hours') ?? HISTORY_DEFAULTS.hours);
    if (!(hours > 0 && hours <= 24 * 31))
      throw new BadRequestError(`hours: Invalid value: "${q.get('hours')}": must be a number of hours from 1 to 744`);
    const namespace = kind.namespaced ? (q.get('namespace') ?? 'default') : '';
    const items: Array<{ seq: number; time: string; type: string; data: unknown }> = [];
    for await (const d of readEvents(this.o.bus, {
      filter: { kind: kind.kind, namespace, name },
      since: new Date(this.now().getTime() - hours * 3_600_000),
    })) {
      items.push({ seq: d.seq, time: d.event.time, type: eventTypeOf(d.event), data: d.event.data });
      if (items.length > HISTORY_DEFAULTS.limit) items.shift();
    }
    return { items };
  }

  /**
   * An EffectiveHPA's actual usage (the metrics stream the member-agents record) and its forecast over the last day
   * and the prediction window ahead, replayed as the controller fits it (`forecastCurves`). Computed at most once per
   * sample interval per EffectiveHPA and spec: a live page asks again on every change of the object.
   */
  async forecast(q: URLSearchParams): Promise<ForecastCurves> {
    const namespace = q.get('namespace') ?? 'default';
    const name = required(q, 'name');
    const o = await this.o.store.get({ kind: 'EffectiveHorizontalPodAutoscaler', namespace, name });
    const ehpa = o as unknown as EffectiveHorizontalPodAutoscaler | undefined;
    if (!ehpa?.spec || !predictionEnabled(ehpa.spec)) return { actual: [], forecast: [] };
    const config = resolveDspConfig(ehpa.spec.prediction?.predictionAlgorithm?.dsp).config;
    const nowS = Math.floor(this.now().getTime() / 1000);
    const key = `${namespace}/${name}`;
    const slot = `${Math.floor(nowS / config.sampleIntervalSeconds)}/${JSON.stringify(ehpa.spec)}`;
    const cached = this.curves.get(key);
    if (cached?.slot === slot) return cached.value;
    const ref = ehpa.spec.scaleTargetRef;
    const history = await new JetStreamHistory(this.o.bus).range(
      { namespace, kind: ref.kind, name: ref.name },
      {
        start: new Date((nowS - FORECAST_CURVES_SPAN_SECONDS - config.historyLengthSeconds - 3600) * 1000),
        end: new Date(nowS * 1000),
        stepSeconds: config.sampleIntervalSeconds,
      },
    );
    const value = forecastCurves({ ehpa, history, nowSeconds: nowS });
    // Bounded: an EffectiveHPA deleted long ago is not kept for ever.
    if (this.curves.size >= CURVES_KEPT) this.curves.delete(this.curves.keys().next().value!);
    this.curves.set(key, { slot, value });
    return value;
  }

  /**
   * The domain events as server-sent events: the newest FEED_BACKLOG of them (or those after the `Last-Event-ID` a
   * reconnecting reader sends, at most `maxReplay` back), then each new one as it is stored, until the reader goes
   * away. A reader that does not take what it is sent holds the stream: nothing more is read from NATS until its
   * socket drains, and one stalled for `stalledMs` is ended.
   */
  async stream(q: URLSearchParams, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const filter: Partial<EventAddress> = {};
    const kind = q.get('kind');
    if (kind) filter.kind = resolveKind(kind).kind;
    if (q.get('namespace') !== null) filter.namespace = q.get('namespace') ?? '';
    if (q.get('name')) filter.name = q.get('name')!;
    const lastId = lastEventId(req);
    // Listening before the first await: a reader gone while the stream's position is read must not leave a stream
    // following for nobody (its 'close' would have come before a listener added after the await).
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const lastSeq = (await this.o.bus.jsm.streams.info(this.o.bus.names.eventsStream)).state.last_seq;
    if (lastId !== undefined && lastSeq - lastId > this.limits.maxReplay)
      throw new ReplayTooFarError(lastId, lastSeq, this.limits.maxReplay);
    const fromSeq = lastId !== undefined ? lastId + 1 : Math.max(1, lastSeq - FEED_BACKLOG + 1);
    if (this.stopped) throw new ShuttingDownError('a new event stream');
    if (abort.signal.aborted) return;
    const state: StreamState = { events: 0, buffered: 0, peakBuffered: 0, waitingForReader: false };
    this.streams.set(abort, { state, res });
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      // The connection ends with the stream: a reader that opens the next one (after a gateway's stop) comes in on a
      // new connection, which a closing server refuses, rather than on this one, which would keep it open.
      connection: 'close',
    });
    res.write(': feed open\n\n');
    // Only on a connection with nothing unsent: a stalled reader's buffer does not grow by it.
    const keepalive = setInterval(() => res.writableLength === 0 && res.write(': keepalive\n\n'), KEEPALIVE_MS);
    try {
      for await (const d of readEvents(this.o.bus, { filter, follow: true, fromSeq, signal: abort.signal })) {
        const e: FeedEvent = {
          seq: d.seq,
          time: d.event.time,
          type: eventTypeOf(d.event),
          kind: d.event.flotillakind,
          namespace: d.event.flotillanamespace ?? '',
          name: d.event.flotillaname,
          message: eventMessage(d.event),
        };
        const taken = res.write(sseMessage({ event: 'message', id: String(d.seq), data: JSON.stringify(e) }));
        state.events++;
        state.peakBuffered = Math.max(state.peakBuffered, res.writableLength);
        if (taken) continue;
        // The socket's buffer is full: the next event is not pulled (the consumer asks NATS for more only as its
        // messages are taken) until the reader has taken these, or for good if it does not within stalledMs.
        state.waitingForReader = true;
        const drained = await drainedWithin(res, this.limits.stalledMs, abort.signal);
        state.waitingForReader = false;
        if (drained) continue;
        if (!abort.signal.aborted) {
          this.endedStalled++;
          // Ended without what it holds: a reader that takes nothing would keep a graceful end waiting as well.
          res.destroy();
        }
        break;
      }
    } catch (err) {
      if (!abort.signal.aborted) throw err;
    } finally {
      this.streams.delete(abort);
      clearInterval(keepalive);
      res.end();
    }
  }
}

/** Resolves true once `res` has written out what it buffered, false if its reader went or stayed stalled `ms`. */
function drainedWithin(res: ServerResponse, ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (drained: boolean) => {
      clearTimeout(timer);
      res.off('drain', onDrain);
      signal.removeEventListener('abort', onAbort);
      resolve(drained);
    };
    const onDrain = () => done(true);
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(false), ms);
    res.on('drain', onDrain);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The `Last-Event-ID` a reconnecting reader sends: a sequence of the stream (0: from its start), or undefined without
 * one. Anything else is refused, rather than taken for "no id" and answered with other events than were asked for.
 */
function lastEventId(req: IncomingMessage): number | undefined {
  const raw = req.headers['last-event-id'];
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d{1,15}$/.test(String(raw)))
    throw new BadRequestError(
      `Last-Event-ID: Invalid value: "${String(raw).slice(0, 40)}": must be the id of an event of this stream (a sequence number)`,
    );
  return Number(raw);
}

function required(q: URLSearchParams, name: string): string {
  const v = q.get(name);
  if (!v) throw new BadRequestError(`query parameter "${name}" is required`);
  return v;
}

function pageRequest(q: URLSearchParams) {
  try {
    return parsePageRequest({ page: q.get('page'), pageSize: q.get('pageSize') });
  } catch (err) {
    throw new BadRequestError((err as Error).message);
  }
}

const PACKAGE_DIR = fileURLToPath(DASHBOARD_PACKAGE_URL);

/** What `pnpm run build` bundles into the dashboard's dist/ (packages/dashboard/scripts/bundle.mjs). */
const BUILT_FILES = new Set(['app.js', 'app.js.map', 'dashboard.css']);

/**
 * The file a dashboard URL names, or undefined: `/dashboard/` is the page, `/dashboard/js/app.js` its bundled browser
 * module (and source map), `/dashboard/js/dashboard.css` its bundled style. Nothing else is ever served.
 */
export function dashboardFile(pathname: string, packageDir = PACKAGE_DIR): string | undefined {
  if (pathname === DASHBOARD_PATH || pathname === `${DASHBOARD_PATH}/`) return join(packageDir, 'static', 'index.html');
  const prefix = `${DASHBOARD_PATH}/js/`;
  const built = pathname.startsWith(prefix) ? pathname.slice(prefix.length) : undefined;
  return built !== undefined && BUILT_FILES.has(built) ? join(packageDir, 'dist', built) : undefined;
}

/**
 * The page and its assets, served without a token: they hold no data (every read the page makes carries the
 * token the person signed in with).
 */
export async function sendDashboardFile(pathname: string, res: ServerResponse): Promise<void> {
  const file = dashboardFile(pathname);
  if (!file) throw new NoSuchPathError(pathname);
  let body: Buffer;
  try {
    body = await readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new NoSuchPathError(pathname);
    throw err;
  }
  res.writeHead(200, {
    'content-type': CONTENT_TYPES[extname(file)]!,
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
  });
  res.end(body);
}
