import { compareNames } from '@flotilla/scheduling';
import { byPriority } from './preference-order.js';
import type { AssignmentPolicy, BindingCluster } from './types.js';
import type { RunningMember } from './optimise-max.js';

export interface ScaleToZeroInput {
  policy: AssignmentPolicy;
  scalingToZero: boolean;
  /** The FederatedHPA's minReplicas: the federation-wide floor. */
  federationMin: number;
  /** Current utilisation of the target across clusters and the FederatedHPA's target, in the same unit. */
  utilisation: number;
  targetUtilisation: number;
  members: readonly RunningMember[];
}

export type ScaleToZeroDecision =
  | { action: 'None' }
  | { action: 'ScaleToZero'; scaled: BindingCluster[] }
  | { action: 'ScaleFromZero'; scaled: BindingCluster[] };

/**
 * Scaling to and from zero (Karmada's FederatedHPA proposal; only with `scalingToZero`, never for Duplicated).
 * To zero: when every running cluster sits at its min, Σmin is above the FederatedHPA's min and utilisation is
 * below target, one cluster per cycle goes to 0: smallest static weight (StaticWeighted), smallest availability
 * (DynamicWeighted), fewest replicas (Aggregated), lowest priority (Prioritized); ties by name. Only a cluster
 * whose min fits in Σmin − the FederatedHPA's min qualifies, so the federation-wide floor holds. From zero: when
 * utilisation is above target, every cluster at 0 returns to its min (at least 1); under Prioritized only the most
 * preferred of them.
 */
export function scaleToZero(input: ScaleToZeroInput): ScaleToZeroDecision {
  const { policy, members } = input;
  if (!input.scalingToZero || policy === 'Duplicated') return { action: 'None' };
  const running = members.filter((m) => m.currentReplicas > 0);
  const idle = members.filter((m) => m.currentReplicas === 0);
  if (input.utilisation < input.targetUtilisation) {
    if (running.some((m) => m.currentReplicas !== m.minReplicas)) return { action: 'None' };
    let minSum = 0;
    for (const m of running) minSum += m.minReplicas;
    const excess = minSum - input.federationMin;
    if (excess <= 0) return { action: 'None' };
    const victim = running.filter((m) => m.minReplicas <= excess).sort(leastWanted(policy))[0];
    return victim ? { action: 'ScaleToZero', scaled: [{ name: victim.name, replicas: 0 }] } : { action: 'None' };
  }
  if (input.utilisation > input.targetUtilisation && idle.length > 0) {
    const back =
      policy === 'Prioritized'
        ? [[...idle].sort(byPriority)[0]!]
        : [...idle].sort((a, b) => compareNames(a.name, b.name));
    return {
      action: 'ScaleFromZero',
      scaled: back.map((m) => ({ name: m.name, replicas: Math.max(1, m.minReplicas) })),
    };
  }
  return { action: 'None' };
}

function leastWanted(policy: Exclude<AssignmentPolicy, 'Duplicated'>): (a: RunningMember, b: RunningMember) => number {
  switch (policy) {
    case 'StaticWeighted':
      return (a, b) => a.staticWeight - b.staticWeight || compareNames(a.name, b.name);
    case 'DynamicWeighted':
      return (a, b) => a.available - b.available || compareNames(a.name, b.name);
    case 'Aggregated':
      return (a, b) => a.currentReplicas - b.currentReplicas || compareNames(a.name, b.name);
    case 'Prioritized':
      return (a, b) => (a.priority ?? -Infinity) - (b.priority ?? -Infinity) || compareNames(a.name, b.name);
  }
}
