import type { FederatedHPASpec } from '@flotilla/api';
import type { Cluster, ResourceList } from '@flotilla/scheduling';
import { clusterAvailability, parsedPodRequests } from './availability.js';
import { byPriority } from './preference-order.js';
import { clusterPreference } from './preferences.js';
import type { ClusterFacts } from './types.js';

/**
 * What the FederatedHPA's policy knows about each cluster: availability from the estimator, static weight and
 * priority from clusterAutoscalingPreference. Aligned with `clusters`. By default everything is worked out, as the
 * scaling decisions need it; `forAssignment` works out only what the initial split reads, because estimation and
 * preference matching are most of an assignment's cost: Duplicated and StaticWeighted estimate nothing, and
 * Prioritized estimates clusters in priority order only until the max is placed (usually in the first cluster) —
 * a cluster after that point gets nothing whatever its room, so its availability is left at 0.
 */
export function clusterFacts(
  spec: FederatedHPASpec,
  clusters: readonly Cluster[],
  podRequests: ResourceList | undefined,
  options: { forAssignment?: boolean } = {},
): ClusterFacts[] {
  const policy = spec.federatedHPAAssignment?.federatedHPAAssignmentType ?? 'Duplicated';
  const lean = options.forAssignment === true;
  const preferences =
    !lean || policy === 'StaticWeighted' || policy === 'Prioritized'
      ? spec.federatedHPAAssignment?.clusterAutoscalingPreference
      : undefined;
  const facts: ClusterFacts[] = clusters.map((c) => {
    const fact: ClusterFacts = { name: c.metadata.name ?? '', available: 0, staticWeight: 0, priority: undefined };
    if (preferences) Object.assign(fact, clusterPreference(c, preferences));
    return fact;
  });
  if (lean && (policy === 'Duplicated' || policy === 'StaticWeighted')) return facts;
  const requests = parsedPodRequests(podRequests);
  if (!lean || policy !== 'Prioritized') {
    facts.forEach((f, i) => (f.available = clusterAvailability(clusters[i]!, requests)));
    return facts;
  }
  const order = facts.map((f, i) => ({ f, i, name: f.name, priority: f.priority })).sort(byPriority);
  let placed = 0;
  for (const { f, i } of order) {
    if (placed >= spec.maxReplicas) break;
    f.available = clusterAvailability(clusters[i]!, requests);
    placed += f.available;
  }
  return facts;
}
