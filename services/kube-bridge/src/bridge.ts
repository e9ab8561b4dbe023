import { formatTime, ReservedNamespaces } from '@flotilla/api';
import { Controllers } from '@flotilla/catalogue';
import { type Bus, getJson, publishEvent } from '@flotilla/bus';
import {
  ConflictError,
  type GatewayClient,
  InvalidError,
  isNotFound as isGatewayNotFound,
  type StoredLike,
} from '@flotilla/client';
import {
  type Controller,
  type ControllerQueue,
  defineController,
  type ReconcileResult,
  type Watch,
  type WatchEvent,
} from '@flotilla/controller';
import {
  type Informer,
  type Informers,
  type KubeEvent,
  objectKey,
  type ObjectRef,
  refFromKey,
  type StatusRecord,
} from '@flotilla/store';
import {
  describeKubeError,
  isConflict,
  isNotFound,
  KubeInformer,
  listWatchOf,
  type ReadinessSink,
} from '@flotilla/kube-client';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import {
  type CachedObject,
  type CachedStatus,
  cachedHostObject,
  FLOTILLA_OBJECT_PROJECTION,
  FLOTILLA_STATUS_PROJECTION,
} from './cached.js';
import {
  admittedContent,
  type AnyObject,
  contentDigest,
  flotillaBody,
  hostBody,
  mirrorContent,
  statusDigest,
} from './content.js';
import {
  conflictMessage,
  decideMirror,
  decideReserved,
  decideStatus,
  type MirrorConflict,
  type MirrorDecision,
  type SideView,
  type SyncRecord,
} from './decide.js';
import { bridgeEvent, CONTROLLER_NAME, mirroredEvent } from './events.js';
import { decideFinalizer, isDeleting, withMirrorFinalizer } from './finalizer.js';
import type { HostApi } from './host-api.js';
import type { HostConnectionListener } from './host-connection.js';
import { MIRRORED_KINDS, type MirroredKind, mirroredKind, POLICY_KINDS } from './kinds.js';
import type { KubeBridgeMetrics } from './metrics.js';
import type { SyncRecords } from './sync-records.js';
import { isSelectedTemplate } from './templates.js';

export { CONTROLLER_NAME };

/** How long a key waits before it is looked at again when a cache is behind (the bridge's own write, a first list). */
const WAIT_REQUEUE_MS = 1000;

export interface KubeBridgeOptions {
  /**
   * The process's shared informers (openInformers: the service's logger, registry and readiness gates), over
   * Flotilla's objects, status and events buckets: each closes its gate (`informer <bucket>/<kind>`) until it is
   * listed, so the bridge is not ready before every cache it decides by is whole.
   */
  informers: Informers;
  /** Flotilla's buckets, read right before a write that needs more than a cache keeps; the event stream. */
  bus: Bus;
  /** Write side of Flotilla: every object goes in through the gateway, so admission runs on it. */
  gateway: GatewayClient;
  host: HostApi;
  records: SyncRecords;
  /** Per Flotilla event (its key in the events bucket), the digest of what was last written to the host. */
  eventRecords: SyncRecords<string>;
  connection: HostConnectionListener;
  /** The service's readiness gates: each host kind's cache holds one (`kube-informer:host/<Kind>`) until it is listed. */
  readiness?: ReadinessSink;
  logger: Logger;
  metrics: KubeBridgeMetrics;
  /** The service's registry: the kit's reconcile, queue and object metrics under `kube-bridge`. */
  registry?: Registry;
  /** Objects reconciled at once. */
  concurrency: number;
  /** Every object is reconsidered this often, whatever its watches said. */
  resyncMs: number;
  /** First wait before a failed reconcile or a lost list-and-watch is tried again, doubled per failure up to maxMs. */
  backoff: { initialMs: number; maxMs: number };
  /** Names this replica in the events it writes (reportingInstance). */
  instance: string;
  /** Namespaces mirrored neither way (RESERVED_NAMESPACES); the defaults, `kube-*` and `flotilla-system`, by default. */
  reservedNamespaces?: ReservedNamespaces;
  now?: () => Date;
}

/** The Warning event's reason on a host object in a reserved namespace. */
export const RESERVED_NAMESPACE_REASON = 'ReservedNamespace';

interface FlotillaKind {
  objects: Informer<CachedObject>;
  status: Informer<CachedStatus>;
}

/** What a reconcile read of an object (both caches and the sync record) before it decided. */
interface MirrorRead {
  /** The host's copy; undefined while it is absent or being deleted there. */
  hostObject: CachedObject | undefined;
  flotillaObject: CachedObject | undefined;
  hostView: SideView | undefined;
  flotillaView: SideView | undefined;
  record: SyncRecord | undefined;
}

/** What settles the finalizer of a kind users write, after the spec action. */
interface FinalizerState {
  /** The host's copy as the cache held it before the action (also while being deleted). */
  cached: CachedObject | undefined;
  /** Whether Flotilla still holds its copy: the finalizer stays on while it does. */
  inFlotilla: boolean;
  /** Both sides' copy after the action, when both hold it; its host object and record follow a finalizer write. */
  after: Mirrored | undefined;
}

/** An object both sides hold after a spec action: the host's copy as it now is, and the record that says so. */
interface Mirrored {
  hostObject: AnyObject;
  record: SyncRecord;
}

/**
 * Mirrors Flotilla's kinds between a host Kubernetes API server and Flotilla, one key (`Kind.namespace.name`) at a
 * time: read both caches and the sync record, decide (decideMirror, decideStatus), make at most one spec write and
 * one status write, record the resourceVersions they produced. Level-triggered: any event of either side, and a
 * periodic resync, queue the key; a lost event or a restart only delays a reconcile.
 */
export class KubeBridge {
  /** The objects: spec both ways, status back. */
  readonly controller: Controller;
  /** Flotilla's Kubernetes-style events, written to the host as core/v1 Events: a controller of their own. */
  readonly eventController: Controller;
  private readonly kubeEvents: Informer<KubeEvent>;
  private readonly hostInformers = new Map<string, KubeInformer<CachedObject>>();
  private readonly flotilla = new Map<string, FlotillaKind>();
  /**
   * Per host object (its key), the events that found it missing from the host cache: the host's watch event for the
   * object brings them back. The bridge's own write of a new binding shows in that cache only when its watch event
   * arrives, usually after the binding's first events were looked at; without this they waited for a resync.
   */
  private readonly eventsAwaitingHost = new Map<string, Set<string>>();
  /** Host resourceVersion at which admission refused an object: reported once, tried again when it changes. */
  private readonly rejected = new Map<string, string>();
  /** Host uid of each object in a reserved namespace that was told why it is not mirrored (decideReserved). */
  private readonly toldReserved = new Map<string, string>();
  private readonly reserved: ReservedNamespaces;
  private readonly now: () => Date;

  constructor(private readonly opts: KubeBridgeOptions) {
    this.now = opts.now ?? (() => new Date());
    this.reserved = opts.reservedNamespaces ?? ReservedNamespaces.defaults;
    const watches: Watch[] = [];
    for (const kind of MIRRORED_KINDS) {
      const objects = opts.informers.objects(kind.info.kind, FLOTILLA_OBJECT_PROJECTION);
      const status = opts.informers.status(kind.info.kind, FLOTILLA_STATUS_PROJECTION);
      const { info } = kind;
      // The host's JSON as it is (timestamps stay strings), each object reduced to what the bridge decides by; keyed
      // by Flotilla's object key (`Kind.namespace.name`), as the Flotilla side is.
      const host = new KubeInformer<CachedObject>({
        client: listWatchOf(opts.host.api, info),
        request: { group: info.group, resource: info.plural },
        name: info.kind,
        server: 'host',
        project: (o) => cachedHostObject(o as AnyObject, info.apiVersion, info.kind),
        key: (o) => objectKey({ kind: info.kind, namespace: o.metadata?.namespace, name: o.metadata?.name ?? '' }),
        onError: (err) => opts.connection.lost(info.kind, describeKubeError(err)),
        onListed: () => opts.connection.restored(info.kind),
        backoff: { baseMs: opts.backoff.initialMs, maxMs: opts.backoff.maxMs },
        ...(opts.registry ? { registry: opts.registry } : {}),
        ...(opts.readiness ? { readiness: opts.readiness } : {}),
      });
      this.flotilla.set(kind.info.kind, { objects, status });
      this.hostInformers.set(kind.info.kind, host);
      // A policy change can select or release any template: those are looked at again.
      const onChange = POLICY_KINDS.includes(kind.info.kind)
        ? (e: WatchEvent, c: ControllerQueue) => {
            c.enqueue(e.key);
            for (const t of MIRRORED_KINDS.filter((k) => k.template)) for (const k of this.keysOf(t)) c.enqueue(k);
          }
        : undefined;
      for (const source of [host, objects, status]) watches.push({ source, ...(onChange ? { onChange } : {}) });
    }
    const common = {
      concurrency: opts.concurrency,
      baseBackoffMs: opts.backoff.initialMs,
      maxBackoffMs: opts.backoff.maxMs,
      logger: opts.logger,
      registry: opts.registry,
    };
    this.controller = defineController({
      ...common,
      name: CONTROLLER_NAME,
      watches,
      reconcile: (key) => this.reconcile(key),
      // A failed mirror is a Warning event on Flotilla's object (and from there on the host's, by the event controller).
      failureEvents: { publish: (e) => publishEvent(opts.bus, e), objectOf: refFromKey },
      // Every object of either side, and those only the records remember (deleted on both sides while away).
      keys: () => new Set([...MIRRORED_KINDS.flatMap((k) => [...this.keysOf(k)]), ...opts.records.keys()]),
      resyncMs: opts.resyncMs,
      onStart: async () => {
        await opts.records.load();
        opts.metrics.watchObjects(() => opts.records.size);
      },
    });
    this.kubeEvents = opts.informers.kubeEvents<KubeEvent>('*');
    // An object arriving in a host cache releases the events that were waiting for it.
    const hostArrivals: Watch[] = [...this.hostInformers.values()].map((source) => ({
      source,
      onChange: (e: WatchEvent, c: ControllerQueue) => {
        const waiting = e.type === 'upsert' ? this.eventsAwaitingHost.get(e.key) : undefined;
        if (!waiting) return;
        this.eventsAwaitingHost.delete(e.key);
        for (const key of waiting) c.enqueue(key);
      },
    }));
    this.eventController = defineController({
      ...common,
      name: Controllers.kubeBridgeEvents,
      watches: [{ source: this.kubeEvents }, ...hostArrivals],
      reconcile: (key) => this.reconcileEvent(key),
      resyncMs: opts.resyncMs,
      onStart: () => opts.eventRecords.load(),
    });
  }

  /** Lists both sides, then reconciles every object once and follows changes (the kit's start). */
  async start(): Promise<void> {
    await this.controller.start();
    await this.eventController.start();
  }

  async stop(): Promise<void> {
    await Promise.all([this.controller.stop(), this.eventController.stop()]);
    this.opts.metrics.forget();
  }

  /** Resolves when no key is queued or running. */
  async idle(): Promise<void> {
    await Promise.all([this.controller.idle(), this.eventController.idle()]);
  }

  private keysOf(kind: MirroredKind): Set<string> {
    const keys = new Set<string>(this.hostInformers.get(kind.info.kind)?.keys() ?? []);
    for (const key of this.flotilla.get(kind.info.kind)?.objects.keys() ?? []) keys.add(key);
    return keys;
  }

  /** One of Flotilla's events onto its host object, unless the host has it as it is already. */
  private async reconcileEvent(key: string): Promise<ReconcileResult> {
    const event = this.kubeEvents.cache.get(key)?.value;
    if (!event) return undefined;
    const kind = MIRRORED_KINDS.find((k) => k.info.kind === event.involvedObject.kind);
    if (!kind) return undefined;
    const host = this.hostInformers.get(kind.info.kind)!;
    if (!host.synced) return { requeueAfterMs: WAIT_REQUEUE_MS };
    const hostObject = host.get(
      objectKey({ kind: kind.info.kind, namespace: event.involvedObject.namespace, name: event.involvedObject.name }),
    );
    if (!hostObject) {
      // Not in the host cache (yet): its watch event there brings the event back (no await since the look: the
      // watch event cannot slip in between).
      const objectKeyOnHost = objectKey({
        kind: kind.info.kind,
        namespace: event.involvedObject.namespace,
        name: event.involvedObject.name,
      });
      const waiting = this.eventsAwaitingHost.get(objectKeyOnHost) ?? new Set<string>();
      waiting.add(key);
      this.eventsAwaitingHost.set(objectKeyOnHost, waiting);
      return undefined;
    }
    const digest = statusDigest({ event, uid: hostObject.metadata?.uid });
    if (this.opts.eventRecords.get(key) === digest) return undefined;
    await this.hostWrite('event', () =>
      this.opts.host.applyEvent(mirroredEvent(event, key, hostObject, kind.info.apiVersion, this.opts.instance)),
    );
    await this.opts.eventRecords.set(key, digest);
    return undefined;
  }

  /** Queues the events Flotilla holds about an object: after it reached the host, they can follow. */
  private eventsFollow(ref: ObjectRef): void {
    const prefix = `${objectKey(ref)}.`;
    for (const key of this.kubeEvents.keys()) if (key.startsWith(prefix)) this.eventController.enqueue(key);
  }

  /**
   * 0. wait for the host's first list; 1. read both sides; skip what is not mirrored; 2. decide; 3. write the spec
   * and settle the finalizer; 4. write the status; 5. record.
   */
  private async reconcile(key: string): Promise<ReconcileResult> {
    const ref = refFromKey(key);
    const kind = mirroredKind(ref.kind);
    const hostInformer = this.hostInformers.get(ref.kind)!;
    const flotilla = this.flotilla.get(ref.kind)!;
    // 0. Until the host's first list, a missing object would read as deleted there.
    if (!hostInformer.synced) return { requeueAfterMs: WAIT_REQUEUE_MS };
    // 1. Read. An object being deleted on the host is gone as far as mirroring goes.
    const cached = hostInformer.get(key);
    const deleting = isDeleting(cached);
    const hostObject = deleting ? undefined : cached;
    const flotillaObject = flotilla.objects.get(ref);
    if (kind.template && !this.selected(hostObject ?? flotillaObject)) {
      await this.releaseUnmirrored(kind, ref, cached);
      return undefined;
    }
    if (await this.refuseReserved(kind, ref, key, { cached, hostObject })) return undefined;
    const record = this.opts.records.get(key);
    const hostView = hostObject && {
      resourceVersion: hostObject.metadata.resourceVersion!,
      digest: hostObject.contentDigest,
    };
    const flotillaView = flotillaObject && {
      resourceVersion: flotillaObject.metadata.resourceVersion!,
      digest: flotillaObject.contentDigest,
    };
    // 2. Decide.
    const decision = decideMirror({
      owner: kind.owner,
      host: hostView,
      flotilla: flotillaView,
      record,
      hostSeen: hostInformer.seen,
      flotillaSeen: String(flotilla.objects.revision),
      hostDeleting: deleting,
    });
    this.opts.logger.debug({ key, action: decision.action.type, reason: decision.reason }, 'mirror decision');
    // The watch event of the bridge's own write brings the key back; the requeue is in case it never comes.
    if (decision.action.type === 'wait') return { requeueAfterMs: WAIT_REQUEUE_MS };
    // 3. The spec, and the finalizer that holds a host deletion until Flotilla's copy is gone.
    const read: MirrorRead = { hostObject, flotillaObject, hostView, flotillaView, record };
    const after = await this.mirrorSpec(kind, ref, key, decision, read);
    if (decision.action.type === 'to-host' || decision.action.type === 'to-flotilla') this.eventsFollow(ref);
    if (kind.owner === 'shared') {
      const flotillaGone = decision.action.type === 'delete-flotilla' || flotillaObject === undefined;
      await this.settleFinalizer(kind, ref, key, { cached, inFlotilla: deleting ? !flotillaGone : !!after, after });
    }
    if (!after) return undefined;
    // 4–5. The status, and its record.
    await this.statusToHost(kind, ref, key, after);
    return undefined;
  }

  /**
   * An object the bridge does not mirror (a template no policy selects, one in a reserved namespace): its finalizer,
   * put on while it was mirrored, must not hold a deletion the bridge will not carry out.
   */
  private async releaseUnmirrored(kind: MirroredKind, ref: ObjectRef, cached: CachedObject | undefined): Promise<void> {
    if (decideFinalizer({ host: cached, mirrored: false, inFlotilla: false }) === 'remove')
      await this.setFinalizer(kind, ref, cached!, 'remove');
  }

  /**
   * An object in a reserved namespace is mirrored neither way; the host object says why, once (decideReserved).
   * Returns whether it was refused.
   */
  private async refuseReserved(
    kind: MirroredKind,
    ref: ObjectRef,
    key: string,
    { cached, hostObject }: { cached: CachedObject | undefined; hostObject: CachedObject | undefined },
  ): Promise<boolean> {
    const reserved = decideReserved({
      refusal: this.reserved.refusal(ref.namespace),
      owner: kind.owner,
      hostUid: hostObject?.metadata?.uid,
      toldUid: this.toldReserved.get(key),
    });
    if (reserved.type === 'mirror') return false;
    if (!hostObject) this.toldReserved.delete(key);
    if (reserved.tell) {
      this.toldReserved.set(key, hostObject!.metadata!.uid!);
      this.opts.logger.warn({ key }, reserved.message);
      await this.event(kind, hostObject!, 'Warning', RESERVED_NAMESPACE_REASON, reserved.message);
    }
    // A finalizer put on before the namespace was reserved.
    await this.releaseUnmirrored(kind, ref, cached);
    return true;
  }

  /**
   * The finalizer of a kind users write: on while both sides hold the object, off once Flotilla's copy is gone from
   * one being deleted. A change moves the host object's resourceVersion, which the record then holds.
   */
  private async settleFinalizer(
    kind: MirroredKind,
    ref: ObjectRef,
    key: string,
    { cached, inFlotilla, after }: FinalizerState,
  ): Promise<void> {
    const host = after?.hostObject ?? cached;
    const change = decideFinalizer({ host, mirrored: true, inFlotilla });
    if (change === 'none') return;
    const written = await this.setFinalizer(kind, ref, host!, change);
    if (after && written) {
      after.hostObject = written;
      after.record = { ...after.record, host: written.metadata!.resourceVersion! };
      await this.opts.records.set(key, after.record);
    }
  }

  /**
   * Flotilla's status onto the host object as it now is, unless the record says it is there (decideStatus): read
   * from Flotilla's bucket, the cache holds its digest only. The record then holds what the write made of the object.
   */
  private async statusToHost(kind: MirroredKind, ref: ObjectRef, key: string, after: Mirrored): Promise<void> {
    const statusDecision = decideStatus({
      statusDigest: this.flotilla.get(ref.kind)!.status.get(ref)?.digest,
      hostUid: after.hostObject.metadata?.uid,
      record: after.record,
    });
    if (!statusDecision.write) return;
    const status = (await getJson<StatusRecord>(this.opts.bus.status, key))?.value.status;
    // Gone since the cache saw it: its watch event brings the key back.
    if (status === undefined) return;
    const written = await this.hostWrite('status', () => this.opts.host.applyStatus(kind.info, ref, status));
    await this.opts.records.set(key, {
      ...after.record,
      host: written.metadata!.resourceVersion!,
      hostUid: written.metadata!.uid!,
      status: statusDigest(status),
    });
  }

  /**
   * Carries out a spec decision, one function per action. Returns the host object and the record as they stand
   * afterwards when both sides hold the object (so its status can follow), undefined otherwise.
   */
  private async mirrorSpec(
    kind: MirroredKind,
    ref: ObjectRef,
    key: string,
    decision: MirrorDecision,
    read: MirrorRead,
  ): Promise<Mirrored | undefined> {
    const { action, conflict } = decision;
    if (conflict) {
      this.opts.metrics.conflicts.inc({ kind: kind.info.kind });
      this.opts.logger.warn({ key, ...conflict }, 'changed on both sides');
    }
    switch (action.type) {
      case 'wait':
        return undefined;
      case 'none':
        return read.hostObject && read.flotillaObject && read.record
          ? { hostObject: read.hostObject, record: read.record }
          : undefined;
      case 'forget':
        await this.opts.records.delete(key);
        return undefined;
      case 'record':
        return this.recordInSync(key, read);
      case 'to-flotilla':
        return this.copyToFlotilla(kind, ref, key, { expect: action.expect, conflict }, read);
      case 'to-host':
        return this.copyToHost(kind, ref, key, action.expect, read);
      case 'delete-flotilla':
        await this.deleteInFlotilla(ref, key, { expect: action.expect, conflict }, read);
        return undefined;
      case 'delete-host':
        await this.deleteOnHost(kind, ref, key, action.expect);
        return undefined;
    }
  }

  /** Both sides hold the same content: the record takes both resourceVersions and digests, nothing is written. */
  private async recordInSync(key: string, read: MirrorRead): Promise<Mirrored> {
    const next = {
      ...this.hostVersion(read.hostObject!, read.record),
      flotilla: read.flotillaView!.resourceVersion,
      hostContent: read.hostView!.digest,
      flotillaContent: read.flotillaView!.digest,
    };
    await this.opts.records.set(key, next);
    return { hostObject: read.hostObject!, record: next };
  }

  /**
   * The host's copy into Flotilla, through the gateway's admission. A refusal is a Warning event on the host object,
   * reported once per host resourceVersion; a conflict resolved for the host is one too.
   */
  private async copyToFlotilla(
    kind: MirroredKind,
    ref: ObjectRef,
    key: string,
    { expect, conflict }: { expect: string | undefined; conflict: MirrorConflict | undefined },
    read: MirrorRead,
  ): Promise<Mirrored | undefined> {
    const { hostObject, hostView, record } = read;
    // The cache keeps a digest: the content is read again, and must be what was decided on.
    const current = await this.opts.host.get(kind.info, ref);
    if (current?.metadata?.resourceVersion !== hostView!.resourceVersion) return undefined; // its watch event follows
    const hostRv = hostView!.resourceVersion;
    if (this.rejected.get(key) === hostRv) return undefined;
    let stored: StoredLike;
    try {
      // A new copy takes the host object's uid and creationTimestamp: one identity on both sides.
      const identity = {
        uid: current.metadata!.uid!,
        creationTimestamp: String(current.metadata!.creationTimestamp),
      };
      const reply = await this.flotillaWrite('apply', () =>
        this.opts.gateway.apply(flotillaBody(mirrorContent(current), expect), { identity }),
      );
      stored = reply.object;
    } catch (err) {
      if (!(err instanceof InvalidError)) throw err;
      // Admission refused what a user put on the host: say so on the object, and wait for it to change.
      this.rejected.set(key, hostRv);
      await this.event(kind, hostObject!, 'Warning', 'MirrorRejected', err.message);
      return undefined;
    }
    this.rejected.delete(key);
    const next = {
      ...this.hostVersion(hostObject!, record),
      flotilla: String(stored.metadata.resourceVersion),
      hostContent: hostView!.digest,
      flotillaContent: contentDigest(mirrorContent(stored as AnyObject)),
    };
    await this.opts.records.set(key, next);
    if (conflict) await this.event(kind, hostObject!, 'Warning', 'MirrorConflict', conflictMessage(conflict));
    return { hostObject: hostObject!, record: next };
  }

  /**
   * Flotilla's copy onto the host: server-side applied for a kind Flotilla owns; created or replaced (a
   * compare-and-set on `expect`) with the bridge's finalizer for a kind users write.
   */
  private async copyToHost(
    kind: MirroredKind,
    ref: ObjectRef,
    key: string,
    expect: string | undefined,
    read: MirrorRead,
  ): Promise<Mirrored | undefined> {
    const { hostObject, hostView, flotillaView, record } = read;
    // Both sides read again as they are (the caches keep digests); a cache behind them waits for its watch event.
    const stored = await getJson<AnyObject>(this.opts.bus.objects, key);
    if (String(stored?.revision) !== flotillaView!.resourceVersion) return undefined;
    const current = hostObject && (await this.opts.host.get(kind.info, ref));
    if (current?.metadata?.resourceVersion !== hostView?.resourceVersion) return undefined;
    const content = mirrorContent(stored!.value);
    // What the bridge writes to the host for a kind users write carries its finalizer from the start.
    const withFinalizer = (body: AnyObject) => {
      body.metadata!.finalizers = withMirrorFinalizer(body.metadata!.finalizers, 'add');
      return body;
    };
    const written = await this.hostWrite('spec', () =>
      kind.owner === 'flotilla'
        ? this.opts.host.apply(kind.info, hostBody(content, current))
        : expect === undefined
          ? this.opts.host.create(kind.info, withFinalizer(hostBody(content, undefined)))
          : this.opts.host.replace(kind.info, withFinalizer(hostBody(content, current, expect))),
    );
    const next = {
      ...this.hostVersion(written, record),
      flotilla: flotillaView!.resourceVersion,
      hostContent: contentDigest(admittedContent(written)),
      flotillaContent: flotillaView!.digest,
    };
    await this.opts.records.set(key, next);
    return { hostObject: written, record: next };
  }

  /** Deleted (or being deleted) on the host: Flotilla's copy goes too, a compare-and-set on `expect`. */
  private async deleteInFlotilla(
    ref: ObjectRef,
    key: string,
    { expect, conflict }: { expect: string; conflict: MirrorConflict | undefined },
    read: MirrorRead,
  ): Promise<void> {
    try {
      await this.flotillaWrite('delete', () => this.opts.gateway.delete(ref.kind, ref.name, ref.namespace, expect));
    } catch (err) {
      if (!isGatewayNotFound(err)) throw err;
    }
    await this.opts.records.delete(key);
    if (conflict && read.hostObject === undefined)
      this.opts.logger.warn({ key, message: conflictMessage(conflict) }, 'deleted on the host');
  }

  /** Deleted in Flotilla: the host's copy goes too, a compare-and-set on `expect`. */
  private async deleteOnHost(kind: MirroredKind, ref: ObjectRef, key: string, expect: string): Promise<void> {
    try {
      await this.hostWrite('delete', () => this.opts.host.delete(kind.info, ref, expect));
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    await this.opts.records.delete(key);
  }

  /**
   * The record's host side after a write made `o` of the host object: its resourceVersion and uid, and the digest of
   * the status last written to it while it is the same object (same uid).
   */
  private hostVersion(o: AnyObject, record: SyncRecord | undefined): Pick<SyncRecord, 'host' | 'hostUid' | 'status'> {
    return {
      host: o.metadata!.resourceVersion!,
      hostUid: o.metadata!.uid!,
      ...(record?.hostUid === o.metadata!.uid && record?.status ? { status: record.status } : {}),
    };
  }

  /**
   * Puts the bridge's finalizer on a host object or takes it off, a compare-and-set on the version the cache holds
   * (a 409 retries with the newer one). Returns the object as written; undefined when it is gone already.
   */
  private async setFinalizer(
    kind: MirroredKind,
    ref: ObjectRef,
    host: AnyObject,
    change: 'add' | 'remove',
  ): Promise<AnyObject | undefined> {
    const finalizers = withMirrorFinalizer(host.metadata?.finalizers, change);
    try {
      return await this.hostWrite('finalizer', () =>
        this.opts.host.setFinalizers(kind.info, ref, finalizers, host.metadata!.resourceVersion!),
      );
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  private selected(template: AnyObject | undefined): boolean {
    if (!template) return false;
    const policies = new Map<string, AnyObject>();
    for (const kindName of POLICY_KINDS) {
      for (const p of this.flotilla.get(kindName)?.objects.values() ?? []) policies.set(objectKey(refOfObject(p)), p);
      for (const [key, p] of this.hostInformers.get(kindName)!.cache) policies.set(key, p);
    }
    return isSelectedTemplate(template, [...policies.values()]);
  }

  private async hostWrite<T>(
    what: 'spec' | 'status' | 'delete' | 'event' | 'finalizer',
    write: () => Promise<T>,
  ): Promise<T> {
    // A failure is retried with backoff; a 409 is a lost compare-and-set, and the watch brings the newer object.
    // An unreachable host shows in readiness through the watches, which break at the same time.
    const result = await write().catch((err: unknown) => {
      if (isConflict(err)) this.opts.metrics.lostWrites.inc({ side: 'host' });
      throw err;
    });
    this.opts.metrics.writes.inc({ side: 'host', write: what });
    return result;
  }

  private async flotillaWrite<T>(what: 'apply' | 'delete', write: () => Promise<T>): Promise<T> {
    const result = await write().catch((err: unknown) => {
      if (err instanceof ConflictError) this.opts.metrics.lostWrites.inc({ side: 'flotilla' });
      throw err;
    });
    this.opts.metrics.writes.inc({ side: 'flotilla', write: what });
    return result;
  }

  /** The bridge's own event on a host object; written once however often the write is retried. */
  private async event(
    kind: MirroredKind,
    object: AnyObject,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
  ): Promise<void> {
    const event = bridgeEvent(object, kind.info.apiVersion, kind.info.kind, {
      type,
      reason,
      message,
      at: formatTime(this.now()),
      instance: this.opts.instance,
    });
    await this.hostWrite('event', () => this.opts.host.applyEvent(event)).catch((err: unknown) =>
      this.opts.logger.warn({ reason, err: describeKubeError(err) }, 'could not write an event to the host'),
    );
  }
}

function refOfObject(o: AnyObject): ObjectRef {
  return { kind: o.kind ?? '', namespace: o.metadata?.namespace, name: o.metadata?.name ?? '' };
}
