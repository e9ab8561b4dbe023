import {
  AdmissionError,
  admissionWarnings,
  admit,
  type FieldError,
  InvalidRequestError,
  isPlainObject,
  listKinds,
  MAX_OBJECT_BYTES,
  parseObjectQuery,
  type KubeObject,
  ReservedNamespaces,
  timeSchema,
} from '@flotilla/api';
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
  FailBacksReply,
  FailBacksRequest,
  PreviewReply,
  PreviewRequest,
  StoredLike,
} from '@flotilla/client';
import {
  type ClusterAction,
  isPreviewInputError,
  type LiveState,
  PREVIEW_DEFAULTS,
  type PreviewChange,
  previewChange,
  previewFailBacks,
  previewWarnings,
} from '@flotilla/preview';
import { FAIL_BACK_BUDGET_DEFAULTS, type FailBackBudget } from '@flotilla/rebalance';
import { cloudEvent, objectDeletedEvent, type CloudEvent, type Versioned } from '@flotilla/bus';
import type { ServiceName } from '@flotilla/catalogue';
import {
  appliedReplicasRetainedCondition,
  REPLICAS_APPLIED,
  type OwnerConflictData,
  type ReplicasAppliedData,
} from '@flotilla/replica-trail';
import {
  REPLICA_WRITER_KINDS,
  type KubeEventStore,
  type ObjectRef,
  type ObjectStore,
  type SpecLister,
  type StoredObject,
  withVersion,
} from '@flotilla/store';
import type { Cluster, PropagationPolicy, ResourceBinding, ResourceTemplate } from '@flotilla/scheduling';
import { TooLargeError } from './errors.js';
import { decideReservedTemplate } from './reserved-template.js';
import { admitForWebhook, reservedTemplateOf } from './webhook-admission.js';
import {
  AUTOSCALER_KINDS,
  replicaOwnerConflict,
  replicaWriters,
  retainAutoscaledReplicas,
  scaleTargetConflict,
} from './scale-target-conflict.js';

/** The `source` of the domain events the gateway publishes. */
const EVENT_SOURCE: ServiceName = 'gateway';

/** Who sent a request, as the front door knows it: the token's name over HTTP, nothing more over NATS. */
export interface Caller {
  name?: string | undefined;
  via: 'http' | 'nats';
}

/** The Warning event's reason (and the event type on the autoscaler) when two writers meet on one replica field. */
export const REPLICA_OWNER_CONFLICT = 'ReplicaOwnerConflict';

/**
 * The stored kinds an object's replica-writer checks read (scaleTargetConflict, replicaOwnerConflict): a
 * CronFederatedHPA conflicts only with the autoscalers of its workload (none when it sets a FederatedHPA's min/max),
 * never with another CronFederatedHPA, so its admission does not read every CronFederatedHPA of its namespace (a
 * namespace of n of them cost n² reads to fill).
 */
export function conflictingKinds(object: { kind: string; spec?: unknown }): readonly string[] {
  if (object.kind !== 'CronFederatedHPA')
    return (REPLICA_WRITER_KINDS as readonly string[]).includes(object.kind) ? REPLICA_WRITER_KINDS : [];
  const target = (object.spec as { scaleTargetRef?: { kind?: string } } | undefined)?.scaleTargetRef;
  return target?.kind === 'FederatedHPA' ? [] : AUTOSCALER_KINDS;
}
const BINDING_KINDS = new Set(['ResourceBinding', 'ClusterResourceBinding']);
const isWorkload = (o: StoredObject) =>
  !BINDING_KINDS.has(o.kind) && typeof (o.spec as { replicas?: unknown } | undefined)?.replicas === 'number';

const TAINT = /^([^=:]+)(?:=([^:]*))?:(NoSchedule|PreferNoSchedule|NoExecute)$/;

/** A preview request's cluster action, each bad field named. */
function clusterAction(c: PreviewRequest['cluster']): ClusterAction {
  if (!isPlainObject(c))
    throw new InvalidRequestError([{ field: 'cluster', message: 'Invalid value: expected an object' }]);
  if (typeof c.name !== 'string' || c.name === '')
    throw new InvalidRequestError([{ field: 'cluster.name', message: 'Required value' }]);
  if (c.action === 'fail' || c.action === 'cordon') return { action: c.action, cluster: c.name };
  if (c.action !== 'taint')
    throw new InvalidRequestError([
      {
        field: 'cluster.action',
        message: `Unsupported value: ${JSON.stringify(c.action)}: one of fail, cordon, taint`,
      },
    ]);
  const m = typeof c.taint === 'string' ? TAINT.exec(c.taint) : null;
  if (!m)
    throw new InvalidRequestError([
      {
        field: 'cluster.taint',
        message: `Invalid value: ${JSON.stringify(c.taint)}: KEY[=VALUE]:EFFECT with EFFECT one of NoSchedule, PreferNoSchedule, NoExecute`,
      },
    ]);
  return {
    action: 'taint',
    cluster: c.name,
    taint: { key: m[1]!, ...(m[2] !== undefined ? { value: m[2] } : {}), effect: m[3]! },
  };
}

/** Request fields of the wrong type: a `dryRun: "yes"` is not taken for true, it is refused with the field named. */
function checkFields(req: object, rules: Record<string, 'present' | 'boolean' | 'string'>): void {
  const errs: FieldError[] = [];
  for (const [field, rule] of Object.entries(rules)) {
    const v = (req as Record<string, unknown>)[field];
    if (rule === 'present') {
      if (v === undefined) errs.push({ field, message: 'Required value' });
    } else if (v !== undefined && typeof v !== rule) {
      errs.push({ field, message: `Invalid value: expected ${rule}, got ${v === null ? 'null' : typeof v}` });
    }
  }
  if (errs.length) throw new InvalidRequestError(errs);
}

/** A mirror's identity (ApplyRequest.identity): a uid and an RFC3339 creationTimestamp, each named when wrong. */
function checkIdentity(identity: unknown): void {
  if (identity === undefined) return;
  if (typeof identity !== 'object' || identity === null || Array.isArray(identity))
    throw new InvalidRequestError([{ field: 'identity', message: 'Invalid value: expected an object' }]);
  const { uid, creationTimestamp, ...rest } = identity as Record<string, unknown>;
  const errs: FieldError[] = [];
  if (typeof uid !== 'string' || uid === '')
    errs.push({ field: 'identity.uid', message: 'Required value: a non-empty string' });
  const time = timeSchema.safeParse(creationTimestamp);
  if (!time.success)
    errs.push({
      field: 'identity.creationTimestamp',
      message: `Invalid value: ${JSON.stringify(creationTimestamp)}: must be an RFC3339 timestamp such as 2024-04-17T15:04:05Z`,
    });
  for (const field of Object.keys(rest)) errs.push({ field: `identity.${field}`, message: 'Forbidden: unknown field' });
  if (errs.length) throw new InvalidRequestError(errs);
}

export interface GatewayHandlerOptions {
  /** Where objects are applied, read and deleted. */
  store: ObjectStore;
  /**
   * Where admission's conflict checks read the replica writers of a namespace (replicaWriterSpecs: informers that
   * are never older than the store); the store itself by default.
   */
  specs?: SpecLister;
  /** The Kubernetes-style events `events` lists. */
  kubeEvents: KubeEventStore;
  /** Publishes a domain event (ObjectDeleted, ReplicasApplied, ReplicaOwnerConflict). */
  publish: (e: CloudEvent) => Promise<unknown>;
  /** The events' time; the system clock by default. */
  now?: () => Date;
  /** Throws while the store is too full for a write other than a delete (StoreHeadroom.ensureRoom); never by default. */
  ensureRoom?: () => Promise<void>;
  /** Namespaces admission refuses objects in (RESERVED_NAMESPACES); the defaults by default. Deletes are not refused. */
  reservedNamespaces?: ReservedNamespaces;
  /**
   * Where the admission webhook reads the PropagationPolicies and ClusterPropagationPolicies that may select a
   * resource template in a reserved namespace (main.ts: informers never older than the store); the store by default.
   */
  policies?: SpecLister;
  /** The affinity scheduler's FAILOVER_GRACE_MS, for previews of a cluster failure; PREVIEW_DEFAULTS' by default. */
  failoverGraceMs?: number;
  /**
   * The rebalancer's fleet fail-back budget (REBALANCER_FAILBACK_BUDGET, _PERIOD_MS), which the `failbacks` queue is
   * planned with; FAIL_BACK_BUDGET_DEFAULTS by default.
   */
  failBackBudget?: FailBackBudget;
}

/** The handler's defaults, defined once. */
export const GATEWAY_HANDLER_DEFAULTS = {
  now: (): Date => new Date(),
  /**
   * How long the webhook's dry-run preview may take, reading included: the webhook entries' timeout is 3 s (deploy/),
   * and admission itself and the round trip need the rest.
   */
  webhookPreviewBudgetMs: 1_000,
  ensureRoom: async (): Promise<void> => {},
  reservedNamespaces: ReservedNamespaces.defaults,
} as const;

/** Checked at construction, so that a missing dependency fails at start-up with its name, not on the first request. */
function checkOptions(o: GatewayHandlerOptions): void {
  if (typeof o !== 'object' || o === null) throw new TypeError('GatewayHandler: options must be an object');
  const required = { store: o.store, kubeEvents: o.kubeEvents };
  for (const [field, value] of Object.entries(required))
    if (typeof value !== 'object' || value === null) throw new TypeError(`GatewayHandler: ${field} is required`);
  for (const [field, value] of Object.entries({ specs: o.specs, policies: o.policies }))
    if (value !== undefined && typeof value?.listSpecs !== 'function')
      throw new TypeError(`GatewayHandler: ${field} must have a listSpecs function`);
  if (o.reservedNamespaces !== undefined && !(o.reservedNamespaces instanceof ReservedNamespaces))
    throw new TypeError('GatewayHandler: reservedNamespaces must be a ReservedNamespaces');
  const functions = { publish: o.publish, now: o.now, ensureRoom: o.ensureRoom };
  for (const [field, value] of Object.entries(functions))
    if ((field === 'publish' || value !== undefined) && typeof value !== 'function')
      throw new TypeError(`GatewayHandler: ${field} must be a function, got ${value === null ? 'null' : typeof value}`);
}

/**
 * The gateway's operations over the object store. Admission runs here and only here: what reaches the store has
 * been defaulted and validated, and a rejected object leaves the stored one untouched.
 */
export class GatewayHandler {
  private readonly store: ObjectStore;
  private readonly specs: SpecLister;
  private readonly kubeEvents: KubeEventStore;
  private readonly publish: (e: CloudEvent) => Promise<unknown>;
  private readonly now: () => Date;
  private readonly ensureRoom: () => Promise<void>;
  private readonly reservedNamespaces: ReservedNamespaces;
  private readonly policies: SpecLister;
  private readonly failoverGraceMs: number;
  private readonly failBackBudget: FailBackBudget;

  constructor(options: GatewayHandlerOptions) {
    checkOptions(options);
    this.store = options.store;
    this.specs = options.specs ?? options.store;
    this.kubeEvents = options.kubeEvents;
    this.publish = options.publish;
    this.now = options.now ?? GATEWAY_HANDLER_DEFAULTS.now;
    this.ensureRoom = options.ensureRoom ?? GATEWAY_HANDLER_DEFAULTS.ensureRoom;
    this.reservedNamespaces = options.reservedNamespaces ?? GATEWAY_HANDLER_DEFAULTS.reservedNamespaces;
    this.policies = options.policies ?? options.store;
    this.failoverGraceMs = options.failoverGraceMs ?? PREVIEW_DEFAULTS.failoverGraceMs;
    this.failBackBudget = options.failBackBudget ?? FAIL_BACK_BUDGET_DEFAULTS;
  }

  /**
   * What a change would move (packages/preview's previewChange) on the live state, read once; nothing is written.
   * Objects are admitted first, as an apply admits them, so a bad one is refused with its field path.
   */
  async preview(req: PreviewRequest, _caller?: Caller, deadlineMs?: number): Promise<PreviewReply> {
    const given = [req.objects !== undefined, req.cluster !== undefined].filter(Boolean).length;
    if (given !== 1)
      throw new InvalidRequestError([
        { field: 'objects', message: 'Required value: exactly one of objects and cluster' },
      ]);
    let change: PreviewChange;
    if (req.objects !== undefined) {
      if (!Array.isArray(req.objects))
        throw new InvalidRequestError([{ field: 'objects', message: 'Invalid value: expected an array' }]);
      const opts = { schedules: scheduleChecks, reservedNamespaces: this.reservedNamespaces };
      change = { objects: req.objects.map((o) => admit(o, opts)) };
    } else change = { cluster: clusterAction(req.cluster) };
    const state = await this.liveState();
    try {
      return previewChange(state, change, {
        now: this.now(),
        failoverGraceMs: this.failoverGraceMs,
        ...(deadlineMs !== undefined ? { deadlineMs } : {}),
      });
    } catch (err) {
      if (isPreviewInputError(err)) throw new InvalidRequestError([{ field: err.field, message: err.detail }]);
      throw err;
    }
  }

  /**
   * The fail-back queue (packages/preview's previewFailBacks) on the live state, read once: the rebalancer's plan with
   * the fleet budget in force, and where each binding would land. Nothing is written.
   */
  async failbacks(_req: FailBacksRequest): Promise<FailBacksReply> {
    return previewFailBacks(await this.liveState(), { budget: this.failBackBudget, now: this.now() });
  }

  /**
   * The admission webhook's dry-run answer: kubectl warnings that summarise what the object would move
   * (`flotilla: web-deployment member1:4→2 member2:2→4`), or one saying the preview was cut short when the live
   * state was not read or decided within GATEWAY_HANDLER_DEFAULTS.webhookPreviewBudgetMs. Never throws: a preview
   * that fails is said so in a warning, and the review stands.
   */
  async webhookPreviewWarnings(object: unknown): Promise<string[]> {
    const budget = GATEWAY_HANDLER_DEFAULTS.webhookPreviewBudgetMs;
    const deadline = performance.now() + budget;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), budget);
    });
    try {
      const p = await Promise.race([this.preview({ objects: [object] }, undefined, deadline), late]);
      if (p === 'late') return [`flotilla: preview cut short: the live state was not read within ${budget} ms`];
      return previewWarnings(p);
    } catch (err) {
      return [`flotilla: no preview: ${err instanceof Error ? err.message : String(err)}`];
    } finally {
      clearTimeout(timer);
    }
  }

  /** Everything the scheduler decides from, read once: Clusters, policies, templates and bindings with status. */
  private async liveState(): Promise<LiveState> {
    const templateKinds = listKinds()
      .filter((k) => !k.strict)
      .map((k) => k.kind);
    const [clusters, pps, cpps, rbs, crbs, fhpas, ...templates] = await Promise.all([
      this.store.list('Cluster'),
      this.store.listSpecs('PropagationPolicy'),
      this.store.listSpecs('ClusterPropagationPolicy'),
      this.store.list('ResourceBinding'),
      this.store.list('ClusterResourceBinding'),
      this.store.listSpecs('FederatedHPA'),
      ...templateKinds.map((k) => this.store.listSpecs(k)),
    ]);
    return {
      clusters: clusters as unknown as Cluster[],
      policies: [...pps, ...cpps] as unknown as PropagationPolicy[],
      templates: templates.flat() as unknown as ResourceTemplate[],
      bindings: [...rbs, ...crbs] as unknown as ResourceBinding[],
      federatedHpas: fhpas as unknown as NonNullable<LiveState['federatedHpas']>,
    };
  }

  /**
   * The admission webhook's judgment (POST /validate) of what the API server is about to store; returns admission's
   * warnings, throws AdmissionError. A resource template (a Deployment, a StatefulSet) in a reserved namespace is
   * judged by decideReservedTemplate alone: refused only when a policy Flotilla holds selects it. Everything else is
   * admitted as an apply is (the configured reserved namespaces included), judged against `existing` (the review's
   * oldObject) on an update; the store is not read, as the API server holds the object.
   */
  async webhookAdmit(
    object: unknown,
    opts: { existing?: unknown; namespace?: string | undefined } = {},
  ): Promise<string[]> {
    const template = reservedTemplateOf(object, opts.namespace, this.reservedNamespaces);
    if (template) {
      const ns = template.metadata.namespace;
      const policies = (
        await Promise.all([
          this.policies.listSpecs('PropagationPolicy', ns),
          this.policies.listSpecs('ClusterPropagationPolicy'),
        ])
      ).flat() as unknown as PropagationPolicy[];
      const old = isPlainObject(opts.existing) ? (opts.existing as unknown as ResourceTemplate) : undefined;
      const decision = decideReservedTemplate({ template, old, policies, reserved: this.reservedNamespaces });
      if (decision.type === 'refuse') throw new AdmissionError(template.kind, template.metadata.name, [decision.cause]);
      return decision.type === 'warn' ? [decision.warning] : [];
    }
    return admitForWebhook(object, { existing: opts.existing, reservedNamespaces: this.reservedNamespaces });
  }

  async apply(req: ApplyRequest, caller: Caller = { via: 'nats' }): Promise<ApplyReply> {
    checkFields(req, { object: 'present', dryRun: 'boolean' });
    checkIdentity(req.identity);
    const size = Buffer.byteLength(JSON.stringify(req.object ?? null));
    if (size > MAX_OBJECT_BYTES) throw new TooLargeError(size, MAX_OBJECT_BYTES);
    // One read of what is stored (no status: admission and the replica rules judge the spec), handed to the write.
    const current = await this.storedFor(req.object);
    const existing = current ? withVersion(current) : undefined;
    const admitted = admit(req.object, {
      schedules: scheduleChecks,
      reservedNamespaces: this.reservedNamespaces,
      ...(existing ? { existing: existing as KubeObject } : {}),
    }) as StoredObject;
    await this.refuseReplicaConflicts(admitted);
    const replicas = isWorkload(admitted)
      ? retainAutoscaledReplicas(admitted, existing, replicaWriters(admitted, await this.writersOf(admitted)))
      : undefined;
    const toStore = replicas?.object ?? admitted;
    const all = admissionWarnings(admitted);
    if (replicas?.retainedBy)
      all.push(
        `spec.replicas: kept at ${replicas.toReplicas} (asked for ${replicas.requestedReplicas}): ${replicas.retainedBy} scales this workload; change its min/max instead`,
      );
    const warnings = all.length ? all : undefined;
    if (req.dryRun)
      return {
        object: toStore as StoredLike,
        outcome: existing ? 'configured' : 'created',
        ...(warnings && { warnings }),
      };
    await this.ensureRoom();
    const { object, outcome } = await this.store.apply(toStore, {
      identity: req.identity,
      ...(current !== undefined ? { current } : {}),
    });
    // A kept count leaves the object unchanged, and is still news: the conflict's Warning goes with it.
    if (replicas && (outcome !== 'unchanged' || replicas.retainedBy))
      await this.publishReplicasApplied(object, replicas, outcome, caller);
    return { object: object as StoredLike, outcome, ...(warnings && { warnings }) };
  }

  async get(req: GetRequest): Promise<StoredLike> {
    return (await this.store.mustGet(this.ref(req))) as StoredLike;
  }

  async list(req: ListRequest): Promise<ListReply> {
    const { info, namespace } = parseObjectQuery(req, { name: 'optional' });
    const items = await this.store.list(info.kind, namespace);
    return { items: items as StoredLike[] };
  }

  async delete(req: DeleteRequest): Promise<DeleteReply> {
    checkFields(req, { resourceVersion: 'string' });
    const ref = this.ref(req);
    const object = await this.store.mustGet(ref);
    await this.store.delete(ref, req.resourceVersion);
    await this.publish(
      objectDeletedEvent({ source: EVENT_SOURCE, ...ref, uid: object.metadata.uid, time: this.now() }),
    );
    return { object: object as StoredLike };
  }

  async events(req: EventsRequest): Promise<EventsReply> {
    // Events may be asked for without a kind; the query check needs one, so "every kind" is checked as a Deployment
    // (whose rule, a DNS-1123 subdomain, is the loosest name rule).
    const q = parseObjectQuery({ ...req, kind: req.kind ?? 'Deployment' }, { name: 'optional' });
    const kind = req.kind === undefined ? undefined : q.info.kind;
    const namespace = req.namespace || undefined;
    return { items: await this.kubeEvents.list({ kind, namespace, name: q.name }) };
  }

  /**
   * Admission that needs the store: a workload takes one FederatedHPA or EffectiveHPA, and a CronFederatedHPA does
   * not set the replicas one of them writes (two writers of one field).
   */
  private async refuseReplicaConflicts(object: StoredObject): Promise<void> {
    const kinds = conflictingKinds(object);
    if (kinds.length === 0) return;
    const ns = object.metadata.namespace;
    const others = (await Promise.all(kinds.map((k) => this.specs.listSpecs(k, ns)))).flat();
    const conflict =
      (object.kind === 'CronFederatedHPA'
        ? undefined
        : scaleTargetConflict(
            object,
            others.filter((o) => o.kind !== 'CronFederatedHPA'),
          )) ?? replicaOwnerConflict(object, others);
    if (conflict) throw new AdmissionError(object.kind, object.metadata.name, [conflict]);
  }

  /** The stored autoscalers of a workload's namespace. */
  private async writersOf(workload: StoredObject): Promise<StoredObject[]> {
    const ns = workload.metadata.namespace;
    return (await Promise.all(AUTOSCALER_KINDS.map((k) => this.specs.listSpecs(k, ns)))).flat();
  }

  /** The replica trail's record of an apply (packages/replica-trail): on the workload, with who sent it. */
  private async publishReplicasApplied(
    object: StoredObject,
    r: ReturnType<typeof retainAutoscaledReplicas>,
    stored: 'created' | 'configured' | 'unchanged',
    caller: Caller,
  ): Promise<void> {
    if (r.toReplicas === undefined || r.requestedReplicas === undefined) return;
    const outcome = stored === 'created' ? 'created' : 'configured';
    if (outcome === 'configured' && r.fromReplicas === r.toReplicas && !r.retainedBy) return;
    const now = this.now();
    const data: ReplicasAppliedData = {
      fromReplicas: r.fromReplicas,
      requestedReplicas: r.requestedReplicas,
      toReplicas: r.toReplicas,
      ...(caller.name ? { caller: caller.name } : {}),
      via: caller.via,
      outcome,
      ...(r.retainedBy ? { retainedBy: r.retainedBy } : {}),
    };
    const workloadRef = `${object.kind}/${object.metadata.name}`;
    const conflict = r.retainedBy
      ? `two writers of ${workloadRef} spec.replicas: an apply${caller.name ? ` by ${caller.name}` : ''} asked for ${r.requestedReplicas}, and ${r.retainedBy} scales it; its count ${r.toReplicas} is kept`
      : undefined;
    // One record per stored revision; an apply kept back that left the object as it was is told apart from the one
    // before it by its time only (with the revision alone, the stream would drop it as a duplicate).
    const id = `${object.metadata.uid}/${REPLICAS_APPLIED}/${object.metadata.resourceVersion}${stored === 'unchanged' ? `/${now.toISOString()}` : ''}`;
    await this.publish(
      cloudEvent({
        id,
        source: EVENT_SOURCE,
        type: REPLICAS_APPLIED,
        kind: object.kind,
        namespace: object.metadata.namespace,
        name: object.metadata.name,
        time: now,
        data: {
          ...data,
          ...(conflict ? { kubeEvent: { type: 'Warning', reason: REPLICA_OWNER_CONFLICT, message: conflict } } : {}),
        },
      }),
    );
    // The same Warning on the autoscaler, so that `describe` of either object names both.
    if (conflict && r.retainedByRef?.name)
      await this.publish(
        cloudEvent({
          id: `${id}/${REPLICA_OWNER_CONFLICT}`,
          source: EVENT_SOURCE,
          type: REPLICA_OWNER_CONFLICT,
          kind: r.retainedByRef.kind,
          namespace: r.retainedByRef.namespace,
          name: r.retainedByRef.name,
          time: now,
          data: {
            workload: workloadRef,
            // Who applied, as ReplicasApplied names them: the replica trail's entry for this conflict names the user.
            ...(caller.name ? { caller: caller.name } : {}),
            via: caller.via,
            // The autoscaler's condition (packages/replica-trail's owner conflicts): a one-time conflict, which the
            // hpa-assigner's replica-owners controller clears ONE_TIME_CONFLICT_HOLD_MS after the latest such apply
            // (its lastUpdateTime is this apply's time: a second one restarts the hold).
            statusPatch: { conditions: [appliedReplicasRetainedCondition(conflict, now)] },
            kubeEvent: { type: 'Warning', reason: REPLICA_OWNER_CONFLICT, message: conflict },
          } satisfies OwnerConflictData,
        }),
      );
  }

  private ref(q: { kind: string; namespace?: string | undefined; name: string }): ObjectRef {
    const { info, namespace, name } = parseObjectQuery(q, { name: 'required' });
    return { kind: info.kind, namespace: info.namespaced ? (namespace ?? 'default') : undefined, name: name! };
  }

  /** The stored object an input would replace, if its identity is valid; admission reports it otherwise. */
  /** What is stored under the object's name, with its revision (null: nothing); undefined when it has no name. */
  private async storedFor(input: unknown): Promise<Versioned<StoredObject> | null | undefined> {
    const o = input as Partial<StoredObject> | null;
    if (!o || typeof o !== 'object' || !o.metadata || typeof o.metadata !== 'object') return undefined;
    try {
      return await this.store.read(this.ref({ kind: o.kind as string, ...o.metadata } as ObjectRef));
    } catch (err) {
      if (err instanceof InvalidRequestError) return undefined;
      throw err;
    }
  }
}
