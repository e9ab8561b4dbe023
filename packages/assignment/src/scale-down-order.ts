import { byClusterName, byPriority } from './preference-order.js';
import type { BindingCluster, MemberAssignment } from './types.js';

export interface ScaleDownMember {
  name: string;
  priority: number | undefined;
  minReplicas: number;
  maxReplicas: number;
  currentReplicas: number;
}

export interface ScaleDownPlan {
  /** The cluster whose member HPA is left to scale down now (the least preferred one above its min). */
  scalingDown: string | undefined;
  /** More preferred clusters, held at their current replicas while it scales down. */
  pinned: BindingCluster[];
  assignments: MemberAssignment[];
  /** Whether any member HPA's max changes. */
  changed: boolean;
}

/**
 * Scaling down lowest priority first (Karmada's FederatedHPA proposal), for a Prioritized FederatedHPA whose load
 * is falling: every cluster more preferred than the least preferred one still above its min is pinned at its
 * current scale, so only that one's member HPA scales down. A less preferred cluster that has reached its min
 * hands its max above min to the most preferred cluster, so the total max is kept where scaling up starts.
 */
export function scaleDownOrder(members: readonly ScaleDownMember[]): ScaleDownPlan {
  const order = [...members].sort(byPriority).map((m) => ({ ...m }));
  let changed = false;
  let scalingDown: number | undefined;
  for (let i = order.length - 1; i >= 0; i--) {
    const m = order[i]!;
    if (m.currentReplicas > m.minReplicas) {
      scalingDown = i;
      break;
    }
    const freed = m.maxReplicas - m.minReplicas;
    if (i > 0 && freed > 0) {
      m.maxReplicas = m.minReplicas;
      order[0]!.maxReplicas += freed;
      changed = true;
    }
  }
  const pinned =
    scalingDown === undefined
      ? []
      : order.slice(0, scalingDown).map((m) => ({ name: m.name, replicas: m.currentReplicas }));
  const assignments = order
    .map((m) => ({ cluster: m.name, minReplicas: m.minReplicas, maxReplicas: m.maxReplicas }))
    .sort(byClusterName);
  return {
    scalingDown: scalingDown === undefined ? undefined : order[scalingDown]!.name,
    pinned,
    assignments,
    changed,
  };
}
