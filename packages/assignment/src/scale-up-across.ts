import { byClusterName, byPriority } from './preference-order.js';
import type { BindingCluster, MemberAssignment } from './types.js';

export interface PrioritizedMember {
  name: string;
  priority: number | undefined;
  minReplicas: number;
  /** 0 for a candidate cluster that has no member HPA yet. */
  maxReplicas: number;
  /** Ready pods of the member workload. */
  readyReplicas: number;
  /** The member workload's spec.replicas. */
  currentReplicas: number;
}

export interface MaxMove {
  from: string;
  to: string;
  replicas: number;
}

export interface ScaleUpPlan {
  assignments: MemberAssignment[];
  /** Member workloads whose replicas change (a receiving cluster scaled from 0 to 1). */
  scaled: BindingCluster[];
  moves: MaxMove[];
  changed: boolean;
}

/**
 * Scaling up across clusters by priority (Karmada's FederatedHPA proposal): a starved cluster (pending pods for
 * autoscaleMultiClusterDelay; the caller keeps that timer) gives up the max it cannot use, keeping max(ready, min),
 * and the freed max goes to the next preferred cluster after it that is not starved, raised from 0 replicas to 1
 * so its member HPA can act. The total max is preserved. A starved cluster with no such successor keeps its max.
 */
export function scaleUpAcross(members: readonly PrioritizedMember[], starved: ReadonlySet<string>): ScaleUpPlan {
  const order = [...members].sort(byPriority).map((m) => ({ ...m }));
  const moves: MaxMove[] = [];
  const scaled = new Map<string, number>();
  order.forEach((m, i) => {
    if (!starved.has(m.name)) return;
    const keep = Math.max(m.readyReplicas, m.minReplicas);
    const freed = m.maxReplicas - keep;
    if (freed <= 0) return;
    const to = order.slice(i + 1).find((n) => !starved.has(n.name));
    if (!to) return;
    m.maxReplicas = keep;
    to.maxReplicas += freed;
    // A cluster that had no member HPA gets one now: the proposal's "min < 1 but max >= 1 -> min = 1".
    if (to.minReplicas < 1) to.minReplicas = 1;
    if (to.currentReplicas === 0) {
      to.currentReplicas = 1;
      scaled.set(to.name, 1);
    }
    moves.push({ from: m.name, to: to.name, replicas: freed });
  });
  const assignments = order
    .filter((m) => m.maxReplicas >= 1)
    .map((m) => ({ cluster: m.name, minReplicas: m.minReplicas, maxReplicas: m.maxReplicas }))
    .sort(byClusterName);
  return {
    assignments,
    scaled: [...scaled].map(([name, replicas]) => ({ name, replicas })),
    moves,
    changed: moves.length > 0,
  };
}
