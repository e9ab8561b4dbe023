import { SchedulingInputError } from './errors.js';
import { matchesLabelSelector } from '@flotilla/api/core';
import { podNodeClaim } from './node-claim.js';
import { podSpecRequests } from './pod-requests.js';
import type { PropagationPolicy, ResourceBinding, ResourceList, ResourceSelector, ResourceTemplate } from './types.js';
import { compareNames } from './webster.js';

/** How specifically a selector matched (Karmada's implicit priority); 0 means no match. */
export const ImplicitPriority = { MisMatch: 0, MatchAll: 1, MatchLabelSelector: 2, MatchName: 3 } as const;
export type ImplicitPriority = (typeof ImplicitPriority)[keyof typeof ImplicitPriority];

/**
 * Karmada's ResourceSelectorPriority: apiVersion, kind and (if set) namespace must match; then a
 * name match (the label selector is then ignored) beats a label-selector match beats match-all.
 */
export function selectorPriority(template: ResourceTemplate, rs: ResourceSelector): ImplicitPriority {
  if (template.apiVersion !== rs.apiVersion || template.kind !== rs.kind) return ImplicitPriority.MisMatch;
  if (rs.namespace && (template.metadata.namespace ?? '') !== rs.namespace) return ImplicitPriority.MisMatch;
  if (rs.name) return rs.name === template.metadata.name ? ImplicitPriority.MatchName : ImplicitPriority.MisMatch;
  if (!rs.labelSelector) return ImplicitPriority.MatchAll;
  return matchesLabelSelector(rs.labelSelector, template.metadata.labels)
    ? ImplicitPriority.MatchLabelSelector
    : ImplicitPriority.MisMatch;
}

/** The best priority over a policy's selectors. */
export function policyMatchPriority(template: ResourceTemplate, policy: PropagationPolicy): ImplicitPriority {
  let best: ImplicitPriority = ImplicitPriority.MisMatch;
  for (const rs of policy.spec.resourceSelectors ?? []) {
    const p = selectorPriority(template, rs);
    if (p > best) best = p;
  }
  return best;
}

export function isClusterPolicy(policy: PropagationPolicy): boolean {
  return policy.kind === 'ClusterPropagationPolicy';
}

/**
 * The policy that propagates `template`, as Karmada's detector picks it: namespaced
 * PropagationPolicies of the template's own namespace first — any match there wins over every
 * ClusterPropagationPolicy, whatever the priorities; within one kind, higher spec.priority, then
 * the more specific selector (name > labelSelector > all), then the alphabetically smaller name.
 * `policies` may mix both kinds (told apart by `kind`).
 */
export function findMatchingPolicy(
  template: ResourceTemplate,
  policies: readonly PropagationPolicy[],
): PropagationPolicy | undefined {
  const ns = template.metadata.namespace;
  const namespaced = ns
    ? best(
        template,
        policies.filter((p) => !isClusterPolicy(p) && p.metadata.namespace === ns),
      )
    : undefined;
  return namespaced ?? best(template, policies.filter(isClusterPolicy));
}

function best(template: ResourceTemplate, policies: readonly PropagationPolicy[]): PropagationPolicy | undefined {
  let chosen: PropagationPolicy | undefined;
  let chosenExplicit = -Infinity;
  let chosenImplicit = 0;
  for (const p of policies) {
    const implicit = policyMatchPriority(template, p);
    if (implicit === ImplicitPriority.MisMatch) continue;
    const explicit = p.spec.priority ?? 0;
    if (
      !chosen ||
      explicit > chosenExplicit ||
      (explicit === chosenExplicit &&
        (implicit > chosenImplicit ||
          (implicit === chosenImplicit && compareNames(p.metadata.name ?? '', chosen.metadata.name ?? '') < 0)))
    ) {
      chosen = p;
      chosenExplicit = explicit;
      chosenImplicit = implicit;
    }
  }
  return chosen;
}

/** Kinds whose replica count Kubernetes defaults to 1 when spec.replicas is omitted. */
const DEFAULT_ONE_REPLICA = new Set(['Deployment', 'StatefulSet', 'ReplicaSet']);

/** Name of the binding for a template: `<name>-<kind lowercased>`. */
export function bindingName(template: ResourceTemplate): string {
  return `${template.metadata.name}-${template.kind.toLowerCase()}`;
}

/** The annotations by which a binding names the policy that claimed its template (detection writes them). */
export const ClaimAnnotations = {
  policyName: 'propagationpolicy.karmada.io/name',
  policyNamespace: 'propagationpolicy.karmada.io/namespace',
  clusterPolicyName: 'clusterpropagationpolicy.karmada.io/name',
} as const;

export interface BuildBindingOptions {
  /** A ClusterResourceBinding; by default when the template has no namespace. */
  clusterScoped?: boolean;
  /**
   * The value of a PriorityClass by name, undefined when there is none. A policy's `schedulePriority` names one; the
   * binding carries its value as `spec.schedulePriority.priority` (0 when the class does not exist, as for a pod
   * without a class where no class is the global default).
   */
  priorityClassValue?: (name: string) => number | undefined;
}

/**
 * The ResourceBinding (namespaced template) or ClusterResourceBinding (`clusterScoped`) that detection writes for
 * `template` under `policy`: resource reference with the template UID, replicas (undefined for non-replica kinds),
 * the per-replica request of the pod template (as Karmada computes it), a copy of the placement, and the priority
 * of the policy's `schedulePriority`.
 * Throws SchedulingInputError naming the template field for a bad replica count or quantity.
 */
export function buildBinding(
  template: ResourceTemplate,
  policy: PropagationPolicy,
  opts: BuildBindingOptions = {},
): ResourceBinding {
  const clusterScoped = opts.clusterScoped ?? !template.metadata.namespace;
  const name = template.metadata.name;
  if (!name) throw new SchedulingInputError('metadata.name', 'required');
  const replicas = templateReplicas(template);
  const request = replicas === undefined ? undefined : podRequests(template);
  const nodeClaim = replicas === undefined ? undefined : podNodeClaim(podSpecOf(template));
  const annotations: Record<string, string> = isClusterPolicy(policy)
    ? { [ClaimAnnotations.clusterPolicyName]: policy.metadata.name ?? '' }
    : {
        [ClaimAnnotations.policyName]: policy.metadata.name ?? '',
        [ClaimAnnotations.policyNamespace]: policy.metadata.namespace ?? '',
      };
  const ns = template.metadata.namespace;
  return {
    apiVersion: 'work.karmada.io/v1alpha2',
    kind: clusterScoped ? 'ClusterResourceBinding' : 'ResourceBinding',
    metadata: { name: bindingName(template), ...(!clusterScoped && ns && { namespace: ns }), annotations },
    spec: {
      resource: {
        apiVersion: template.apiVersion,
        kind: template.kind,
        ...(ns && { namespace: ns }),
        name,
        ...(template.metadata.uid && { uid: template.metadata.uid }),
        ...(template.metadata.resourceVersion && { resourceVersion: template.metadata.resourceVersion }),
      },
      ...(replicas !== undefined && { replicas }),
      ...((request || nodeClaim) && {
        replicaRequirements: { ...(nodeClaim && { nodeClaim }), ...(request && { resourceRequest: request }) },
      }),
      placement: structuredClone(policy.spec.placement ?? {}),
      ...(policy.spec.schedulePriority && {
        schedulePriority: {
          priority: opts.priorityClassValue?.(policy.spec.schedulePriority.priorityClassName) ?? 0,
        },
      }),
    },
  };
}

/** A binding's scheduling priority (Karmada's `spec.schedulePriority.priority`): 0 without one. */
export function bindingPriority(binding: { spec?: unknown } | undefined): number {
  const p = (binding?.spec as { schedulePriority?: { priority?: unknown } } | undefined)?.schedulePriority?.priority;
  return typeof p === 'number' && Number.isFinite(p) ? p : 0;
}

/** spec.replicas of a template; 1 for Deployment-like kinds that omit it; undefined otherwise. */
export function templateReplicas(template: ResourceTemplate): number | undefined {
  const r = template.spec?.replicas;
  if (r === undefined || r === null) return DEFAULT_ONE_REPLICA.has(template.kind) ? 1 : undefined;
  if (typeof r !== 'number' || !Number.isInteger(r) || r < 0) {
    throw new SchedulingInputError('spec.replicas', `must be a non-negative integer, got ${JSON.stringify(r)}`);
  }
  return r;
}

/**
 * The per-replica request of the template's pod template (`spec.template.spec`), computed as Karmada
 * computes `replicaRequirements.resourceRequest`; see podSpecRequests.
 */
export function podRequests(template: ResourceTemplate): ResourceList | undefined {
  return podSpecRequests(podSpecOf(template), 'spec.template.spec');
}

function podSpecOf(template: ResourceTemplate): unknown {
  return (template.spec?.template as { spec?: unknown } | undefined)?.spec;
}
