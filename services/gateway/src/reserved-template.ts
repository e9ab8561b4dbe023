import type { FieldError, ReservedNamespaces } from '@flotilla/api';
import { findMatchingPolicy, type PropagationPolicy, type ResourceTemplate } from '@flotilla/scheduling';
import {
  InformedSpecs,
  type InformedSpecsOptions,
  type Projection,
  SPEC_CATCH_UP_MS,
  type StoredObject,
} from '@flotilla/store';

/** The kinds whose selectors may take a resource template into Flotilla. */
export const POLICY_KINDS = ['PropagationPolicy', 'ClusterPropagationPolicy'] as const;

/**
 * What the webhook reads of a policy: who it is and what it selects (Karmada's detector's inputs: the selectors, and
 * the priority that decides between two policies), so that the gateway's cache of them stays small.
 */
export const POLICY_SELECTOR_PROJECTION: Projection<StoredObject, StoredObject> = {
  name: 'policySelectors',
  project: (o) => {
    const spec = (o.spec ?? {}) as { resourceSelectors?: unknown; priority?: unknown };
    return {
      apiVersion: o.apiVersion,
      kind: o.kind,
      metadata: { name: o.metadata.name, namespace: o.metadata.namespace, resourceVersion: o.metadata.resourceVersion },
      spec: {
        ...(spec.resourceSelectors === undefined ? {} : { resourceSelectors: spec.resourceSelectors }),
        ...(spec.priority === undefined ? {} : { priority: spec.priority }),
      },
    };
  },
};

/** The policies the webhook judges a template in a reserved namespace by, read from informers never older than the store. */
export function policySelectorSpecs(
  opts: Omit<InformedSpecsOptions<StoredObject>, 'kinds' | 'projection' | 'catchUpMs'>,
): InformedSpecs<StoredObject> {
  return new InformedSpecs({
    ...opts,
    kinds: POLICY_KINDS,
    projection: POLICY_SELECTOR_PROJECTION,
    catchUpMs: SPEC_CATCH_UP_MS,
  });
}

export interface ReservedTemplateInput {
  /** The template the API server is about to store (an AdmissionReview's object), its namespace filled in. */
  template: ResourceTemplate;
  /** The object an UPDATE replaces (the review's oldObject); absent on CREATE. */
  old?: ResourceTemplate | undefined;
  /** The policies that may select it: the PropagationPolicies of its namespace and every ClusterPropagationPolicy. */
  policies: readonly PropagationPolicy[];
  reserved: ReservedNamespaces;
}

export type ReservedTemplateDecision =
  | { type: 'allow' }
  /** Let through, with admission's warning (kubectl prints it): a policy selects it, and already did before. */
  | { type: 'warn'; warning: string }
  | { type: 'refuse'; cause: FieldError };

/**
 * The admission webhook's judgment of a resource template (a Deployment or StatefulSet the API server sends from a
 * reserved namespace): refused, at metadata.namespace with the reserved-namespace rule and the policy named, only
 * when a policy Flotilla holds selects it (as Karmada's detector picks one), since Flotilla would never propagate it;
 * a template no policy selects is the cluster's own business (kube-system's coredns) and passes untouched.
 *
 * An update of a template a policy selected already before the update passes with a warning instead: refusing it
 * would stop the cluster's own writers (the Deployment controller records each rollout's revision in an annotation;
 * an upgrade of what already runs there), and keep nothing out of Flotilla, which never took the template in (the
 * kube-bridge and the member-agents refuse it at their end).
 */
export function decideReservedTemplate(input: ReservedTemplateInput): ReservedTemplateDecision {
  const { template, old, policies, reserved } = input;
  const why = reserved.refusal(template.metadata.namespace);
  if (why === undefined) return { type: 'allow' };
  const policy = findMatchingPolicy(template, policies);
  if (!policy) return { type: 'allow' };
  const message = `${why}; ${policy.kind} ${JSON.stringify(policy.metadata.name)} selects this ${template.kind}`;
  if (old && findMatchingPolicy(old, policies))
    return {
      type: 'warn',
      warning: `metadata.namespace: ${message} (an update of one it selected before is let through)`,
    };
  return { type: 'refuse', cause: { field: 'metadata.namespace', message: `Forbidden: ${message}` } };
}
