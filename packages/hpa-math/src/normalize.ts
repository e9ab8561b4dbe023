/** Why the normalised count differs from (or equals) the stabilized proposal; Kubernetes' ScalingLimited reasons. */
export type LimitReason =
  | 'DesiredWithinRange'
  | 'TooFewReplicas'
  | 'TooManyReplicas'
  | 'ScaleUpLimit'
  | 'ScaleDownLimit';

export interface Limited {
  replicas: number;
  reason: LimitReason;
}

/** Without `behavior`, one reconcile may at most double the replicas, and always reach 4. */
export function defaultScaleUpLimit(currentReplicas: number): number {
  return Math.max(2 * currentReplicas, 4);
}

/**
 * Kubernetes' `convertDesiredReplicasWithRules` (an HPA without `behavior`): clamp to
 * [minReplicas, min(maxReplicas, max(2 × current, 4))], naming the bound that applied.
 */
export function clampWithoutBehavior(input: {
  currentReplicas: number;
  desiredReplicas: number;
  minReplicas: number;
  maxReplicas: number;
}): Limited {
  const scaleUpLimit = defaultScaleUpLimit(input.currentReplicas);
  const upper: Limited =
    input.maxReplicas > scaleUpLimit
      ? { replicas: scaleUpLimit, reason: 'ScaleUpLimit' }
      : { replicas: input.maxReplicas, reason: 'TooManyReplicas' };
  if (input.desiredReplicas < input.minReplicas) return { replicas: input.minReplicas, reason: 'TooFewReplicas' };
  if (input.desiredReplicas > upper.replicas) return upper;
  return { replicas: input.desiredReplicas, reason: 'DesiredWithinRange' };
}
