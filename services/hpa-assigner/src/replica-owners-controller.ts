import { createHash } from 'node:crypto';
import { Controllers } from '@flotilla/catalogue';
import { cloudEvent, type CloudEvent } from '@flotilla/bus';
import { defineController, type Controller, type ControllerQueue } from '@flotilla/controller';
import {
  decideOwnerConflict,
  REPLICA_OWNER_CONFLICT,
  REPLICA_OWNER_CONFLICT_RESOLVED,
  TRAIL_AUTOSCALER_KINDS,
  type OwnerConflictData,
} from '@flotilla/replica-trail';
import type { Condition, ForeignHorizontalPodAutoscaler, StatusOfKind } from '@flotilla/api';
import { systemClock, type Clock } from '@flotilla/runtime';
import {
  refFromKey,
  type CachedKind,
  type Informer,
  type InformerEvent,
  type Informers,
  type StatusRecord,
} from '@flotilla/store';
import type { Registry } from 'prom-client';
import type { ControllerLogger } from './pass.js';
import { FEDERATED_HPA_PROJECTION } from './projections.js';

export const REPLICA_OWNERS_CONTROLLER_NAME = Controllers.replicaOwners;

/** The domain event on the autoscaler when its conflict clears (a conflict is `ReplicaOwnerConflict`, as the gateway's). */
export { REPLICA_OWNER_CONFLICT_RESOLVED };

export interface ReplicaOwnersControllerOptions {
  informers: Informers;
  publish: (e: CloudEvent) => Promise<unknown>;
  logger: ControllerLogger;
  clock?: Clock;
  /** Every autoscaler is checked again this often (a one-time conflict's hold runs out in a resync). Default 30 s. */
  resyncMs?: number;
  registry?: Registry;
}

type AutoscalerKind = (typeof TRAIL_AUTOSCALER_KINDS)[number];
type ClusterStatusRecord = StatusRecord<StatusOfKind<'Cluster'>>;

/**
 * An autoscaler's status conditions. The CronFederatedHPA's status (Karmada's) declares none, but the conflict's
 * condition is folded into it all the same, as into the others'.
 */
const conditionsOf = (status: object | undefined): Condition[] | undefined =>
  status && 'conditions' in status ? (status.conditions as Condition[] | undefined) : undefined;

const sha = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 16);

/**
 * Owner conflicts found while running (issue "why this count?"): the member clusters report the HPAs Flotilla did
 * not create (Cluster `status.foreignHorizontalPodAutoscalers`, from the member-agent's sim and kube drivers); an
 * autoscaler (FederatedHPA, EffectiveHPA, CronFederatedHPA) aimed at the workload one of them scales gets the
 * `ReplicaOwnerConflict` condition and a Warning on itself and on the workload, naming both; the condition clears
 * when the member HPA goes. Level-triggered: each pass decides from the caches (decideOwnerConflict) and publishes
 * only a change; the events' ids come from the decision and the condition it replaces, so a pass that ran before
 * the status writer folded the last one publishes the same ids, which the stream drops.
 */
export class ReplicaOwnersController {
  private readonly clock: Clock;
  private readonly objects = new Map<string, Informer<CachedKind<AutoscalerKind>>>();
  private readonly statuses = new Map<string, Informer<StatusRecord<StatusOfKind<AutoscalerKind>>>>();
  private readonly clusterStatus: Informer<ClusterStatusRecord>;
  private readonly controller: Controller;
  /** Each cluster's foreign HPAs as last seen, to requeue everything only when they change. */
  private readonly foreignSeen = new Map<string, string>();
  private foreignChanged = false;

  constructor(private readonly o: ReplicaOwnersControllerOptions) {
    this.clock = o.clock ?? systemClock;
    for (const kind of TRAIL_AUTOSCALER_KINDS) {
      // The FederatedHPA informer is the FederatedHPA controller's too: one projection keeps what both read.
      this.objects.set(
        kind,
        kind === 'FederatedHPA'
          ? (o.informers.objects(kind, FEDERATED_HPA_PROJECTION) as Informer<CachedKind<AutoscalerKind>>)
          : o.informers.objects(kind),
      );
      this.statuses.set(kind, o.informers.status(kind));
    }
    this.clusterStatus = o.informers.status('Cluster');
    const nothing = () => undefined;
    this.controller = defineController({
      name: REPLICA_OWNERS_CONTROLLER_NAME,
      watches: [
        ...[...this.objects.values()].map((source) => ({ source })),
        // Read at each pass: a condition the controller wrote reconciles nothing.
        ...[...this.statuses.values()].map((source) => ({ source, onChange: nothing })),
        {
          source: this.clusterStatus,
          onEvent: (e: InformerEvent<ClusterStatusRecord>) => {
            const seen =
              e.type === 'upsert' ? JSON.stringify(e.value.status.foreignHorizontalPodAutoscalers ?? []) : '[]';
            this.foreignChanged = seen !== (this.foreignSeen.get(e.key) ?? '[]');
            this.foreignSeen.set(e.key, seen);
          },
          onChange: (_e: unknown, c: ControllerQueue) => {
            if (this.foreignChanged) c.enqueueAll();
          },
        },
      ],
      keys: () => this.keys(),
      reconcile: (k) => this.reconcile(k),
      resyncMs: o.resyncMs ?? 30_000,
      logger: o.logger,
      ...(o.registry ? { registry: o.registry } : {}),
      failureEvents: { publish: o.publish, objectOf: refFromKey },
      now: () => this.clock.now().getTime(),
    });
  }

  async start(): Promise<void> {
    await this.controller.start();
  }

  async stop(): Promise<void> {
    await this.controller.stop();
  }

  async idle(): Promise<void> {
    await this.controller.idle();
  }

  private *keys(): Generator<string> {
    for (const i of this.objects.values()) yield* i.cache.keys();
  }

  private foreignByCluster(): Map<string, ForeignHorizontalPodAutoscaler[]> {
    const out = new Map<string, ForeignHorizontalPodAutoscaler[]>();
    for (const [key, { value }] of this.clusterStatus.cache) {
      const hpas = value.status.foreignHorizontalPodAutoscalers;
      if (hpas?.length) out.set(refFromKey(key).name, hpas);
    }
    return out;
  }

  private async reconcile(key: string): Promise<void> {
    const ref = refFromKey(key);
    const autoscaler = this.objects.get(ref.kind)?.cache.get(key)?.value;
    if (!autoscaler) return;
    const current = conditionsOf(this.statuses.get(ref.kind)?.cache.get(key)?.value.status)?.find(
      (c) => c.type === REPLICA_OWNER_CONFLICT,
    );
    const federatedHpas = this.objects
      .get('FederatedHPA')!
      .values()
      .filter((f) => f.metadata.namespace === ref.namespace);
    const now = this.clock.now();
    const d = decideOwnerConflict({
      autoscaler,
      federatedHpas,
      foreignByCluster: this.foreignByCluster(),
      current,
      now,
    });
    if (!d.condition) return;
    const id = `${autoscaler.metadata.uid ?? key}/${REPLICA_OWNER_CONFLICT}/${sha(
      `${d.condition.status}\n${d.condition.message}\n${current?.status ?? '-'}\n${current?.lastTransitionTime ?? '-'}`,
    )}`;
    const type = d.condition.status === 'True' ? REPLICA_OWNER_CONFLICT : REPLICA_OWNER_CONFLICT_RESOLVED;
    for (const [i, e] of d.events.entries()) {
      const own = e.on.kind === ref.kind && e.on.name === ref.name;
      await this.o.publish(
        cloudEvent({
          id: `${id}/${i}`,
          source: REPLICA_OWNERS_CONTROLLER_NAME,
          type,
          kind: e.on.kind,
          namespace: e.on.namespace,
          name: e.on.name,
          time: now,
          data: {
            conflicts: d.conflicts,
            autoscaler: `${ref.kind}/${ref.name}`,
            // The condition goes on the autoscaler only; the workload gets the Warning.
            ...(own ? { statusPatch: { conditions: [d.condition] } } : {}),
            kubeEvent: { type: e.type, reason: e.reason, message: e.message },
          } satisfies OwnerConflictData,
        }),
      );
    }
  }
}
