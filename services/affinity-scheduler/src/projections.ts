import { FederatedHpaAnnotations } from '@flotilla/api';
import { podNodeClaim, podSpecRequests, type ResourceBindingStatus } from '@flotilla/scheduling';
import type { StatusRecord, StoredObject } from '@flotilla/store';

type Json = Record<string, unknown>;

/** A template as detection reads it: what `templateProjection` keeps. */
export type TemplateView = StoredObject & { spec: Record<string, unknown> };

/**
 * What detection reads of a template: identity, labels, replicas and the pod template's per-replica request. The
 * scheduler keeps this instead of whole pod templates (images, env, volumes), which is most of a Deployment's size.
 */
export function templateProjection(o: StoredObject): TemplateView {
  const { name, namespace, uid, resourceVersion, labels } = o.metadata;
  const spec = (o.spec ?? {}) as Json;
  // A FederatedHPA's member HPA is propagated by the hpa-assigner, not by detection: the mark is kept to tell.
  const owner = o.metadata.annotations?.[FederatedHpaAnnotations.owner];
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    metadata: {
      name,
      ...(namespace ? { namespace } : {}),
      ...(uid ? { uid } : {}),
      ...(resourceVersion ? { resourceVersion } : {}),
      ...(labels ? { labels } : {}),
      ...(owner !== undefined ? { annotations: { [FederatedHpaAnnotations.owner]: owner } } : {}),
    },
    spec: {
      ...(spec.replicas !== undefined ? { replicas: spec.replicas } : {}),
      ...podTemplateProjection(spec.template),
    },
  };
}

/**
 * The request is computed here, by the function detection uses, and kept as the one container of a stand-in pod
 * spec: requesting exactly that, it yields the same request again, so detection needs no second code path and no
 * list of the pod spec fields the rule reads. The node claim's fields are kept as they are. A pod spec whose request cannot be computed is kept whole, so that
 * detection fails on it with the field path, as it would on the stored template.
 */
function podTemplateProjection(template: unknown): { template?: { spec: unknown } } {
  const podSpec = (template as Json | undefined)?.spec;
  if (podSpec === undefined) return {};
  let request: ReturnType<typeof podSpecRequests>;
  try {
    request = podSpecRequests(podSpec);
  } catch {
    return { template: { spec: podSpec } };
  }
  const claim = podNodeClaim(podSpec);
  const spec = {
    ...(request && { containers: [{ resources: { requests: request } }] }),
    ...(claim?.nodeSelector && { nodeSelector: claim.nodeSelector }),
    ...(claim?.tolerations && { tolerations: claim.tolerations }),
    ...(claim?.hardNodeAffinity && {
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: claim.hardNodeAffinity } },
    }),
  };
  return Object.keys(spec).length ? { template: { spec } } : {};
}

/** A binding's status as the scheduler keeps it, with the replicas each member cluster reported for it. */
export interface BindingStatusView extends StatusRecord<ResourceBindingStatus> {
  /** Cluster name → `status.replicas` of its aggregatedStatus entry (what the assume cache releases). */
  reported?: Record<string, number>;
}

/**
 * What scheduling reads of a binding's status: not the per-cluster aggregatedStatus, which can be large, but only
 * the replica count each cluster reported.
 */
export function bindingStatusProjection(r: StatusRecord): BindingStatusView {
  const s = (r.status ?? {}) as Json;
  const conditions = Array.isArray(s.conditions)
    ? (s.conditions as Json[]).filter((c) => c.type === 'Scheduled')
    : undefined;
  const reported: Record<string, number> = {};
  for (const e of Array.isArray(s.aggregatedStatus) ? (s.aggregatedStatus as Json[]) : []) {
    const replicas = (e.status as Json | undefined)?.replicas;
    if (typeof e.clusterName === 'string' && typeof replicas === 'number') reported[e.clusterName] = replicas;
  }
  return {
    seq: r.seq,
    ...(Object.keys(reported).length ? { reported } : {}),
    // The fields kept, as stored: the status writer folds them from the scheduler's own events.
    status: {
      ...(s.schedulerObservingAffinityName != null
        ? { schedulerObservingAffinityName: s.schedulerObservingAffinityName }
        : {}),
      ...(s.lastScheduledTime !== undefined ? { lastScheduledTime: s.lastScheduledTime } : {}),
      ...(s.schedulerObservedGeneration !== undefined
        ? { schedulerObservedGeneration: s.schedulerObservedGeneration }
        : {}),
      ...(conditions ? { conditions } : {}),
    } as ResourceBindingStatus,
  };
}

/**
 * The part of a cluster's status that can change where bindings go without the cluster object changing: readiness
 * and API enablements. Capacity (resourceSummary) changes with every pod placed; like Karmada, a change of capacity
 * alone reschedules nothing that is already placed.
 */
export function clusterSchedulingSignature(status: unknown): string {
  const s = (status ?? {}) as Json;
  const ready = Array.isArray(s.conditions)
    ? (s.conditions as Json[]).find((c) => c.type === 'Ready')?.status
    : undefined;
  return JSON.stringify([ready ?? null, s.apiEnablements ?? null]);
}
