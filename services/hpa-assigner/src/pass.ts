/**
 * What the FederatedHPA controller and its two modes (centralized-mode.ts, assignment-mode.ts) share: the pass they
 * run on, what a pass reads of a binding, and the controller's defaults. A module of its own so that the modes and
 * the caches depend on it, not on the controller that builds them.
 */
import type { FederatedHPA, ResourceBindingSpec } from '@flotilla/api';
import type { Bus, CloudEvent } from '@flotilla/bus';
import type { MemberHpaStatus, MemberReport } from '@flotilla/hpa-math';
import type { Clock } from '@flotilla/runtime';
import type { Cluster } from '@flotilla/scheduling';
import type { ObjectStore, StoredObject } from '@flotilla/store';
import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';

/**
 * The FederatedHPA controller's defaults (and the service's config defaults): the sync period, the max's optimise
 * period and the pending-pods delay follow Karmada's FederatedHPA controller and proposal.
 */
export const FEDERATED_HPA_DEFAULTS = {
  /** Karmada's --horizontal-pod-autoscaler-sync-period. */
  syncPeriodMs: 15_000,
  /** How often the max of an assignment is re-split ("every period" of the proposal). */
  optimisePeriodMs: 300_000,
  /** autoscaleMultiClusterDelay of FederatedHPAs that set none. */
  defaultMultiClusterDelaySeconds: 30,
  concurrency: 32,
} as const;

export interface ControllerLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** One write of a move across clusters, for benchmarks: when the delay ran out and when the new max was stored. */
export interface MoveReport {
  key: string;
  from: string;
  to: string;
  /** When the pending-pods delay of the starved cluster ran out (ms since the epoch). */
  dueAtMs?: number;
  appliedAtMs: number;
}

/** What both of the hpa-assigner's controllers are built from (the service's deps). */
export interface HpaControllerDependencies {
  bus: Bus;
  store?: ObjectStore;
  /** Shared by the controller's delay queue (pending pods, cron boundaries); the worker runs on a duplicate. The owner closes it. */
  redis: Redis;
  /** BullMQ key prefix (FLOTILLA_PREFIX). */
  queuePrefix: string;
  queueName?: string;
  publish: (e: CloudEvent) => Promise<unknown>;
  clock?: Clock;
  logger: ControllerLogger;
  /** The service's registry: reconcile, queue and object metrics under the controller's name. */
  registry?: Registry;
}

/** What a pass reads of a binding's spec (bindingProjection keeps these). */
export type BindingSpecRead = Partial<Pick<ResourceBindingSpec, 'clusters' | 'replicaRequirements'>>;

/** The member clusters' reports on a binding, as both modes read them. */
export interface BindingMembers {
  binding?: StoredObject;
  spec: BindingSpecRead;
  members: MemberReport[];
  hpas: MemberHpaStatus[];
}

/** What the two modes share of the controller: the store, the caches, the work queue and the status publisher. */
export interface FederatedHpaPass {
  readonly store: ObjectStore;
  readonly clock: Clock;
  readonly logger: ControllerLogger;
  /** The binding as cached (projected), if any. */
  binding(ref: { namespace?: string; name: string }): StoredObject | undefined;
  /** Every cached binding (projected). */
  bindings(): StoredObject[];
  clusters(): Cluster[];
  membersOf(namespace: string | undefined, bindingName: string): BindingMembers;
  /** The FederatedHPA's status as the status writer folded it (`key` is the FederatedHPA's), if any. */
  statusOf(key: string): Record<string, unknown> | undefined;
  /** Queues `key` (no-op once stopped). */
  enqueue(key: string): void;
  /** Publishes a status patch when it differs from the last one published (and always with a Kubernetes event). */
  observe(
    fhpa: FederatedHPA,
    type: string,
    statusPatch: object,
    kubeEvent?: { reason: string; message: string },
    extra?: Record<string, unknown>,
  ): Promise<void>;
}
