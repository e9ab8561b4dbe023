import { eventTypeOf, type Bus, type CloudEvent } from '@flotilla/bus';
import {
  REPLICAS_APPLIED,
  TRAIL_AUTOSCALER_KINDS,
  TRAIL_EVENT_TYPES,
  trailAddresses,
  type WorkloadRef,
} from '@flotilla/replica-trail';
import { objectKey, projectReplicaTrail, type ObjectRef, type ObjectStore, type SpecLister } from '@flotilla/store';

export interface TrailProjectorOptions {
  bus: Bus;
  objects: Pick<ObjectStore, 'get' | 'listSpecs'>;
  /**
   * Where the autoscalers of a workload's namespace are read (`replicaWriterSpecs`: informers, where listing the store
   * for each projected workload opened a consumer per kind on the bucket); default `objects`.
   */
  autoscalers?: SpecLister;
  /** How long decisions gather before the workloads they touched are projected (default 500 ms). */
  delayMs?: number;
  /**
   * An object's decisions are projected once this many touched it since its last projection (default
   * TRAIL_PROJECTOR_DEFAULTS.projectAfterDecisions). Fewer are cheaper for a reader to fold from the stream than for
   * the writer to project (a projection reads the head, the stream's position and the events, and writes a chunk and
   * the head): a burst of new workloads, each with a decision or two, projects nothing.
   */
  projectAfterDecisions?: number;
  onError?: (err: unknown, workload: WorkloadRef) => void;
}

export const TRAIL_PROJECTOR_DEFAULTS = {
  delayMs: 500,
  projectAfterDecisions: 16,
  /** Objects whose decisions are counted at once; past it the oldest count is forgotten (its reader folds more). */
  maxCounted: 100_000,
} as const;

type Spec = { scaleTargetRef?: { kind?: string; name?: string }; resource?: Partial<WorkloadRef> };

/**
 * Keeps the workloads' replica-trail projections (packages/store) near the stream: the status writer tells it of
 * each event it folds; once an object has had projectAfterDecisions decisions since its last projection, the
 * workload they touched is projected after a short gathering delay, one at a time. A decision noticed and not yet projected when the leader stops is only later in the projection: a reader
 * folds what the projection lacks from the stream itself.
 */
export class TrailProjector {
  private readonly pending = new Map<string, { ref: ObjectRef; type: string }>();
  /** Decisions noticed per object since its last projection, below projectAfterDecisions. */
  private readonly unprojected = new Map<string, number>();
  private readonly projectAfterDecisions: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;
  private readonly delayMs: number;
  private readonly autoscalers: SpecLister;

  constructor(private readonly opts: TrailProjectorOptions) {
    this.delayMs = opts.delayMs ?? TRAIL_PROJECTOR_DEFAULTS.delayMs;
    this.projectAfterDecisions = opts.projectAfterDecisions ?? TRAIL_PROJECTOR_DEFAULTS.projectAfterDecisions;
    this.autoscalers = opts.autoscalers ?? opts.objects;
    if (!(this.delayMs >= 0)) throw new RangeError(`TrailProjector: delayMs must be >= 0, not ${opts.delayMs}`);
    if (!Number.isInteger(this.projectAfterDecisions) || this.projectAfterDecisions < 1)
      throw new RangeError(
        `TrailProjector: projectAfterDecisions must be a whole number >= 1, not ${opts.projectAfterDecisions}`,
      );
  }

  noticed(e: CloudEvent): void {
    const type = eventTypeOf(e);
    if (this.stopped || !TRAIL_EVENT_TYPES.has(type)) return;
    const ref = { kind: e.flotillakind, namespace: e.flotillanamespace || undefined, name: e.flotillaname };
    const key = objectKey(ref);
    const counted = (this.unprojected.get(key) ?? 0) + 1;
    this.unprojected.delete(key);
    if (counted < this.projectAfterDecisions) {
      this.unprojected.set(key, counted);
      if (this.unprojected.size > TRAIL_PROJECTOR_DEFAULTS.maxCounted)
        this.unprojected.delete(this.unprojected.keys().next().value!);
      return;
    }
    this.pending.set(`${key}/${type}`, { ref, type });
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.running = this.running.then(() => this.projectPending());
    }, this.delayMs);
  }

  /** Projects what is pending now, then resolves. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.running = this.running.then(() => this.projectPending());
    await this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pending.clear();
    this.unprojected.clear();
    await this.running;
  }

  private async projectPending(): Promise<void> {
    const decisions = [...this.pending.values()];
    this.pending.clear();
    const workloads = new Map<string, WorkloadRef>();
    for (const d of decisions) {
      const w = await this.workloadOf(d.ref, d.type).catch(() => undefined);
      if (w) workloads.set(objectKey(w), w);
    }
    for (const w of workloads.values()) {
      if (this.stopped) return;
      try {
        const autoscalers = (
          await Promise.all(TRAIL_AUTOSCALER_KINDS.map((k) => this.autoscalers.listSpecs(k, w.namespace)))
        ).flat();
        await projectReplicaTrail(this.opts.bus, w, trailAddresses(w, autoscalers));
      } catch (err) {
        this.opts.onError?.(err, w);
      }
    }
  }

  /** The workload a decision is about: the event's own object, a binding's resource, an autoscaler's target. */
  private async workloadOf(ref: ObjectRef, type: string, depth = 0): Promise<WorkloadRef | undefined> {
    if (type === REPLICAS_APPLIED || type === 'WorkloadRescheduleTriggered') return ref;
    const spec = (await this.opts.objects.get(ref))?.spec as Spec | undefined;
    if (ref.kind === 'ResourceBinding') {
      const r = spec?.resource;
      return r?.kind && r.name ? { kind: r.kind, namespace: r.namespace ?? ref.namespace, name: r.name } : undefined;
    }
    const target = spec?.scaleTargetRef;
    if (!target?.kind || !target.name) return undefined;
    const aimed = { kind: target.kind, namespace: ref.namespace, name: target.name };
    // A CronFederatedHPA aimed at a FederatedHPA decides the FederatedHPA's workload.
    return target.kind === 'FederatedHPA' && depth === 0 ? this.workloadOf(aimed, type, 1) : aimed;
  }
}
