import { FederatedHpaAnnotations } from '@flotilla/api/core';
import {
  APPLIED_PLACEMENT_ANNOTATION,
  podNodeClaim,
  podSpecRequests,
  type ResourceBindingStatus,
} from '@flotilla/scheduling';
import { deepFreeze, type StatusRecord, type StoredObject } from '@flotilla/store';

type Json = Record<string, unknown>;

/** A template as detection reads it: what `templateProjection` keeps. */
export type TemplateView = StoredObject & { spec: Record<string, unknown>; value?: number };

/**
 * What detection reads of a template: identity, labels, replicas and the pod template's per-replica request (and a
 * PriorityClass's value). The
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
    spec: specView(spec.replicas, podTemplateProjection(spec.template)),
    // A PriorityClass is a template too; its value is the priority of the bindings whose policy names it.
    ...(o.kind === 'PriorityClass' ? { value: Number((o as { value?: unknown }).value) || 0 } : {}),
  };
}

/**
 * `{ replicas?, template? }`, built by assignment: a spread of optional parts here gave every cached template a
 * hidden class of its own in V8 (some 300 B each), where assignments share one.
 */
function specView(replicas: unknown, template: { spec: unknown } | undefined): Record<string, unknown> {
  const view: Record<string, unknown> = {};
  if (replicas !== undefined) view.replicas = replicas;
  if (template !== undefined) view.template = template;
  return view;
}

/**
 * The request is computed here, by the function detection uses, and kept as the one container of a stand-in pod
 * spec: requesting exactly that, it yields the same request again, so detection needs no second code path and no
 * list of the pod spec fields the rule reads. The node claim's fields are kept as they are. A pod spec whose request cannot be computed is kept whole, so that
 * detection fails on it with the field path, as it would on the stored template.
 */
function podTemplateProjection(template: unknown): { spec: unknown } | undefined {
  const podSpec = (template as Json | undefined)?.spec;
  if (podSpec === undefined) return undefined;
  let request: ReturnType<typeof podSpecRequests>;
  try {
    request = podSpecRequests(podSpec);
  } catch {
    return { spec: podSpec };
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
  return Object.keys(spec).length ? { spec } : undefined;
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

/** Distinct placements a PlacementSharing keeps before it starts over (policies are few; their edits add more). */
export const PLACEMENT_SHARING_LIMIT = 1024;

/**
 * Bindings of one policy carry the same placement, and the same again as their applied-placement annotation (its
 * JSON): the scheduler keeps one frozen copy of each distinct placement, and one of its JSON, shared by every binding
 * that has it, instead of a copy per binding (some 640 B each, measured; 6 MB at 10,000 bindings). Frozen, so that a
 * reader that changed one binding's placement in place would throw instead of changing every binding's. Past `limit`
 * distinct placements it forgets them and shares anew (bindings already cached keep theirs).
 */
export class PlacementSharing {
  private readonly byJson = new Map<string, { placement: unknown; json: string }>();

  constructor(private readonly limit = PLACEMENT_SHARING_LIMIT) {}

  /** `binding`, changed in place: its placement and applied-placement annotation replaced by the shared ones. */
  share<T extends StoredObject>(binding: T): T {
    const spec = binding.spec as Json | undefined;
    if (spec?.placement === undefined || spec.placement === null) return binding;
    const json = JSON.stringify(spec.placement);
    let shared = this.byJson.get(json);
    if (!shared) {
      if (this.byJson.size >= this.limit) this.byJson.clear();
      shared = { placement: deepFreeze(spec.placement), json };
      this.byJson.set(json, shared);
    }
    spec.placement = shared.placement;
    const annotations = binding.metadata.annotations;
    if (annotations?.[APPLIED_PLACEMENT_ANNOTATION] === json) annotations[APPLIED_PLACEMENT_ANNOTATION] = shared.json;
    return binding;
  }

  /** How many distinct placements are shared now. */
  get size(): number {
    return this.byJson.size;
  }
}
