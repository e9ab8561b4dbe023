import type { FederatedHPAAssignment } from '@flotilla/api';
import { clusterMatchesAffinity, type Cluster } from '@flotilla/scheduling';

type Preference = NonNullable<FederatedHPAAssignment['clusterAutoscalingPreference']>[number];

/**
 * The static weight and priority clusterAutoscalingPreference gives one cluster. Several matching preferences:
 * the largest value wins, as in Karmada's static weight list. No match: weight 0, no priority.
 */
export function clusterPreference(
  cluster: Cluster,
  preferences: readonly Preference[] | undefined,
): { staticWeight: number; priority: number | undefined } {
  let staticWeight = 0;
  let priority: number | undefined;
  for (const p of preferences ?? []) {
    if (!clusterMatchesAffinity(cluster, p.targetCluster)) continue;
    if (p.staticWeight !== undefined && p.staticWeight > staticWeight) staticWeight = p.staticWeight;
    if (p.priority !== undefined && (priority === undefined || p.priority > priority)) priority = p.priority;
  }
  return { staticWeight, priority };
}
