import type { FederatedHPASpec } from '@flotilla/api';
import type { MemberHpaStatus } from '@flotilla/hpa-math';

/**
 * The federation's cpu utilisation for scaling to and from zero: the member HPAs' own, weighted by their replicas,
 * against the FederatedHPA's cpu Utilization target. Nothing when either is unknown.
 */
export function federationUtilisation(
  spec: FederatedHPASpec,
  hpas: readonly MemberHpaStatus[],
): { utilisation?: { current: number; target: number } } {
  const metric = spec.metrics?.find(
    (m) => m.type === 'Resource' && m.resource?.name === 'cpu' && m.resource.target.type === 'Utilization',
  );
  const target = metric?.resource?.target.averageUtilization;
  let replicas = 0;
  let weighted = 0;
  for (const h of hpas) {
    if (h.currentCPUUtilizationPercentage === undefined || !h.currentReplicas) continue;
    replicas += h.currentReplicas;
    weighted += h.currentCPUUtilizationPercentage * h.currentReplicas;
  }
  if (target === undefined || replicas === 0) return {};
  return { utilisation: { current: Math.round(weighted / replicas), target } };
}
