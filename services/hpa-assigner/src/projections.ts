import { FederatedHpaAnnotations } from '@flotilla/api/core';
import type { AggregatedWorkloadEntry } from '@flotilla/hpa-math';
import { SharedValues, type CachedKind, type StatusRecord, type StoredObject } from '@flotilla/store';
import type { BindingSpecRead } from './pass.js';

/** A binding as a pass reads it: what `bindingProjection` keeps. */
export type BindingView = StoredObject & { spec: BindingSpecRead };

/**
 * Read only of a member HPA's binding that an hpa-assigner from before the record moved to status wrote
 * (legacyRecordedAssignment, which reads nothing without the basis): kept only where the basis is.
 */
const LEGACY_ANNOTATIONS = [
  FederatedHpaAnnotations.assignmentBasis,
  FederatedHpaAnnotations.memberLimits,
  FederatedHpaAnnotations.pinnedMins,
  FederatedHpaAnnotations.optimisedAt,
] as const;
const MEMBER_HPA_KIND = 'HorizontalPodAutoscaler';
/** The spec of a binding a pass reads nothing of: one for all of them. */
const NOTHING_READ: BindingSpecRead = Object.freeze({});

const bindingValues = new SharedValues();

/**
 * What a pass reads of a binding: its name and namespace, the owner and feasible-clusters annotations (and the legacy
 * record's, where one is left), its clusters and per-replica request. A member HPA's binding (the one the
 * FederatedHPA controller writes) is read for being there and for its annotations only, never for its clusters:
 * its spec is left out. Built by assignment: a spread of optional parts gives each object a hidden class of its own.
 */
export function bindingProjection(o: CachedKind<'ResourceBinding'>): BindingView {
  const { name, namespace, annotations } = o.metadata;
  const kept = readAnnotations(annotations);
  // Literals, not properties added one by one: V8 keeps a literal's properties in the object, added ones in an array
  // of their own (some 40 B more an object).
  let metadata: BindingView['metadata'];
  if (namespace) metadata = kept ? { name, namespace, annotations: kept } : { name, namespace };
  else metadata = kept ? { name, annotations: kept } : { name };
  const stored = o.spec;
  let spec: BindingSpecRead = NOTHING_READ;
  if (stored && stored.resource?.kind !== MEMBER_HPA_KIND) {
    const clusters = stored.clusters && bindingValues.share(stored.clusters);
    const request = stored.replicaRequirements?.resourceRequest;
    const replicaRequirements = request && bindingValues.share({ resourceRequest: request });
    if (clusters && replicaRequirements) spec = { clusters, replicaRequirements };
    else if (clusters) spec = { clusters };
    else if (replicaRequirements) spec = { replicaRequirements };
  }
  return { apiVersion: bindingValues.share(o.apiVersion), kind: bindingValues.share(o.kind), metadata, spec };
}

function readAnnotations(annotations: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!annotations) return undefined;
  let kept: Record<string, string> | undefined;
  const keep = (k: string, v: string | undefined) => {
    if (v === undefined) return;
    kept ??= {};
    kept[k] = v;
  };
  const { owner, feasibleClusters, assignmentBasis } = FederatedHpaAnnotations;
  keep(owner, annotations[owner]);
  keep(feasibleClusters, bindingValues.share(annotations[feasibleClusters]));
  if (annotations[assignmentBasis] !== undefined) for (const k of LEGACY_ANNOTATIONS) keep(k, annotations[k]);
  return kept;
}

const fhpaValues = new SharedValues();

/**
 * What the FederatedHPA controller and the replica owners controller read of a FederatedHPA: its kind, name,
 * namespace, uid and generation, and its whole spec, whose policy, metrics and behaviour are shared with the
 * FederatedHPAs that have the same (its target's name is its own). Times, labels, annotations and resourceVersion
 * are read by neither.
 */
export function federatedHpaProjection(o: CachedKind<'FederatedHPA'>): CachedKind<'FederatedHPA'> {
  const { name, namespace, uid, generation } = o.metadata;
  let metadata: CachedKind<'FederatedHPA'>['metadata'];
  // Stored FederatedHPAs have all four (a literal, as in bindingProjection); anything else is kept as it comes.
  if (namespace && uid && generation !== undefined) metadata = { name, namespace, uid, generation };
  else {
    metadata = { name };
    if (namespace) metadata.namespace = namespace;
    if (uid) metadata.uid = uid;
    if (generation !== undefined) metadata.generation = generation;
  }
  const apiVersion = fhpaValues.share(o.apiVersion);
  const kind = fhpaValues.share(o.kind);
  const spec = o.spec as Record<string, unknown> | undefined;
  if (!spec) return { apiVersion, kind, metadata };
  // In place: the informer owns the value it just decoded.
  for (const [field, value] of Object.entries(spec))
    if (typeof value === 'object' && value !== null && field !== 'scaleTargetRef')
      spec[field] = fhpaValues.share(value);
  const ref = spec.scaleTargetRef as Record<string, unknown> | undefined;
  if (ref) {
    ref.apiVersion = fhpaValues.share(ref.apiVersion);
    ref.kind = fhpaValues.share(ref.kind);
  }
  return { apiVersion, kind, metadata, spec: o.spec };
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
/** The projection of the process's FederatedHPA informer, shared by the FederatedHPA and replica owners controllers. */
export const FEDERATED_HPA_PROJECTION = { name: 'hpa-assigner-federated-hpa', project: federatedHpaProjection };
