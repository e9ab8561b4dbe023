import type { StatusRecord, StoredObject } from '@flotilla/store';

type Json = Record<string, unknown>;

/**
 * What detection reads of a template: identity, labels, replicas and the containers' requests. The scheduler keeps
 * this instead of whole pod templates (images, env, volumes), which is most of a Deployment's size.
 */
export function templateProjection(o: StoredObject): StoredObject {
  const { name, namespace, uid, resourceVersion, labels } = o.metadata;
  const spec = (o.spec ?? {}) as Json;
  const podSpec = ((spec.template as Json | undefined)?.spec ?? {}) as Json;
  const containers = Array.isArray(podSpec.containers)
    ? (podSpec.containers as Json[]).map((c) => ({ resources: { requests: (c?.resources as Json | undefined)?.requests } }))
    : undefined;
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    metadata: { name, ...(namespace ? { namespace } : {}), ...(uid ? { uid } : {}), ...(resourceVersion ? { resourceVersion } : {}), ...(labels ? { labels } : {}) },
    spec: { ...(spec.replicas !== undefined ? { replicas: spec.replicas } : {}), ...(containers ? { template: { spec: { containers } } } : {}) },
  };
}

/** What scheduling reads of a binding's status (not the per-cluster aggregatedStatus, which can be large). */
export function bindingStatusProjection(r: StatusRecord): StatusRecord {
  const s = (r.status ?? {}) as Json;
  const conditions = Array.isArray(s.conditions) ? (s.conditions as Json[]).filter((c) => c.type === 'Scheduled') : undefined;
  return {
    seq: r.seq,
    status: {
      ...(s.schedulerObservingAffinityName !== undefined ? { schedulerObservingAffinityName: s.schedulerObservingAffinityName } : {}),
      ...(s.lastScheduledTime !== undefined ? { lastScheduledTime: s.lastScheduledTime } : {}),
      ...(s.schedulerObservedGeneration !== undefined ? { schedulerObservedGeneration: s.schedulerObservedGeneration } : {}),
      ...(conditions ? { conditions } : {}),
    },
  };
}

/**
 * The part of a cluster's status that can change where bindings go without the cluster object changing: readiness
 * and API enablements. Capacity (resourceSummary) changes with every pod placed; like Karmada, a change of capacity
 * alone reschedules nothing that is already placed.
 */
export function clusterSchedulingSignature(status: unknown): string {
  const s = (status ?? {}) as Json;
  const ready = Array.isArray(s.conditions) ? (s.conditions as Json[]).find((c) => c.type === 'Ready')?.status : undefined;
  return JSON.stringify([ready ?? null, s.apiEnablements ?? null]);
}
