import { isPlainObject } from '@flotilla/api/core';
import type { NodeClaim } from './types.js';

/**
 * The node constraints of a pod spec that a binding carries as `replicaRequirements.nodeClaim`, as Karmada's
 * `GenerateNodeClaimByPodSpec` (pkg/util/helper) takes them: the nodeSelector when set (even empty), the
 * tolerations when there are any, and the required node affinity when set. None of them → undefined.
 * A binding with a node claim has replica requirements, which decides how a workload at 0 replicas is divided.
 */
export function podNodeClaim(podSpec: unknown): NodeClaim | undefined {
  if (!isPlainObject(podSpec)) return undefined;
  const nodeSelector = isPlainObject(podSpec.nodeSelector)
    ? (podSpec.nodeSelector as Record<string, string>)
    : undefined;
  const tolerations =
    Array.isArray(podSpec.tolerations) && podSpec.tolerations.length > 0
      ? (podSpec.tolerations as NonNullable<NodeClaim['tolerations']>)
      : undefined;
  const nodeAffinity = isPlainObject(podSpec.affinity) ? podSpec.affinity.nodeAffinity : undefined;
  const required = isPlainObject(nodeAffinity)
    ? nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution
    : undefined;
  const hardNodeAffinity = isPlainObject(required) ? (required as NodeClaim['hardNodeAffinity']) : undefined;
  if (!nodeSelector && !tolerations && !hardNodeAffinity) return undefined;
  return {
    ...(nodeSelector && { nodeSelector }),
    ...(tolerations && { tolerations }),
    ...(hardNodeAffinity && { hardNodeAffinity }),
  };
}
