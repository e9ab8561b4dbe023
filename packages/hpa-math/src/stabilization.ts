/** One past proposal of the replica calculator, kept for the stabilization windows. */
export interface Recommendation {
  replicas: number;
  atMs: number;
}

export type StabilizationReason = 'ReadyForNewScale' | 'ScaleUpStabilized' | 'ScaleDownStabilized';

export interface Stabilized {
  replicas: number;
  /** The history to keep for the next reconcile (the input is not mutated). */
  recommendations: Recommendation[];
  reason: StabilizationReason;
}

/** `--horizontal-pod-autoscaler-downscale-stabilization`: the controller's default downscale window. */
export const DEFAULT_DOWNSCALE_STABILIZATION_SECONDS = 300;

/**
 * Stores `proposal` the way Kubernetes does: the last entry found stale takes its slot, so the history stays as
 * long as the window holds proposals instead of growing every reconcile.
 */
function record(
  recommendations: readonly Recommendation[],
  staleIndex: number,
  proposal: Recommendation,
): Recommendation[] {
  const next = [...recommendations];
  if (staleIndex >= 0) next[staleIndex] = proposal;
  else next.push(proposal);
  return next;
}

/**
 * Kubernetes' `stabilizeRecommendation` (an HPA without `behavior`): the highest proposal of the downscale window
 * wins, so scale-downs wait out the window while scale-ups apply at once. An entry exactly `windowSeconds` old still
 * counts (the controller drops only entries before the cutoff).
 */
export function stabilizeDownscale(input: {
  recommendations: readonly Recommendation[];
  proposedReplicas: number;
  windowSeconds?: number;
  nowMs: number;
}): Stabilized {
  const cutoff = input.nowMs - (input.windowSeconds ?? DEFAULT_DOWNSCALE_STABILIZATION_SECONDS) * 1000;
  let replicas = input.proposedReplicas;
  let stale = -1;
  input.recommendations.forEach((r, i) => {
    if (r.atMs < cutoff) stale = i;
    else if (r.replicas > replicas) replicas = r.replicas;
  });
  return {
    replicas,
    recommendations: record(input.recommendations, stale, { replicas: input.proposedReplicas, atMs: input.nowMs }),
    reason: replicas === input.proposedReplicas ? 'ReadyForNewScale' : 'ScaleDownStabilized',
  };
}

/**
 * Kubernetes' `stabilizeRecommendationWithBehaviors` (1.21+, the envelope rule): the lowest proposal of the
 * scale-up window is a floor and the highest of the scale-down window a ceiling, and the current replicas are
 * moved into [floor, ceiling]. A proposal counts for a window only while younger than it, so a 0 s window holds
 * nothing but the new proposal.
 */
export function stabilizeWithBehavior(input: {
  recommendations: readonly Recommendation[];
  currentReplicas: number;
  proposedReplicas: number;
  scaleUpWindowSeconds: number;
  scaleDownWindowSeconds: number;
  nowMs: number;
}): Stabilized {
  const { proposedReplicas: proposed, nowMs } = input;
  const upCutoff = nowMs - input.scaleUpWindowSeconds * 1000;
  const downCutoff = nowMs - input.scaleDownWindowSeconds * 1000;
  let floor = proposed;
  let ceiling = proposed;
  let stale = -1;
  input.recommendations.forEach((r, i) => {
    if (r.atMs > upCutoff) floor = Math.min(floor, r.replicas);
    if (r.atMs > downCutoff) ceiling = Math.max(ceiling, r.replicas);
    if (r.atMs < upCutoff && r.atMs < downCutoff) stale = i;
  });
  const replicas = Math.min(Math.max(input.currentReplicas, floor), ceiling);
  let reason: StabilizationReason = 'ReadyForNewScale';
  if (replicas !== proposed) reason = proposed >= input.currentReplicas ? 'ScaleUpStabilized' : 'ScaleDownStabilized';
  return {
    replicas,
    recommendations: record(input.recommendations, stale, { replicas: proposed, atMs: nowMs }),
    reason,
  };
}
