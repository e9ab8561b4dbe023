import { FederatedHpaAnnotations } from '@flotilla/api';
import type { AggregatedWorkloadEntry } from '@flotilla/hpa-math';
import type { CachedKind, StatusRecord, StoredObject } from '@flotilla/store';
import type { BindingSpecRead } from './pass.js';

/** A binding as a pass reads it: what `bindingProjection` keeps. */
export type BindingView = StoredObject & { spec: BindingSpecRead };
const KEPT_ANNOTATIONS = Object.values(FederatedHpaAnnotations) as string[];

/** What a pass reads of a binding: identity, the FederatedHPA annotations, resource, clusters and requests. */
export function bindingProjection(o: CachedKind<'ResourceBinding'>): BindingView {
  const { name, namespace, uid, resourceVersion, generation, annotations } = o.metadata;
  const spec: BindingSpecRead = o.spec ?? {};
  const kept = Object.entries(annotations ?? {}).filter(([k]) => KEPT_ANNOTATIONS.includes(k));
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    metadata: {
      name,
      ...(namespace ? { namespace } : {}),
      ...(uid ? { uid } : {}),
      ...(resourceVersion ? { resourceVersion } : {}),
      ...(generation !== undefined ? { generation } : {}),
      ...(kept.length ? { annotations: Object.fromEntries(kept) } : {}),
    },
    spec: {
      ...(spec.resource ? { resource: spec.resource } : {}),
      ...(spec.clusters ? { clusters: spec.clusters } : {}),
      ...(spec.replicaRequirements?.resourceRequest
        ? { replicaRequirements: { resourceRequest: spec.replicaRequirements.resourceRequest } }
        : {}),
    },
  };
}

/** What a pass reads of a binding's status: per cluster the replica counts, cpu request and the member HPA's status. */
export function bindingStatusProjection(
  r: StatusRecord<{ aggregatedStatus?: AggregatedWorkloadEntry[] }>,
): StatusRecord<{ aggregatedStatus?: AggregatedWorkloadEntry[] }> {
  const entries = r.status?.aggregatedStatus;
  if (!entries) return { seq: r.seq, status: {} };
  return {
    seq: r.seq,
    status: {
      aggregatedStatus: entries.map((e) => {
        const st = e.status;
        if (!st) return { clusterName: e.clusterName };
        const { replicas, readyReplicas, pendingReplicas, cpuRequestMilli, hpa } = st;
        return {
          clusterName: e.clusterName,
          status: { replicas, readyReplicas, pendingReplicas, cpuRequestMilli, hpa },
        };
      }),
    },
  };
}

/**
 * The projections of the process's shared binding informers: the FederatedHPA and EffectiveHPA controllers read
 * the same fields (identity, clusters, requests; per cluster the replica counts, cpu and member HPA), so one cache
 * of each serves both.
 */
export const BINDING_PROJECTION = { name: 'hpa-assigner-binding', project: bindingProjection };
export const BINDING_STATUS_PROJECTION = { name: 'hpa-assigner-binding-status', project: bindingStatusProjection };
