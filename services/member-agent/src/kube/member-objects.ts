import {
  MemberLimitsError,
  parseMemberLimits,
  ReservedNamespaces,
  type ResourceBindingSpec,
  type ObjectMeta,
} from '@flotilla/api';
import { stableDigest } from '@flotilla/kube-client';
import type { StoredObject } from '@flotilla/store';
import type { BindingRef } from '../report-model.js';

/** The marks every object the kube driver creates in a member cluster carries. */
export const MemberMarks = {
  /** Label: selects what Flotilla manages (Kubernetes' recommended label). */
  managedBy: 'app.kubernetes.io/managed-by',
  managedByValue: 'flotilla',
  /** Annotation: the binding that placed the object, `Kind/namespace/name` (namespace empty for cluster scope). */
  binding: 'flotilla.io/binding',
  /** Annotation: a hash of what was last applied, so an unchanged object is not applied again. */
  appliedHash: 'flotilla.io/applied-hash',
  /**
   * Annotation on a workload whose replicas a member HPA owns: the replicas the binding assigned when it was last
   * applied. The HPA's replicas stand, unless the assignment changes to 0 or from 0 (a FederatedHPA scaling a
   * cluster to zero and back, which the member HPA cannot do).
   */
  assignedReplicas: 'flotilla.io/assigned-replicas',
} as const;

/** A member-cluster object by address. `namespace` is empty for cluster-scoped kinds. */
export interface MemberRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

export const memberKey = (r: Pick<MemberRef, 'apiVersion' | 'kind' | 'namespace' | 'name'>): string =>
  `${r.apiVersion}/${r.kind}/${r.namespace}/${r.name}`;
export const formatBindingRef = (r: BindingRef): string => `${r.kind}/${r.namespace ?? ''}/${r.name}`;

/** A manifest as sent to the API server: plain JSON. */
export type Manifest = Record<string, unknown> & {
  apiVersion: string;
  kind: string;
  metadata: Pick<ObjectMeta, 'name' | 'namespace' | 'labels' | 'annotations'>;
};

/** One object the agent wants in its cluster. */
export interface DesiredObject {
  ref: MemberRef;
  binding: BindingRef;
  /** What to apply (with the marks). Without `spec.replicas` when a member HPA owns the replicas. */
  manifest: Manifest;
  /** Hash of `manifest`; equal hashes mean nothing to apply. */
  hash: string;
  /** The replicas the binding assigns here (kinds with `spec.replicas`), before any member HPA takes over. */
  replicas?: number;
  /** A member HPA propagated to this cluster targets this workload: its replicas are the HPA's. */
  hpaOwnsReplicas: boolean;
  /** The template's pod spec (`spec.template.spec`), for the pods' requests. */
  podTemplate?: Record<string, unknown>;
}

/** A binding whose template cannot be applied here, with the reason for its aggregated status. */
export interface BindingProblem {
  binding: BindingRef;
  message: string;
}

export interface DesiredInput {
  cluster: string;
  /** ResourceBindings and ClusterResourceBindings (placement may be dropped). */
  bindings: readonly StoredObject[];
  /** The stored template a binding's `spec.resource` names, if it exists. */
  template(ref: { kind: string; namespace: string; name: string }): StoredObject | undefined;
  /** Manifests' hashes made in earlier passes, reused while their template object is the same. */
  manifests?: ManifestCache;
}

/**
 * The hash of each member manifest made of a template object: a pass hashes the manifests of the bindings it looks
 * at, and making and hashing them again was most of a pass's cost. Kept per template object (the informer replaces
 * the object on every change, which drops its entries) and by what else a manifest is made of (`key`: the binding,
 * the cluster's replicas, ...; not the cluster, so the drivers of one process share one cache). Only the hash is
 * kept, not the manifest (30,000 of them at 10,000 bindings over 100 simulated clusters): the manifest is made again
 * when it is applied, which is rare.
 */
export class ManifestCache {
  private readonly byTemplate = new WeakMap<StoredObject, Map<string, string>>();
  private madeCount = 0;

  /** How many manifests were made and hashed for it (the count the cache exists to keep low). */
  get hashed(): number {
    return this.madeCount;
  }

  /** The hash of the manifest `make` makes, and the manifest when it had to be made for it. */
  hash(template: StoredObject, key: string, make: () => Manifest): { hash: string; made?: Manifest } {
    let hashes = this.byTemplate.get(template);
    const known = hashes?.get(key);
    if (known !== undefined) return { hash: known };
    const made = make();
    this.madeCount++;
    const hash = manifestHash(made);
    if (!hashes) {
      hashes = new Map();
      this.byTemplate.set(template, hashes);
    } else if (hashes.size >= MANIFEST_HASHES_PER_TEMPLATE) {
      // A template whose replicas keep changing (a FederatedHPA) would otherwise keep every count it had.
      hashes.clear();
    }
    hashes.set(key, hash);
    return { hash, made };
  }
}

/** How many manifests' hashes ManifestCache keeps per template object: a few clusters' replicas, and a few changes. */
const MANIFEST_HASHES_PER_TEMPLATE = 16;

export interface DesiredState {
  objects: DesiredObject[];
  /** Bindings assigning this cluster and the member object each asks for (or the problem). */
  assigned: Map<string, { binding: BindingRef; ref?: MemberRef; problem?: string }>;
  /** Namespaces the desired objects live in. */
  namespaces: Set<string>;
}

/** Annotations that are Flotilla's own or kubectl's bookkeeping: never sent to a member cluster. */
const DROPPED_ANNOTATION_PREFIXES = [
  'kubectl.kubernetes.io/last-applied-configuration',
  'flotilla.io/',
  'autoscaling.flotilla.io/',
];

const bindingRefOf = (b: StoredObject): BindingRef => ({
  kind: b.kind,
  namespace: b.metadata.namespace || undefined,
  name: b.metadata.name,
});

/** The applied-hash annotation's value: hex, 20 characters (what member objects already carry must keep matching). */
export const manifestHash = (m: Manifest): string => stableDigest(m, { encoding: 'hex', length: 20 });

/**
 * The member manifest of a template: its kind and content without status or server-owned metadata, with the
 * cluster's replicas (when `replicas` is given) and the marks naming the binding.
 */
export function memberManifest(template: StoredObject, binding: BindingRef, replicas: number | undefined): Manifest {
  const { status: _status, metadata, ...rest } = template as StoredObject & { status?: unknown };
  const meta: Manifest['metadata'] = { name: metadata.name };
  if (metadata.namespace) meta.namespace = metadata.namespace;
  const labels = { ...((metadata.labels as Record<string, string> | undefined) ?? {}) };
  labels[MemberMarks.managedBy] = MemberMarks.managedByValue;
  meta.labels = labels;
  const annotations: Record<string, string> = {};
  for (const [k, v] of Object.entries((metadata.annotations as Record<string, string> | undefined) ?? {}))
    if (!DROPPED_ANNOTATION_PREFIXES.some((p) => k.startsWith(p))) annotations[k] = v;
  annotations[MemberMarks.binding] = formatBindingRef(binding);
  meta.annotations = annotations;
  const manifest = { ...rest, metadata: meta } as Manifest;
  if (replicas !== undefined) {
    const spec = { ...((manifest.spec as Record<string, unknown> | undefined) ?? {}) };
    spec.replicas = replicas;
    manifest.spec = spec;
  }
  return manifest;
}

/** `manifest` without `spec.replicas`: what a workload whose replicas a member HPA owns is compared by. */
export function withoutReplicas(manifest: Manifest): Manifest {
  const spec = manifest.spec as Record<string, unknown> | undefined;
  if (!spec || !('replicas' in spec)) return manifest;
  const { replicas: _r, ...rest } = spec;
  return { ...manifest, spec: rest };
}

/** The assignment, marked on a workload whose replicas a member HPA owns (MemberMarks.assignedReplicas). */
function withAssignedReplicas(manifest: Manifest, replicas: number): Manifest {
  return {
    ...manifest,
    metadata: {
      ...manifest.metadata,
      annotations: { ...(manifest.metadata.annotations ?? {}), [MemberMarks.assignedReplicas]: String(replicas) },
    },
  };
}

function hasReplicas(template: StoredObject): boolean {
  const spec = template.spec as Record<string, unknown> | undefined;
  return spec !== undefined && typeof spec === 'object' && 'replicas' in spec;
}

/** Kinds whose template carries a pod template (`spec.template.spec`) at the usual place. */
function podTemplateOf(template: StoredObject): Record<string, unknown> | undefined {
  const tpl = (template.spec as { template?: { spec?: Record<string, unknown> } } | undefined)?.template?.spec;
  return tpl && typeof tpl === 'object' ? tpl : undefined;
}

interface HpaTarget {
  namespace: string;
  kind: string;
  name: string;
}

/**
 * What the bindings ask of `cluster`: every assigned template as a member manifest, with that cluster's replicas,
 * and for a member HPA (an autoscaling/v2 HorizontalPodAutoscaler template with the binding's member-limits
 * annotation) that cluster's min/max. A workload targeted by a member HPA propagated here keeps the replicas the
 * HPA set (karmada-io/karmada#1273, #4109): the driver applies it without taking `spec.replicas` back.
 */
export function desiredMemberObjects(input: DesiredInput): DesiredState {
  const objects: DesiredObject[] = [];
  const assigned: DesiredState['assigned'] = new Map();
  const namespaces = new Set<string>();
  const hpaTargets: HpaTarget[] = [];
  const pending: Array<{
    b: StoredObject;
    template: StoredObject;
    /** The member limits merged into an HPA template (JSON), part of what its manifest is made of. */
    limits?: string;
    stored: StoredObject;
    replicas: number | undefined;
  }> = [];
  // Those that assign the cluster, then sorted: a process serving many clusters sorts each one's share only.
  const targetOf = (b: StoredObject) => {
    const clusters = (b.spec as Partial<ResourceBindingSpec> | undefined)?.clusters;
    return (Array.isArray(clusters) ? clusters : []).find((t) => t?.name === input.cluster);
  };
  const sorted = input.bindings
    .filter((b) => targetOf(b) !== undefined)
    .map((b) => ({ b, key: formatBindingRef(bindingRefOf(b)) }))
    .sort((x, y) => x.key.localeCompare(y.key))
    .map(({ b }) => b);
  for (const b of sorted) {
    const spec = (b.spec ?? {}) as Partial<ResourceBindingSpec>;
    const target = targetOf(b)!;
    const binding = bindingRefOf(b);
    const key = formatBindingRef(binding);
    const res = spec.resource;
    if (!res?.kind || !res.name || !res.apiVersion) {
      assigned.set(key, { binding, problem: 'spec.resource: expected apiVersion, kind and name' });
      continue;
    }
    const namespace = res.namespace ?? binding.namespace ?? '';
    const template = input.template({ kind: res.kind, namespace, name: res.name });
    const ref: MemberRef = { apiVersion: res.apiVersion, kind: res.kind, namespace, name: res.name };
    if (!template) {
      assigned.set(key, {
        binding,
        ref,
        problem: `the resource template ${res.kind} ${namespace ? `${namespace}/` : ''}${res.name} does not exist`,
      });
      continue;
    }
    let tpl = template;
    let limitsJson: string | undefined;
    if (res.kind === 'HorizontalPodAutoscaler') {
      try {
        const limits = parseMemberLimits(b.metadata.annotations)?.get(input.cluster);
        if (limits) {
          tpl = { ...tpl, spec: { ...(tpl.spec as object), ...limits } };
          limitsJson = JSON.stringify(limits);
        }
      } catch (err) {
        if (!(err instanceof MemberLimitsError)) throw err;
        assigned.set(key, { binding, ref, problem: err.message });
        continue;
      }
      const scaleTarget = (tpl.spec as { scaleTargetRef?: { kind?: string; name?: string } } | undefined)
        ?.scaleTargetRef;
      if (scaleTarget?.kind && scaleTarget.name)
        hpaTargets.push({ namespace, kind: scaleTarget.kind, name: scaleTarget.name });
    }
    const replicas = hasReplicas(template)
      ? (target.replicas ?? spec.replicas ?? (template.spec as { replicas?: number }).replicas)
      : undefined;
    assigned.set(key, { binding, ref });
    pending.push({ b, template: tpl, stored: template, replicas, ...(limitsJson ? { limits: limitsJson } : {}) });
  }
  for (const { b, template, stored, limits, replicas } of pending) {
    const binding = bindingRefOf(b);
    const namespace = template.metadata.namespace ?? '';
    const hpaOwnsReplicas =
      replicas !== undefined &&
      hpaTargets.some(
        (h) => h.namespace === namespace && h.kind === template.kind && h.name === template.metadata.name,
      );
    const make = () => {
      const full = memberManifest(template, binding, replicas);
      return hpaOwnsReplicas ? withAssignedReplicas(withoutReplicas(full), replicas) : full;
    };
    const { hash, made } = input.manifests
      ? input.manifests.hash(
          stored,
          `${formatBindingRef(binding)}|${replicas}|${hpaOwnsReplicas}|${limits ?? ''}`,
          make,
        )
      : (() => {
          const m = make();
          return { hash: manifestHash(m), made: m };
        })();
    let manifest = made;
    const podTemplate = podTemplateOf(template);
    if (namespace) namespaces.add(namespace);
    objects.push({
      ref: { apiVersion: template.apiVersion, kind: template.kind, namespace, name: template.metadata.name },
      binding,
      // Made when it is applied (or read), unless hashing it just made it.
      get manifest() {
        manifest ??= make();
        return manifest;
      },
      hash,
      ...(replicas !== undefined ? { replicas } : {}),
      hpaOwnsReplicas,
      ...(podTemplate ? { podTemplate } : {}),
    });
  }
  return { objects, assigned, namespaces };
}

/** What the agent knows about one object in its cluster (from its informers). */
export interface ObservedObject {
  ref: MemberRef;
  /** `flotilla.io/binding` of an object Flotilla created; undefined for anyone else's. */
  binding?: string;
  appliedHash?: string;
  /** `spec.replicas` as the cluster has it now. */
  replicas?: number;
  /** MemberMarks.assignedReplicas: the assignment when Flotilla last applied a workload a member HPA scales. */
  assignedReplicas?: number;
  /** Being deleted (a delete was issued and finalizers run). */
  deleting?: boolean;
}

export type ApplyAction =
  | { type: 'apply'; object: DesiredObject; manifest: Manifest; reason: 'create' | 'update' }
  | { type: 'delete'; ref: MemberRef; binding: string };

export interface ApplyPlan {
  actions: ApplyAction[];
  /** Desired objects that exist in the cluster but were not created by Flotilla: left alone, reported. */
  conflicts: Array<{ object: DesiredObject; message: string }>;
}

export interface PlanOptions {
  /** Namespaces nothing is written into (RESERVED_NAMESPACES); the defaults, `kube-*` and `flotilla-system`, by default. */
  reserved?: ReservedNamespaces | undefined;
}

/**
 * Decides the writes that bring the cluster to `desired`: apply what is missing or whose manifest changed (a workload
 * whose replicas a member HPA owns is applied with the replicas the cluster has, so the HPA's value stands), delete
 * what Flotilla created and no binding assigns any more, and never touch an object Flotilla did not create. Nothing
 * is written into a reserved namespace: a desired object there is refused with why (admission refuses such
 * templates; one stored before the rule must still not reach a member's `kube-system`), and what Flotilla created
 * there before is left as it is, for a person to look at, rather than deleted.
 */
export function planApply(
  desired: readonly DesiredObject[],
  observed: ReadonlyMap<string, ObservedObject>,
  opts: PlanOptions = {},
): ApplyPlan {
  const reserved = opts.reserved ?? ReservedNamespaces.defaults;
  const actions: ApplyAction[] = [];
  const conflicts: ApplyPlan['conflicts'] = [];
  const wanted = new Set<string>();
  for (const d of desired) {
    const key = memberKey(d.ref);
    wanted.add(key);
    const refusal = reserved.refusal(d.ref.namespace);
    if (refusal) {
      conflicts.push({ object: d, message: `${refusal}; not applied` });
      continue;
    }
    const have = observed.get(key);
    const bindingText = formatBindingRef(d.binding);
    if (have && have.binding === undefined) {
      conflicts.push({
        object: d,
        message: `${d.ref.kind} ${d.ref.namespace ? `${d.ref.namespace}/` : ''}${d.ref.name} already exists in the member cluster and was not created by Flotilla: left unchanged`,
      });
      continue;
    }
    if (have && have.binding !== bindingText) {
      conflicts.push({
        object: d,
        message: `${d.ref.kind} ${d.ref.namespace ? `${d.ref.namespace}/` : ''}${d.ref.name} in the member cluster belongs to binding ${have.binding}: left unchanged`,
      });
      continue;
    }
    if (have && !have.deleting && have.appliedHash === d.hash) continue;
    let manifest = stamped(d.manifest, d.hash);
    if (d.hpaOwnsReplicas) {
      // First creation starts at the assignment; after that the HPA's replicas are kept as the cluster has them,
      // except when the binding assigns 0 or brings a workload at 0 back (a FederatedHPA scaling a cluster to and
      // from zero): a member HPA cannot, since Kubernetes disables scaling at 0 replicas. The object's mark says
      // what the binding assigned at the last apply.
      const reassigned = have?.assignedReplicas !== undefined && have.assignedReplicas !== d.replicas;
      const toOrFromZero = d.replicas === 0 || have?.replicas === 0;
      const replicas = have?.replicas !== undefined && !(reassigned && toOrFromZero) ? have.replicas : d.replicas;
      if (replicas !== undefined)
        manifest = { ...manifest, spec: { ...((manifest.spec as Record<string, unknown>) ?? {}), replicas } };
    }
    actions.push({ type: 'apply', object: d, manifest, reason: have ? 'update' : 'create' });
  }
  for (const [key, o] of [...observed].sort(([a], [b]) => a.localeCompare(b))) {
    if (wanted.has(key) || o.binding === undefined || o.deleting || reserved.has(o.ref.namespace)) continue;
    actions.push({ type: 'delete', ref: o.ref, binding: o.binding });
  }
  return { actions, conflicts };
}

function stamped(manifest: Manifest, hash: string): Manifest {
  return {
    ...manifest,
    metadata: {
      ...manifest.metadata,
      annotations: { ...(manifest.metadata.annotations ?? {}), [MemberMarks.appliedHash]: hash },
    },
  };
}
