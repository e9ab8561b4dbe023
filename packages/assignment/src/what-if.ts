import { isDeepStrictEqual } from 'node:util';
import { FederatedHpaAnnotations, type FederatedHPA } from '@flotilla/api';
import { feasibleClusterNames, whatIfSchedule, type Cluster, type ResourceBinding } from '@flotilla/scheduling';
import { decideFederatedHpa, type MemberStatus } from './decide-federated-hpa.js';
import { AssignmentInputError } from './errors.js';
import type { MemberAssignment } from './types.js';

export interface FederatedHpaWhatIf {
  /** The target's ResourceBinding after the hpa-assigner's update. */
  binding: ResourceBinding;
  /** One entry per cluster that gets a member HPA. */
  assignments: MemberAssignment[];
}

/** The optimisation period is irrelevant to a first assignment; the service's default is used. */
const OPTIMISE_PERIOD_MS = 300_000;

interface AggregatedEntry {
  clusterName: string;
  status?: { replicas?: number; readyReplicas?: number; pendingReplicas?: number };
}

/**
 * Offline planning for a FederatedHPA with an assignment ("what would each member HPA get?"), by the functions the
 * services run: given admitted documents — Clusters with hand-written status, the target, its PropagationPolicy,
 * optionally the existing ResourceBinding and the FederatedHPA — the binding comes from the input when given,
 * else from the scheduler's own what-if (`whatIfSchedule`); the affinity scheduler's filters give the candidate
 * clusters (`feasibleClusterNames`); then one pass of the hpa-assigner (`decideFederatedHpa`) as a first
 * assignment. The members' replicas are the binding's aggregatedStatus when given, else its spec.clusters.
 * Throws AssignmentInputError naming `objects[i]…` for what cannot be planned.
 */
export function whatIfFederatedHpa(objects: readonly unknown[], now: Date): FederatedHpaWhatIf {
  const fhpas: Array<{ fhpa: FederatedHPA; path: string }> = [];
  const rest: unknown[] = [];
  objects.forEach((o, i) => {
    if ((o as { kind?: unknown } | null)?.kind === 'FederatedHPA')
      fhpas.push({ fhpa: o as FederatedHPA, path: `objects[${i}]` });
    else rest.push(o);
  });
  if (fhpas.length !== 1) {
    throw new AssignmentInputError('objects', `expected exactly one FederatedHPA, found ${fhpas.length}`);
  }
  const { fhpa, path } = fhpas[0]!;
  const spec = fhpa.spec;
  if (!spec) throw new AssignmentInputError(`${path}.spec`, 'required');
  if (!spec.federatedHPAAssignment) {
    throw new AssignmentInputError(
      `${path}.spec.federatedHPAAssignment`,
      "required: without it the FederatedHPA is Karmada's shipped one, which assigns no member HPAs",
    );
  }
  const ns = fhpa.metadata.namespace ?? 'default';
  const ref = spec.scaleTargetRef;
  const bindingName = `${ref.name}-${ref.kind.toLowerCase()}`;
  const isTarget = (o: unknown) => {
    const b = o as ResourceBinding;
    return (
      b?.kind === 'ResourceBinding' && b.metadata?.name === bindingName && (b.metadata.namespace ?? 'default') === ns
    );
  };
  const clusters = rest.filter((o) => (o as { kind?: unknown } | null)?.kind === 'Cluster') as Cluster[];
  // A binding a FederatedHPA owns is not scheduled again: the given one stands; else the scheduler makes it.
  const given = rest.find(isTarget) as ResourceBinding | undefined;
  const binding = given ?? whatIfSchedule(rest, now).find(isTarget);
  if (!binding) {
    throw new AssignmentInputError(
      `${path}.spec.scaleTargetRef`,
      `no ResourceBinding ${ns}/${bindingName}: give one, or the ${ref.kind} and a PropagationPolicy that selects it`,
    );
  }
  const entries = (binding.status as { aggregatedStatus?: AggregatedEntry[] } | undefined)?.aggregatedStatus ?? [];
  const members: MemberStatus[] = entries.length
    ? entries.map((e) => ({
        cluster: e.clusterName,
        specReplicas: e.status?.replicas ?? 0,
        readyReplicas: e.status?.readyReplicas ?? e.status?.replicas ?? 0,
        pendingReplicas: e.status?.pendingReplicas ?? 0,
      }))
    : (binding.spec.clusters ?? []).map((c) => ({
        cluster: c.name,
        specReplicas: c.replicas ?? 0,
        readyReplicas: c.replicas ?? 0,
        pendingReplicas: 0,
      }));
  const feasible = feasibleClusterNames(binding, clusters, now);
  const requests = binding.spec.replicaRequirements?.resourceRequest;
  const decision = decideFederatedHpa(
    {
      spec,
      generation: fhpa.metadata.generation ?? 1,
      clusters,
      candidates: feasible,
      ...(requests ? { podRequests: requests } : {}),
      members,
      bindingClusters: binding.spec.clusters ?? [],
      starved: new Set(),
      optimisePeriodMs: OPTIMISE_PERIOD_MS,
    },
    now.getTime(),
  );
  const annotations = {
    ...binding.metadata.annotations,
    [FederatedHpaAnnotations.owner]: fhpa.metadata.name!,
    [FederatedHpaAnnotations.feasibleClusters]: feasible.join(','),
  };
  const nextSpec = { ...binding.spec, clusters: decision.bindingClusters };
  const generation = (binding.metadata.generation ?? 1) + (isDeepStrictEqual(binding.spec, nextSpec) ? 0 : 1);
  return {
    binding: { ...binding, metadata: { ...binding.metadata, annotations, generation }, spec: nextSpec },
    assignments: decision.assignments,
  };
}
