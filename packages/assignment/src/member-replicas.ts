/**
 * The replicas a member workload is bound to under its member HPA: the current count clamped into [min, max].
 * A workload at 0 stays at 0 only when the FederatedHPA allows scaling to zero; otherwise it is raised to min.
 */
export function memberReplicas(
  current: number,
  minReplicas: number,
  maxReplicas: number,
  scalingToZero: boolean,
): number {
  if (current === 0 && scalingToZero) return 0;
  return Math.min(Math.max(current, minReplicas), maxReplicas);
}
