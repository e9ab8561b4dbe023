import { Controllers } from '@flotilla/catalogue';
import { createHash } from 'node:crypto';
import { formatTime } from '@flotilla/api';
import type { Bus } from '@flotilla/bus';
import { ConflictError, type GatewayClient, InvalidError, NotFoundError } from '@flotilla/client';
import { type ReconcileResult, WorkQueue } from '@flotilla/controller';
import { Informer, objectKey, type ObjectRef, refFromKey, type StatusRecord, type StoredObject } from '@flotilla/store';
import type { Logger } from 'pino';
import { type AnyObject, flotillaBody, hostBody, mirrorContent } from './content.js';
import { conflictMessage, decideMirror, decideStatus, type MirrorDecision, type SyncRecord } from './decide.js';
import { type HostApi, type HostEvent, hostStatusCode } from './host-api.js';
import { type Backoff, describeError, type HostConnectionListener, HostInformer } from './host-informer.js';
import { MIRRORED_KINDS, type MirroredKind, mirroredKind, POLICY_KINDS } from './kinds.js';
import type { KubeBridgeMetrics } from './metrics.js';
import type { SyncRecords } from './sync-records.js';
import { isSelectedTemplate } from './templates.js';

/** The name events and metrics carry (Karmada's ControllerName). */
export const CONTROLLER_NAME = Controllers.kubeBridge;

/** How long a key whose cache is behind the bridge's own last write waits before it is looked at again. */
const WAIT_REQUEUE_MS = 1000;

export interface KubeBridgeOptions {
  /** Read side of Flotilla: the objects and status buckets, followed by informers. */
  bus: Bus;
  /** Write side of Flotilla: every object goes in through the gateway, so admission runs on it. */
  gateway: GatewayClient;
  host: HostApi;
  records: SyncRecords;
  connection: HostConnectionListener;
  logger: Logger;
  metrics: KubeBridgeMetrics;
  /** Objects reconciled at once. */
  concurrency: number;
  /** Every object is reconsidered this often, whatever its watches said. */
  resyncMs: number;
  backoff: Backoff;
  /** Names this replica in the events it writes (reportingInstance). */
  instance: string;
  now?: () => Date;
}

interface FlotillaKind {
  objects: Informer;
  status: Informer<StatusRecord>;
}

/**
 * Mirrors Flotilla's kinds between a host Kubernetes API server and Flotilla, one key (`Kind.namespace.name`) at a
 * time: read both caches and the sync record, decide (decideMirror, decideStatus), make at most one spec write and
 * one status write, record the resourceVersions they produced. Level-triggered: any event of either side, and a
 * periodic resync, queue the key; a lost event or a restart only delays a reconcile.
 */
export class KubeBridge {
  private readonly queue: WorkQueue;
  private readonly hostInformers = new Map<string, HostInformer>();
  private readonly flotilla = new Map<string, FlotillaKind>();
  /** Host resourceVersion at which admission refused an object: reported once, tried again when it changes. */
  private readonly rejected = new Map<string, string>();
  private resyncTimer: NodeJS.Timeout | undefined;
  private readonly now: () => Date;

  constructor(private readonly opts: KubeBridgeOptions) {
    this.now = opts.now ?? (() => new Date());
    this.queue = new WorkQueue((key) => this.reconcile(key), {
      concurrency: opts.concurrency,
      baseBackoffMs: opts.backoff.initialMs,
      maxBackoffMs: opts.backoff.maxMs,
      observer: opts.metrics.reconciles,
      onError: (key, err, attempt) =>
        opts.logger.warn({ key, attempt, err: describeError(err) }, 'mirror failed; retrying with backoff'),
    });
  }

  async start(): Promise<void> {
    this.opts.metrics.track(this.queue);
    await this.opts.records.load();
    for (const kind of MIRRORED_KINDS) {
      const enqueue = (e: { key: string }) => this.changed(kind, e.key);
      const objects = new Informer({ bus: this.opts.bus, bucket: 'objects', kind: kind.info.kind, onEvent: enqueue });
      const status = new Informer<StatusRecord>({
        bus: this.opts.bus,
        bucket: 'status',
        kind: kind.info.kind,
        onEvent: enqueue,
      });
      this.flotilla.set(kind.info.kind, { objects, status });
      this.hostInformers.set(
        kind.info.kind,
        new HostInformer({
          info: kind.info,
          api: this.opts.host,
          connection: this.opts.connection,
          backoff: this.opts.backoff,
          onChange: (o) => this.changed(kind, hostKey(kind, o)),
        }),
      );
    }
    await Promise.all([...this.flotilla.values()].flatMap((f) => [f.objects.start(), f.status.start()]));
    await Promise.all([...this.hostInformers.values()].map((h) => h.start()));
    this.opts.metrics.watchObjects(() => this.opts.records.size);
    for (const key of this.opts.records.keys()) this.queue.addBackground(key);
    this.scheduleResync();
  }

  async stop(): Promise<void> {
    clearTimeout(this.resyncTimer);
    await Promise.all([...this.hostInformers.values()].map((h) => h.stop()));
    for (const f of this.flotilla.values()) {
      f.objects.stop();
      f.status.stop();
    }
    await this.queue.stop();
    this.opts.metrics.forget();
  }

  /** Resolves when no key is queued or running. */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  private changed(kind: MirroredKind, key: string): void {
    this.queue.add(key);
    // A policy change can select or release any template: look at every one again.
    if (POLICY_KINDS.includes(kind.info.kind))
      for (const t of MIRRORED_KINDS.filter((k) => k.template))
        for (const k of this.keysOf(t)) this.queue.addBackground(k);
  }

  private scheduleResync(): void {
    this.resyncTimer = setTimeout(() => {
      for (const kind of MIRRORED_KINDS) for (const key of this.keysOf(kind)) this.queue.addBackground(key);
      this.scheduleResync();
    }, this.opts.resyncMs);
    this.resyncTimer.unref();
  }

  private keysOf(kind: MirroredKind): Set<string> {
    const keys = new Set<string>();
    for (const o of this.hostInformers.get(kind.info.kind)?.list() ?? []) keys.add(hostKey(kind, o));
    for (const key of this.flotilla.get(kind.info.kind)?.objects.cache.keys() ?? []) keys.add(key);
    return keys;
  }

  /** 1. read both sides and the record; 2. decide; 3. write the spec; 4. write the status; 5. record. */
  private async reconcile(key: string): Promise<ReconcileResult> {
    const ref = refFromKey(key);
    const kind = mirroredKind(ref.kind);
    const hostInformer = this.hostInformers.get(ref.kind)!;
    const flotilla = this.flotilla.get(ref.kind)!;
    // 1. Read. An object being deleted on the host is gone as far as mirroring goes.
    const cached = hostInformer.get(ref.name, ref.namespace);
    const hostObject = cached?.metadata?.deletionTimestamp ? undefined : cached;
    const flotillaObject = flotilla.objects.get(ref);
    if (kind.template && !this.selected((hostObject ?? flotillaObject) as AnyObject | undefined)) return undefined;
    const record = this.opts.records.get(key);
    const decision = decideMirror({
      owner: kind.owner,
      host: hostObject && {
        resourceVersion: hostObject.metadata!.resourceVersion!,
        content: mirrorContent(hostObject),
      },
      flotilla: flotillaObject && {
        resourceVersion: flotillaObject.metadata.resourceVersion!,
        content: mirrorContent(flotillaObject as AnyObject),
      },
      record,
      hostSeen: hostInformer.seen,
      flotillaSeen: String(flotilla.objects.revision),
    });
    this.opts.logger.debug({ key, action: decision.action.type, reason: decision.reason }, 'mirror decision');
    // The watch event of the bridge's own write brings the key back; the requeue is in case it never comes.
    if (decision.action.type === 'wait') return { requeueAfterMs: WAIT_REQUEUE_MS };
    // 2–3. The spec.
    const after = await this.act(kind, ref, key, decision, { hostObject, flotillaObject, record });
    if (!after) return undefined;
    // 4. The status, onto the host object as it now is.
    const status = flotilla.status.get(ref)?.status;
    const statusDecision = decideStatus({ status, hostUid: after.hostObject.metadata?.uid, record: after.record });
    if (!statusDecision.write) return undefined;
    const written = await this.hostWrite('status', () => this.opts.host.applyStatus(kind.info, ref, status));
    // 5. Record what the status write made of the host object.
    await this.opts.records.set(key, {
      ...after.record,
      host: written.metadata!.resourceVersion!,
      hostUid: written.metadata!.uid!,
      status: statusDecision.digest,
    });
    return undefined;
  }

  /**
   * Carries out a spec decision. Returns the host object and the record as they stand afterwards when both sides
   * hold the object (so its status can follow), undefined otherwise.
   */
  private async act(
    kind: MirroredKind,
    ref: ObjectRef,
    key: string,
    decision: MirrorDecision,
    read: {
      hostObject: AnyObject | undefined;
      flotillaObject: StoredObject | undefined;
      record: SyncRecord | undefined;
    },
  ): Promise<{ hostObject: AnyObject; record: SyncRecord } | undefined> {
    const { hostObject, flotillaObject, record } = read;
    const { action } = decision;
    const records = this.opts.records;
    const hostVersion = (o: AnyObject) => ({
      host: o.metadata!.resourceVersion!,
      hostUid: o.metadata!.uid!,
      ...(record?.hostUid === o.metadata!.uid && record?.status ? { status: record.status } : {}),
    });
    if (decision.conflict) {
      this.opts.metrics.conflicts.inc({ kind: kind.info.kind });
      this.opts.logger.warn({ key, ...decision.conflict }, 'changed on both sides');
    }
    switch (action.type) {
      case 'wait':
        return undefined;
      case 'none':
        return hostObject && flotillaObject && record ? { hostObject, record } : undefined;
      case 'forget':
        await records.delete(key);
        return undefined;
      case 'record': {
        const next = { ...hostVersion(hostObject!), flotilla: flotillaObject!.metadata.resourceVersion! };
        await records.set(key, next);
        return { hostObject: hostObject!, record: next };
      }
      case 'to-flotilla': {
        const hostRv = hostObject!.metadata!.resourceVersion!;
        if (this.rejected.get(key) === hostRv) return undefined;
        let stored: { metadata: { resourceVersion?: unknown } };
        try {
          stored = (await this.flotillaWrite('apply', () =>
            this.opts.gateway.apply(flotillaBody(mirrorContent(hostObject!), action.expect)),
          )) as never;
        } catch (err) {
          if (!(err instanceof InvalidError)) throw err;
          // Admission refused what a user put on the host: say so on the object, and wait for it to change.
          this.rejected.set(key, hostRv);
          await this.event(kind, hostObject!, 'Warning', 'MirrorRejected', err.message);
          return undefined;
        }
        this.rejected.delete(key);
        const next = { ...hostVersion(hostObject!), flotilla: String(stored.metadata.resourceVersion) };
        await records.set(key, next);
        if (decision.conflict)
          await this.event(kind, hostObject!, 'Warning', 'MirrorConflict', conflictMessage(decision.conflict));
        return { hostObject: hostObject!, record: next };
      }
      case 'to-host': {
        const content = mirrorContent(flotillaObject as AnyObject);
        const written = await this.hostWrite('spec', () =>
          kind.owner === 'flotilla'
            ? this.opts.host.apply(kind.info, hostBody(content, hostObject))
            : action.expect === undefined
              ? this.opts.host.create(kind.info, hostBody(content, undefined))
              : this.opts.host.replace(kind.info, hostBody(content, hostObject, action.expect)),
        );
        const next = {
          host: written.metadata!.resourceVersion!,
          hostUid: written.metadata!.uid!,
          flotilla: flotillaObject!.metadata.resourceVersion!,
          ...(record?.hostUid === written.metadata!.uid && record?.status ? { status: record.status } : {}),
        };
        await records.set(key, next);
        return { hostObject: written, record: next };
      }
      case 'delete-flotilla': {
        try {
          await this.flotillaWrite('delete', () =>
            this.opts.gateway.delete(ref.kind, ref.name, ref.namespace, action.expect),
          );
        } catch (err) {
          if (!(err instanceof NotFoundError)) throw err;
        }
        await records.delete(key);
        if (decision.conflict && hostObject === undefined)
          this.opts.logger.warn({ key, message: conflictMessage(decision.conflict) }, 'deleted on the host');
        return undefined;
      }
      case 'delete-host': {
        try {
          await this.hostWrite('delete', () => this.opts.host.delete(kind.info, ref, action.expect));
        } catch (err) {
          if (hostStatusCode(err) !== 404) throw err;
        }
        await records.delete(key);
        return undefined;
      }
    }
  }

  private selected(template: AnyObject | undefined): boolean {
    if (!template) return false;
    const policies = new Map<string, AnyObject>();
    for (const kindName of POLICY_KINDS) {
      const kind = mirroredKind(kindName);
      for (const p of this.flotilla.get(kindName)?.objects.values() ?? []) policies.set(objectKey(refOfObject(p)), p);
      for (const p of this.hostInformers.get(kindName)?.list() ?? []) policies.set(hostKey(kind, p), p);
    }
    return isSelectedTemplate(template, [...policies.values()]);
  }

  private async hostWrite<T>(what: 'spec' | 'status' | 'delete' | 'event', write: () => Promise<T>): Promise<T> {
    // A failure is retried with backoff; a 409 is a lost compare-and-set, and the watch brings the newer object.
    // An unreachable host shows in readiness through the watches, which break at the same time.
    const result = await write().catch((err: unknown) => {
      if (hostStatusCode(err) === 409) this.opts.metrics.lostWrites.inc({ side: 'host' });
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

  /** A core/v1 Event on the host object; its name is derived from the object, reason and message, so it is written once. */
  private async event(
    kind: MirroredKind,
    object: AnyObject,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
  ): Promise<void> {
    const meta = object.metadata!;
    const at = formatTime(this.now());
    const digest = createHash('sha256').update(`${meta.uid}\n${reason}\n${message}`).digest('hex').slice(0, 16);
    const event: HostEvent = {
      metadata: { name: `${meta.name}.${digest}`, namespace: meta.namespace ?? 'default' },
      involvedObject: {
        apiVersion: kind.info.apiVersion,
        kind: kind.info.kind,
        name: meta.name!,
        ...(meta.namespace ? { namespace: meta.namespace } : {}),
        ...(meta.uid ? { uid: meta.uid } : {}),
      },
      type,
      reason,
      message,
      count: 1,
      firstTimestamp: at,
      lastTimestamp: at,
      source: { component: CONTROLLER_NAME },
      reportingComponent: CONTROLLER_NAME,
      reportingInstance: this.opts.instance,
    };
    await this.hostWrite('event', () => this.opts.host.applyEvent(event)).catch((err: unknown) =>
      this.opts.logger.warn({ reason, err: describeError(err) }, 'could not write an event to the host'),
    );
  }
}

function hostKey(kind: MirroredKind, o: AnyObject): string {
  return objectKey({ kind: kind.info.kind, namespace: o.metadata?.namespace, name: o.metadata?.name ?? '' });
}

function refOfObject(o: AnyObject): ObjectRef {
  return { kind: o.kind ?? '', namespace: o.metadata?.namespace, name: o.metadata?.name ?? '' };
}
