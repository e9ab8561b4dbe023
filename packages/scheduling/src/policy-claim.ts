import {
  ClaimAnnotations,
  findMatchingPolicy,
  ImplicitPriority,
  isClusterPolicy,
  policyMatchPriority,
} from './detection.js';
import type { PropagationPolicy, ResourceTemplate } from './types.js';

export interface PolicyClaim {
  kind: 'PropagationPolicy' | 'ClusterPropagationPolicy';
  namespace?: string;
  name: string;
}

/** The claim recorded in a binding's annotations; a PropagationPolicy's claim is read first, as Karmada's detector does. */
export function policyClaim(annotations: Readonly<Record<string, string>> | undefined): PolicyClaim | undefined {
  const name = annotations?.[ClaimAnnotations.policyName];
  const namespace = annotations?.[ClaimAnnotations.policyNamespace];
  if (name && namespace) return { kind: 'PropagationPolicy', namespace, name };
  const clusterName = annotations?.[ClaimAnnotations.clusterPolicyName];
  return clusterName ? { kind: 'ClusterPropagationPolicy', name: clusterName } : undefined;
}

/**
 * The policy that propagates `template` given the policy that already claimed it. Priority only decides
 * the first match (Karmada): the claiming policy keeps the template while it exists and still selects
 * it, unless a matching policy with `preemption: Always` preempts it. Without a live claim this is
 * findMatchingPolicy.
 */
export function claimingPolicy(
  template: ResourceTemplate,
  policies: readonly PropagationPolicy[],
  claim: PolicyClaim | undefined,
): PropagationPolicy | undefined {
  // A PropagationPolicy only ever claims templates of its own namespace, whatever the claim says (as findMatchingPolicy).
  const held =
    claim &&
    policies.find(
      (p) => claims(p, claim) && (isClusterPolicy(p) || p.metadata.namespace === template.metadata.namespace),
    );
  if (!held || policyMatchPriority(template, held) === ImplicitPriority.MisMatch)
    return findMatchingPolicy(template, policies);
  return (
    findMatchingPolicy(
      template,
      policies.filter((p) => p !== held && preempts(p, held)),
    ) ?? held
  );
}

/**
 * Karmada's preemption order, for a challenger with `preemption: Always`: a PropagationPolicy preempts
 * one of lower priority and any ClusterPropagationPolicy; a ClusterPropagationPolicy preempts only one
 * of lower priority.
 */
export function preempts(challenger: PropagationPolicy, holder: PropagationPolicy): boolean {
  if (challenger.spec.preemption !== 'Always') return false;
  const higher = (challenger.spec.priority ?? 0) > (holder.spec.priority ?? 0);
  if (isClusterPolicy(challenger)) return isClusterPolicy(holder) && higher;
  return isClusterPolicy(holder) || higher;
}

function claims(p: PropagationPolicy, claim: PolicyClaim): boolean {
  if (claim.kind === 'ClusterPropagationPolicy') return isClusterPolicy(p) && p.metadata.name === claim.name;
  return !isClusterPolicy(p) && p.metadata.name === claim.name && p.metadata.namespace === claim.namespace;
}
