import type { BindingRef, BindingView, WorkloadReference } from './types.js';

/**
 * The binding Karmada's detector creates for a workload (pkg/util/names GenerateBindingName): `<name>-<kind>`
 * lower-cased, with ':' in the name (RBAC objects such as `system:aggregate-to-edit`) replaced by '.'. A
 * ResourceBinding in the workload's namespace, or a ClusterResourceBinding for a cluster-scoped workload.
 */
export function bindingRefOf(w: WorkloadReference): BindingRef {
  const name = `${w.name.replaceAll(':', '.')}-${w.kind}`.toLowerCase();
  return w.namespace
    ? { kind: 'ResourceBinding', namespace: w.namespace, name }
    : { kind: 'ClusterResourceBinding', name };
}

/**
 * Whether a binding found under the generated name is the workload's. Karmada looks at the name only, so a
 * reference with the wrong apiVersion (`apps/v1beta1` for an `apps/v1` Deployment) rebalances whatever object owns
 * that name; Flotilla also asks that the binding's resource has the reference's apiVersion.
 */
export function bindingMatchesWorkload(binding: BindingView, w: WorkloadReference): boolean {
  return binding.spec.resource.apiVersion === w.apiVersion;
}

/** A binding's identity, to key lookups and write outcomes by. */
export function bindingKey(ref: BindingRef): string {
  return `${ref.kind}/${ref.namespace ?? ''}/${ref.name}`;
}
