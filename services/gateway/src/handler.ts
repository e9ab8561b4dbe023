import { admit, AdmissionError, MAX_OBJECT_BYTES, resolveKind, type KubeObject } from '@flotilla/api';
import { scheduleChecks } from '@flotilla/cron';
import type {
  ApplyReply,
  ApplyRequest,
  DeleteReply,
  DeleteRequest,
  EventsReply,
  EventsRequest,
  GetRequest,
  ListReply,
  ListRequest,
  StoredLike,
} from '@flotilla/client';
import { cloudEvent, EventTypes, type CloudEvent } from '@flotilla/bus';
import { type KubeEventStore, type ObjectStore, refOf, type ObjectRef, type StoredObject } from '@flotilla/store';
import { TooLargeError } from './errors.js';
import { AUTOSCALER_KINDS, scaleTargetConflict } from './scale-target-conflict.js';

/**
 * The gateway's operations over the object store. Admission runs here and only here: what reaches the store has
 * been defaulted and validated, and a rejected object leaves the stored one untouched.
 */
export class GatewayHandler {
  constructor(
    private readonly store: ObjectStore,
    private readonly kubeEvents: KubeEventStore,
    private readonly publish: (e: CloudEvent) => Promise<unknown>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async apply(req: ApplyRequest): Promise<ApplyReply> {
    const size = Buffer.byteLength(JSON.stringify(req.object ?? null));
    if (size > MAX_OBJECT_BYTES) throw new TooLargeError(size, MAX_OBJECT_BYTES);
    const existing = await this.existingFor(req.object);
    const admitted = admit(req.object, {
      schedules: scheduleChecks,
      ...(existing ? { existing: existing as KubeObject } : {}),
    }) as StoredObject;
    await this.refuseSecondAutoscaler(admitted);
    if (req.dryRun) return { object: admitted as StoredLike, outcome: existing ? 'configured' : 'created' };
    const { object, outcome } = await this.store.apply(admitted);
    return { object: object as StoredLike, outcome };
  }

  async get(req: GetRequest): Promise<StoredLike> {
    return (await this.store.mustGet(this.ref(req))) as StoredLike;
  }

  async list(req: ListRequest): Promise<ListReply> {
    const info = resolveKind(req.kind);
    const items = await this.store.list(info.kind, info.namespaced ? req.namespace : undefined);
    return { items: items as StoredLike[] };
  }

  async delete(req: DeleteRequest): Promise<DeleteReply> {
    const ref = this.ref(req);
    const object = await this.store.mustGet(ref);
    await this.store.delete(ref, req.resourceVersion);
    // The uid makes the id unique per object incarnation, so a retried delete publishes once.
    await this.publish(
      cloudEvent({
        id: `${object.metadata.uid}/ObjectDeleted`,
        source: 'gateway',
        type: EventTypes.ObjectDeleted,
        kind: ref.kind,
        namespace: ref.namespace,
        name: ref.name,
        time: this.now(),
        data: {},
      }),
    );
    return { object: object as StoredLike };
  }

  async events(req: EventsRequest): Promise<EventsReply> {
    const kind = req.kind === undefined ? undefined : resolveKind(req.kind).kind;
    return { items: await this.kubeEvents.list({ kind, namespace: req.namespace, name: req.name }) };
  }

  /** Admission that needs the store: a workload takes one FederatedHPA or EffectiveHPA. */
  private async refuseSecondAutoscaler(object: StoredObject): Promise<void> {
    if (!(AUTOSCALER_KINDS as readonly string[]).includes(object.kind)) return;
    const ns = object.metadata.namespace;
    const others = (await Promise.all(AUTOSCALER_KINDS.map((k) => this.store.list(k, ns)))).flat();
    const conflict = scaleTargetConflict(object, others);
    if (conflict) throw new AdmissionError(object.kind, object.metadata.name, [conflict]);
  }

  private ref(q: { kind: string; namespace?: string | undefined; name: string }): ObjectRef {
    const info = resolveKind(q.kind);
    return { kind: info.kind, namespace: info.namespaced ? q.namespace || 'default' : undefined, name: q.name };
  }

  /** The stored object an input would replace, if its identity can be read; admission reports it otherwise. */
  private async existingFor(input: unknown): Promise<StoredObject | undefined> {
    const o = input as Partial<StoredObject> | null;
    if (!o || typeof o !== 'object' || typeof o.kind !== 'string' || typeof o.metadata?.name !== 'string')
      return undefined;
    let info;
    try {
      info = resolveKind(o.kind);
    } catch {
      return undefined;
    }
    const ns = info.namespaced
      ? (typeof o.metadata.namespace === 'string' && o.metadata.namespace) || 'default'
      : undefined;
    return this.store.get(
      refOf({
        ...(o as StoredObject),
        kind: info.kind,
        metadata: { ...o.metadata, name: o.metadata.name, ...(ns ? { namespace: ns } : {}) },
      }),
    );
  }
}
