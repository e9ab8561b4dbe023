import { isDeepStrictEqual } from 'node:util';
import { FederatedHpaAnnotations, type FederatedHPA } from '@flotilla/api';
import {
  assignmentRows,
  assignmentStatusPatch,
  decideFederatedHpa,
  federationUtilisation,
  legacyRecordedAssignment,
  memberHpaBindingAnnotations,
  recordedAssignmentOfStatus,
  withoutLegacyRecord,
  type MemberStatus,
  type RecordedAssignment,
} from '@flotilla/assignment';
import { isAlreadyExists } from '@flotilla/bus';
import type { FederatedHpaAssignedData } from '@flotilla/replica-trail';
import { MAX_TIMER_MS, type ReconcileResult } from '@flotilla/controller';
import { encodeJobId, jobDueAt, removeJob, scheduleAt, type DelayedQueue } from '@flotilla/runtime/delayed-jobs';
import { isNotFound, SharedValues, type ObjectRef, type StoredObject } from '@flotilla/store';
import { FederatedHpaEventTypes } from './fhpa-events.js';
import type { BindingSpecRead, FederatedHpaPass, MoveReport } from './pass.js';
import { bindingNameOf, HPA_KIND, memberHpaBinding, memberHpaTemplate } from './member-objects.js';

export interface AssignmentModeOptions {
  /** The pending-pods delay queue (the controller kit's BullMQ queue, whose worker wakes the FederatedHPA). */
  queue: () => DelayedQueue<PendingJob> | undefined;
  optimisePeriodMs: number;
  defaultMultiClusterDelaySeconds: number;
  onMove?: (r: MoveReport) => void;
}

export interface PendingJob {
  key: string;
  cluster: string;
}

/**
 * Karmada's FederatedHPA proposal (a FederatedHPA with `spec.federatedHPAAssignment`): member HPAs (an HPA template
 * and its binding, per-cluster min/max as an override) whose limits `decideFederatedHpa` assigns and moves, and the
 * target binding's clusters. The target's binding is marked as owned, so the affinity scheduler only filters its
 * clusters and no longer divides them. A member cluster's pending pods arm a BullMQ delayed job
 * (`autoscaleMultiClusterDelay`), so the delay survives a leader change.
 */
export class AssignmentMode {
  /** Pending-pods jobs this leader armed (job id → due time). */
  private readonly armed = new Map<string, number>();
  /** FederatedHPAs whose stale delay jobs were looked for once in this term. */
  private readonly swept = new Set<string>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /**
   * The record this leader last published per FederatedHPA: ahead of the status until the status writer folds it.
   * FederatedHPAs of one policy and limits over the same clusters have the same assignments and basis: they are
   * kept once (some 900 B a FederatedHPA otherwise).
   */
  private readonly published = new Map<string, RecordedAssignment>();
  private readonly records = new SharedValues();

  constructor(
    private readonly pass: FederatedHpaPass,
    private readonly o: AssignmentModeOptions,
  ) {}

  /** Stops waking objects: the pending-pods timers. */
  stop(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  forget(key: string): void {
    this.swept.delete(key);
    this.published.delete(key);
  }

  /**
   * The previous assignment: what this leader last published, else what the FederatedHPA's status records (a new
   * leader's view), else, for a FederatedHPA no hpa-assigner has recorded in status yet, the annotations an earlier
   * version kept on the member HPA's binding. Nothing while that binding is missing: it is created afresh.
   */
  private previousOf(key: string, hpaBinding: StoredObject | undefined): RecordedAssignment | undefined {
    if (!hpaBinding) return undefined;
    return (
      this.published.get(key) ??
      recordedAssignmentOfStatus(this.pass.statusOf(key)) ??
      legacyRecordedAssignment(hpaBinding.metadata.annotations)
    );
  }

  async reconcile(key: string, fhpa: FederatedHPA): Promise<ReconcileResult> {
    const { store, clock } = this.pass;
    const spec = fhpa.spec!;
    const ns = fhpa.metadata.namespace;
    const name = fhpa.metadata.name!;
    const targetName = bindingNameOf(spec.scaleTargetRef.name, spec.scaleTargetRef.kind);
    const { binding, spec: bindingSpec, members: reports, hpas } = this.pass.membersOf(ns, targetName);
    if (!binding) {
      await this.pass.observe(fhpa, FederatedHpaEventTypes.FederatedHPAObserved, {
        observedGeneration: fhpa.metadata.generation ?? 0,
        conditions: [
          {
            type: 'AbleToScale',
            status: 'False',
            reason: 'FailedGetBinding',
            message: `${spec.scaleTargetRef.kind} ${spec.scaleTargetRef.name} has no ResourceBinding yet (is it propagated?)`,
          },
        ],
      });
      return;
    }
    const targetRef: ObjectRef = { kind: 'ResourceBinding', namespace: ns, name: targetName };
    const owner = binding.metadata.annotations?.[FederatedHpaAnnotations.owner];
    if (owner !== name) {
      // Marks the target binding as owned: from now on the affinity scheduler filters its clusters and leaves the
      // replicas to the member HPAs (its informer brings the feasible clusters back as an annotation).
      await store.update(targetRef, (cur) => ({
        ...cur,
        metadata: {
          ...cur.metadata,
          annotations: { ...cur.metadata.annotations, [FederatedHpaAnnotations.owner]: name },
        },
      }));
      return;
    }
    const feasible = binding.metadata.annotations?.[FederatedHpaAnnotations.feasibleClusters];
    // The affinity scheduler has not handed the binding over yet: it publishes the clusters its filters pass once it
    // sees the owner mark, and that write brings this FederatedHPA back. Dividing now would go by the clusters it
    // scheduled the replicas to for itself (one, under Aggregated) and move everything a moment later: a member HPA
    // created in one cluster and deleted again.
    if (feasible === undefined) return;
    const candidates = feasible.split(',').filter(Boolean);
    const hpaBindingRef: ObjectRef = { kind: 'ResourceBinding', namespace: ns, name: bindingNameOf(name, HPA_KIND) };
    const hpaBinding = this.pass.binding(hpaBindingRef);
    const previous = this.previousOf(key, hpaBinding);
    const members: MemberStatus[] = reports.map((m) => ({
      cluster: m.cluster,
      specReplicas: m.specReplicas,
      readyReplicas: m.readyReplicas,
      pendingReplicas: m.pendingReplicas,
    }));
    const now = clock.now();
    const starved = await this.starvedClusters(key, fhpa, members, now);
    const decision = decideFederatedHpa(
      {
        spec,
        generation: fhpa.metadata.generation ?? 0,
        clusters: this.pass.clusters(),
        candidates,
        ...(bindingSpec.replicaRequirements?.resourceRequest
          ? { podRequests: bindingSpec.replicaRequirements.resourceRequest }
          : {}),
        members,
        bindingClusters: bindingSpec.clusters ?? [],
        ...(spec.scalingToZero ? federationUtilisation(spec, hpas) : {}),
        ...(previous ? { previous } : {}),
        starved: new Set(starved.keys()),
        optimisePeriodMs: this.o.optimisePeriodMs,
      },
      now.getTime(),
    );
    const record: RecordedAssignment = {
      assignments: decision.assignments,
      basis: decision.basis,
      ...(decision.optimisedAtMs !== undefined ? { optimisedAtMs: decision.optimisedAtMs } : {}),
      ...(decision.pinned ? { pinned: decision.pinned } : {}),
    };
    if (decision.changed) {
      await this.ensureMemberHpa(fhpa);
      const desired = memberHpaBinding(fhpa, record);
      if (!hpaBinding) {
        await store.create(desired).catch(async (err: unknown) => {
          if (!isAlreadyExists(err)) throw err;
          await this.writeHpaBinding(hpaBindingRef, name, record);
        });
      } else {
        await this.writeHpaBinding(hpaBindingRef, name, record);
      }
      const clusters = decision.bindingClusters;
      await store.update(targetRef, (cur) => {
        const s = cur.spec as BindingSpecRead;
        if (isDeepStrictEqual(s.clusters ?? [], clusters)) return undefined;
        return { ...cur, spec: { ...(cur.spec as object), clusters } };
      });
      const appliedAtMs = clock.now().getTime();
      for (const m of decision.moves) {
        const dueAtMs = starved.get(m.from);
        this.o.onMove?.({ key, from: m.from, to: m.to, appliedAtMs, ...(dueAtMs !== undefined ? { dueAtMs } : {}) });
      }
    }
    const assignments = decision.assignments;
    const rows = assignmentRows(assignments, members, hpas);
    const moved = decision.changed && decision.reason !== 'Unchanged';
    await this.pass.observe(
      fhpa,
      moved ? FederatedHpaEventTypes.FederatedHPAAssigned : FederatedHpaEventTypes.FederatedHPAObserved,
      assignmentStatusPatch({
        generation: fhpa.metadata.generation ?? 0,
        rows,
        members,
        hpas,
        ...(moved ? { decision } : {}),
        record,
        at: now,
      }),
      moved ? { reason: decision.reason, message: decision.message } : undefined,
      // bindingClusters: each member workload's replicas as written, for the replica trail (packages/replica-trail).
      moved
        ? ({
            reason: decision.reason,
            assignments,
            moves: decision.moves,
            bindingClusters: decision.bindingClusters,
          } satisfies Omit<FederatedHpaAssignedData, 'statusPatch' | 'kubeEvent'>)
        : {},
    );
    this.published.set(key, this.compact(record));
  }

  /** `record` with its parts shared with the records of other FederatedHPAs that have the same. */
  private compact(record: RecordedAssignment): RecordedAssignment {
    const { records } = this;
    return {
      assignments: records.share(record.assignments),
      basis: records.share(record.basis),
      ...(record.optimisedAtMs !== undefined ? { optimisedAtMs: record.optimisedAtMs } : {}),
      ...(record.pinned ? { pinned: records.share(record.pinned) } : {}),
    };
  }

  private async writeHpaBinding(ref: ObjectRef, owner: string, record: RecordedAssignment): Promise<void> {
    await this.pass.store.update(ref, (cur) => ({
      ...cur,
      metadata: {
        ...cur.metadata,
        annotations: {
          ...withoutLegacyRecord(cur.metadata.annotations),
          ...memberHpaBindingAnnotations(owner, record.assignments),
        },
      },
      spec: { ...(cur.spec as object), clusters: record.assignments.map((a) => ({ name: a.cluster })) },
    }));
  }

  /** Creates or updates the member HPA template from the FederatedHPA's spec. */
  private async ensureMemberHpa(fhpa: FederatedHPA): Promise<void> {
    const { store } = this.pass;
    const desired = memberHpaTemplate(fhpa);
    const ref: ObjectRef = { kind: HPA_KIND, namespace: fhpa.metadata.namespace, name: fhpa.metadata.name! };
    try {
      await store.update(ref, (cur) => ({
        ...cur,
        metadata: { ...cur.metadata, annotations: { ...cur.metadata.annotations, ...desired.metadata.annotations } },
        spec: desired.spec,
      }));
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await store.create(desired).catch((e: unknown) => {
        if (!isAlreadyExists(e)) throw e;
      });
    }
  }

  /**
   * A FederatedHPA without an assignment (now, or deleted) owns no member HPA: removes what it created and hands the
   * target binding back to the affinity scheduler (the bindings it marked, found by the owner annotation).
   */
  async release(namespace: string | undefined, name: string): Promise<void> {
    const { store } = this.pass;
    const ns = namespace || undefined;
    const owned = (b: StoredObject | undefined) => b?.metadata.annotations?.[FederatedHpaAnnotations.owner] === name;
    const hpaBindingRef = { kind: 'ResourceBinding', namespace: ns, name: bindingNameOf(name, HPA_KIND) };
    const targets = this.pass
      .bindings()
      .filter((b) => (b.metadata.namespace || undefined) === ns && owned(b) && b.metadata.name !== hpaBindingRef.name);
    if (!owned(this.pass.binding(hpaBindingRef)) && targets.length === 0) return;
    await store.delete(hpaBindingRef).catch(ignoreNotFound);
    const hpa = await store.get({ kind: HPA_KIND, namespace: ns, name });
    if (owned(hpa)) await store.delete({ kind: HPA_KIND, namespace: ns, name }).catch(ignoreNotFound);
    for (const t of targets) {
      await store
        .update({ kind: 'ResourceBinding', namespace: ns, name: t.metadata.name }, (cur) => {
          if (!owned(cur)) return undefined;
          const {
            [FederatedHpaAnnotations.owner]: _o,
            [FederatedHpaAnnotations.feasibleClusters]: _f,
            ...annotations
          } = cur.metadata.annotations ?? {};
          return { ...cur, metadata: { ...cur.metadata, annotations } };
        })
        .catch(ignoreNotFound);
    }
  }

  /** Wakes `key` at `at` (one timer per instant and object; the reconcile then finds the delay run out). */
  private wakeAt(key: string, at: number): void {
    const id = `${key}@${at}`;
    if (this.timers.has(id)) return;
    const timer = setTimeout(
      () => {
        this.timers.delete(id);
        this.pass.enqueue(key);
      },
      // A delay past setTimeout's limit (about 24.8 days) waits that long and looks again, instead of firing at once.
      Math.min(Math.max(0, at - this.pass.clock.now().getTime()), MAX_TIMER_MS),
    );
    this.timers.set(id, timer);
  }

  private async starvedClusters(
    key: string,
    fhpa: FederatedHPA,
    members: readonly MemberStatus[],
    now: Date,
  ): Promise<Map<string, number>> {
    const starved = new Map<string, number>();
    const queue = this.o.queue();
    const policy = fhpa.spec!.federatedHPAAssignment?.federatedHPAAssignmentType ?? 'Duplicated';
    if (!queue || policy === 'Duplicated') return starved;
    const delayMs = (fhpa.spec!.autoscaleMultiClusterDelay ?? this.o.defaultMultiClusterDelaySeconds) * 1000;
    const firstLook = !this.swept.has(key);
    this.swept.add(key);
    for (const m of members) {
      const jobId = encodeJobId('pending', fhpa.metadata.uid ?? key, m.cluster);
      if (m.pendingReplicas > 0) {
        const state = await queue.getJobState(jobId);
        if (state === 'unknown') {
          const at = new Date(now.getTime() + delayMs);
          await scheduleAt(queue, jobId, at, { key, cluster: m.cluster }, now);
          this.armed.set(jobId, at.getTime());
          this.wakeAt(key, at.getTime());
        } else if (state === 'active' || state === 'completed') {
          const job = await queue.getJob(jobId);
          starved.set(m.cluster, job ? jobDueAt(job) : now.getTime());
        } else {
          // Still delayed in Redis: its due time is what counts. A local timer wakes the object then, sooner than
          // BullMQ's promotion; the job stays the durable record that survives this leader.
          const job = await queue.getJob(jobId);
          const due = job ? jobDueAt(job) : undefined;
          if (due !== undefined && due <= now.getTime()) starved.set(m.cluster, due);
          else if (due !== undefined) this.wakeAt(key, due);
        }
      } else if (this.armed.has(jobId) || firstLook) {
        // The pods scheduled (or the move was made): the delay starts afresh next time they pend.
        this.armed.delete(jobId);
        await removeJob(queue, jobId).catch((err: unknown) =>
          this.pass.logger.warn({ err, jobId }, 'could not remove a delay job'),
        );
      }
    }
    return starved;
  }
}

function ignoreNotFound(err: unknown): void {
  if (!isNotFound(err)) throw err;
}
