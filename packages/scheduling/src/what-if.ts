import { bindingStatusFor } from './binding-status.js';
import { bindingName, buildBinding, findMatchingPolicy } from './detection.js';
import { SchedulingInputError } from './errors.js';
import { scheduleBinding } from './schedule.js';
import type { Cluster, PropagationPolicy, ResourceBinding, ResourceTemplate } from './types.js';

const POLICY_KINDS = new Set(['PropagationPolicy', 'ClusterPropagationPolicy']);
const BINDING_KINDS = new Set(['ResourceBinding', 'ClusterResourceBinding']);

/**
 * Offline planning ("where would this land?"): given the parsed documents of a multi-document
 * YAML file — Clusters with hand-written status, resource templates, (Cluster)PropagationPolicies
 * and optionally existing (Cluster)ResourceBindings — returns the bindings the affinity scheduler
 * would write, through the same detection and scheduling functions the service uses.
 *
 * An existing binding with the generated name supplies the previous state: spec.clusters,
 * spec.rescheduleTriggeredAt and its status (observed group, lastScheduledTime). Existing bindings
 * that no template produced are scheduled as they stand, as the scheduler would. Templates that no
 * policy selects produce nothing. Empty documents (null) are skipped; `kind: List` is flattened.
 * Throws SchedulingInputError naming `objects[i]…` for a document that is not a Kubernetes object.
 */
export function whatIfSchedule(objects: readonly unknown[], now: Date): ResourceBinding[] {
  const clusters: Cluster[] = [];
  const policies: PropagationPolicy[] = [];
  const templates: { template: ResourceTemplate; path: string }[] = [];
  const existing = new Map<string, ResourceBinding>();

  const visit = (o: unknown, path: string): void => {
    if (o === null || o === undefined) return;
    if (typeof o !== 'object' || Array.isArray(o)) throw new SchedulingInputError(path, 'expected a Kubernetes object');
    const obj = o as { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown }; items?: unknown };
    if (typeof obj.kind !== 'string' || obj.kind === '') throw new SchedulingInputError(`${path}.kind`, 'required');
    if (obj.kind === 'List' && Array.isArray(obj.items)) {
      obj.items.forEach((item, i) => visit(item, `${path}.items[${i}]`));
      return;
    }
    if (typeof obj.apiVersion !== 'string' || obj.apiVersion === '') throw new SchedulingInputError(`${path}.apiVersion`, 'required');
    if (typeof obj.metadata?.name !== 'string' || obj.metadata.name === '') throw new SchedulingInputError(`${path}.metadata.name`, 'required');
    if (obj.kind === 'Cluster' && obj.apiVersion.startsWith('cluster.karmada.io/')) clusters.push(o as Cluster);
    else if (POLICY_KINDS.has(obj.kind) && obj.apiVersion.startsWith('policy.karmada.io/')) {
      const p = o as PropagationPolicy;
      if (typeof p.spec !== 'object' || p.spec === null) throw new SchedulingInputError(`${path}.spec`, 'required');
      policies.push(p);
    } else if (BINDING_KINDS.has(obj.kind) && obj.apiVersion.startsWith('work.karmada.io/')) {
      const b = o as ResourceBinding;
      if (typeof b.spec?.resource !== 'object' || b.spec.resource === null) throw new SchedulingInputError(`${path}.spec.resource`, 'required');
      existing.set(bindingKey(b.kind!, b.metadata.namespace, b.metadata.name!), b);
    } else templates.push({ template: o as ResourceTemplate, path });
  };
  objects.forEach((o, i) => visit(o, `objects[${i}]`));

  const out: ResourceBinding[] = [];
  const used = new Set<string>();
  for (const { template, path } of templates) {
    const policy = findMatchingPolicy(template, policies);
    if (!policy) continue;
    let fresh: ResourceBinding;
    try {
      fresh = buildBinding(template, policy);
    } catch (e) {
      if (e instanceof SchedulingInputError) throw new SchedulingInputError(`${path}.${e.path}`, e.detail);
      throw e;
    }
    const key = bindingKey(fresh.kind!, fresh.metadata.namespace, bindingName(template));
    const prev = existing.get(key);
    if (prev) used.add(key);
    const binding: ResourceBinding = prev
      ? {
          ...fresh,
          spec: {
            ...fresh.spec,
            ...(prev.spec.clusters && { clusters: prev.spec.clusters }),
            ...(prev.spec.rescheduleTriggeredAt && { rescheduleTriggeredAt: prev.spec.rescheduleTriggeredAt }),
          },
          ...(prev.status && { status: prev.status }),
        }
      : fresh;
    out.push(schedule(binding, clusters, now));
  }
  for (const [key, b] of existing) if (!used.has(key)) out.push(schedule(b, clusters, now));
  return out;
}

function schedule(binding: ResourceBinding, clusters: readonly Cluster[], now: Date): ResourceBinding {
  const result = scheduleBinding({ binding, clusters, now });
  return {
    ...binding,
    spec: { ...binding.spec, clusters: result.ok ? result.clusters : result.keptClusters },
    status: bindingStatusFor(result, binding.status, now),
  };
}

function bindingKey(kind: string, namespace: string | undefined, name: string): string {
  return `${kind}/${namespace ?? ''}/${name}`;
}
