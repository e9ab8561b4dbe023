import { isDeepStrictEqual } from 'node:util';
import { decideBinding, resultWrite, statusAfter } from './decide-binding.js';
import { withDetected } from './detect-binding.js';
import { bindingName, bindingPriority, buildBinding } from './detection.js';
import { SchedulingInputError } from './errors.js';
import { claimingPolicy, policyClaim } from './policy-claim.js';
import type { Cluster, PropagationPolicy, ResourceBinding, ResourceTemplate } from './types.js';

const POLICY_KINDS = new Set(['PropagationPolicy', 'ClusterPropagationPolicy']);
const BINDING_KINDS = new Set(['ResourceBinding', 'ClusterResourceBinding']);

/**
 * Offline planning ("where would this land?"): given the parsed documents of a multi-document
 * YAML file — Clusters with hand-written status, resource templates, (Cluster)PropagationPolicies
 * and optionally existing (Cluster)ResourceBindings — returns the bindings the affinity scheduler
 * would write, through the functions the service runs: detection (claimingPolicy, buildBinding,
 * withDetected), then one scheduling pass (decideBinding, resultWrite) whose status patch is folded
 * as the status writer folds it (statusAfter).
 *
 * An existing binding with the generated name is the stored one: its annotations (the claiming
 * policy, the applied placement), spec.clusters, spec.rescheduleTriggeredAt, metadata.generation and
 * status (observed group, lastScheduledTime, schedulerObservedGeneration) count as they would in the
 * service, so a binding that nothing asks to reschedule keeps its clusters. Existing bindings that no
 * template produced (or whose template no policy selects) are scheduled as they stand, as the
 * scheduler would. Templates that no policy selects produce nothing. Generations follow the object
 * store: a new binding is stored at 1, one without metadata.generation counts as 1, and an update
 * that changes spec moves it by one. Empty documents (null) are skipped; `kind: List` is flattened. The bindings come
 * in the order the scheduler's queue takes them: by the value of the PriorityClass their policy's schedulePriority
 * names (among the documents), highest first.
 * Throws SchedulingInputError naming `objects[i]…` for a document that is not a Kubernetes object.
 */
export function whatIfSchedule(objects: readonly unknown[], now: Date): ResourceBinding[] {
  const clusters: Cluster[] = [];
  const policies: PropagationPolicy[] = [];
  const templates: { template: ResourceTemplate; path: string }[] = [];
  const existing = new Map<string, ResourceBinding>();
  const priorityClasses = new Map<string, number>();

  const visit = (o: unknown, path: string): void => {
    if (o === null || o === undefined) return;
    if (typeof o !== 'object' || Array.isArray(o)) throw new SchedulingInputError(path, 'expected a Kubernetes object');
    const obj = o as { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown }; items?: unknown };
    if (typeof obj.kind !== 'string' || obj.kind === '') throw new SchedulingInputError(`${path}.kind`, 'required');
    if (obj.kind === 'List' && Array.isArray(obj.items)) {
      for (const [i, item] of obj.items.entries()) visit(item, `${path}.items[${i}]`);
      return;
    }
    if (typeof obj.apiVersion !== 'string' || obj.apiVersion === '')
      throw new SchedulingInputError(`${path}.apiVersion`, 'required');
    if (typeof obj.metadata?.name !== 'string' || obj.metadata.name === '')
      throw new SchedulingInputError(`${path}.metadata.name`, 'required');
    if (obj.kind === 'Cluster' && obj.apiVersion.startsWith('cluster.karmada.io/')) clusters.push(o as Cluster);
    else if (POLICY_KINDS.has(obj.kind) && obj.apiVersion.startsWith('policy.karmada.io/')) {
      const p = o as PropagationPolicy;
      if (typeof p.spec !== 'object' || p.spec === null) throw new SchedulingInputError(`${path}.spec`, 'required');
      policies.push(p);
    } else if (BINDING_KINDS.has(obj.kind) && obj.apiVersion.startsWith('work.karmada.io/')) {
      const b = o as ResourceBinding;
      if (typeof b.spec?.resource !== 'object' || b.spec.resource === null)
        throw new SchedulingInputError(`${path}.spec.resource`, 'required');
      existing.set(
        bindingKey(b.kind!, b.metadata.namespace, b.metadata.name!),
        atGeneration(b, b.metadata.generation ?? 1),
      );
    } else {
      // A PriorityClass is a template like any other, and its value the priority of the bindings naming it.
      if (obj.kind === 'PriorityClass' && obj.apiVersion.startsWith('scheduling.k8s.io/'))
        priorityClasses.set(obj.metadata.name, Number((o as { value?: unknown }).value) || 0);
      templates.push({ template: o as ResourceTemplate, path });
    }
  };
  for (const [i, o] of objects.entries()) visit(o, `objects[${i}]`);

  const out: ResourceBinding[] = [];
  const used = new Set<string>();
  for (const { template, path } of templates) {
    const ns = template.metadata.namespace;
    const key = bindingKey(ns ? 'ResourceBinding' : 'ClusterResourceBinding', ns, bindingName(template));
    const prev = existing.get(key);
    // Detection: the policy that claimed the template keeps it (unless preempted); the claim is the binding's.
    const policy = claimingPolicy(template, policies, policyClaim(prev?.metadata.annotations));
    if (!policy) continue;
    let detected: ResourceBinding;
    try {
      detected = buildBinding(template, policy, { priorityClassValue: (name) => priorityClasses.get(name) });
    } catch (e) {
      if (e instanceof SchedulingInputError) throw new SchedulingInputError(`${path}.${e.path}`, e.detail);
      throw e;
    }
    if (prev) used.add(key);
    out.push(schedule(prev ? updated(prev, withDetected(prev, detected)) : atGeneration(detected, 1), clusters, now));
  }
  for (const [key, b] of existing) if (!used.has(key)) out.push(schedule(b, clusters, now));
  // In the order the scheduler's queue takes them: by schedulePriority, highest first, equal ones as they came.
  return out.sort((a, b) => bindingPriority(b) - bindingPriority(a));
}

/**
 * One pass of the scheduler over a stored binding, as the service runs it without memory of its own
 * announcements: decide, write the result, and fold the status patch if the decision is announced.
 * spec.clusters is what the binding then holds: the result written, or the assignment kept.
 */
function schedule(binding: ResourceBinding, clusters: readonly Cluster[], now: Date): ResourceBinding {
  const d = decideBinding(binding, clusters, now);
  const write = resultWrite(d);
  const written = write ? updated(binding, write(binding)) : binding;
  const status = d.announce ? statusAfter(d, binding.status, written.metadata.generation ?? 1, now) : binding.status;
  return { ...written, spec: { ...written.spec, clusters: written.spec.clusters ?? [] }, ...(status && { status }) };
}

const atGeneration = (b: ResourceBinding, generation: number): ResourceBinding => ({
  ...b,
  metadata: { ...b.metadata, generation },
});

/** An update as the object store makes it: metadata.generation moves by one when spec changes. */
function updated(before: ResourceBinding, after: ResourceBinding): ResourceBinding {
  return atGeneration(after, (before.metadata.generation ?? 1) + (isDeepStrictEqual(before.spec, after.spec) ? 0 : 1));
}

function bindingKey(kind: string, namespace: string | undefined, name: string): string {
  return `${kind}/${namespace ?? ''}/${name}`;
}
