import { UnknownKindError, WrongApiVersionError } from './errors.js';
import { clusterAdmission } from './kinds/cluster.js';
import { cronFederatedHpaAdmission } from './kinds/cron-federated-hpa.js';
import { ehpaAdmission } from './kinds/effective-hpa.js';
import { federatedHpaAdmission } from './kinds/federated-hpa.js';
import { genericTemplateAdmission } from './kinds/generic-template.js';
import { workloadTemplateAdmission } from './kinds/workload-template.js';
import type { KindAdmission } from './kinds/kind-admission.js';
import { priorityClassAdmission } from './kinds/priority-class.js';
import { propagationPolicyAdmission } from './kinds/propagation-policy.js';
import { resourceBindingAdmission } from './kinds/resource-binding.js';
import { workloadRebalancerAdmission } from './kinds/workload-rebalancer.js';
import type { KindInfo } from './registry-types.js';

export type { KindInfo } from './registry-types.js';

/** What `registerKind` needs; apiVersion and strictness are derived. */
export interface KindDefinition {
  group: string;
  version: string;
  kind: string;
  plural: string;
  singular?: string;
  shortNames?: string[];
  namespaced: boolean;
}

interface Entry {
  info: KindInfo;
  admission: KindAdmission;
}

const byKind = new Map<string, Entry>();

function makeInfo(d: KindDefinition, strict: boolean): KindInfo {
  return Object.freeze({
    group: d.group,
    version: d.version,
    apiVersion: d.group ? `${d.group}/${d.version}` : d.version,
    kind: d.kind,
    plural: d.plural,
    singular: d.singular ?? d.kind.toLowerCase(),
    shortNames: Object.freeze([...(d.shortNames ?? [])]) as string[],
    namespaced: d.namespaced,
    strict,
  });
}

/**
 * Registers a kind. Without `admission` it is admitted as a generic template (metadata plus `spec.replicas`).
 * Returns a function that removes it again (for tests). Throws when the kind name is taken.
 */
export function registerKind(def: KindDefinition, admission?: KindAdmission): () => void {
  if (byKind.has(def.kind)) throw new Error(`kind ${def.kind} is already registered`);
  const info = makeInfo(def, admission !== undefined && !admission.resourceTemplate);
  const entry = { info, admission: admission ?? genericTemplateAdmission };
  byKind.set(def.kind, entry);
  return () => {
    if (byKind.get(def.kind) === entry) byKind.delete(def.kind);
  };
}

const KARMADA_CLUSTER = { group: 'cluster.karmada.io', version: 'v1alpha1' };
const KARMADA_POLICY = { group: 'policy.karmada.io', version: 'v1alpha1' };
const KARMADA_WORK = { group: 'work.karmada.io', version: 'v1alpha2' };
const KARMADA_AUTOSCALING = { group: 'autoscaling.karmada.io', version: 'v1alpha1' };

registerKind({ ...KARMADA_CLUSTER, kind: 'Cluster', plural: 'clusters', namespaced: false }, clusterAdmission);
registerKind(
  { ...KARMADA_POLICY, kind: 'PropagationPolicy', plural: 'propagationpolicies', shortNames: ['pp'], namespaced: true },
  propagationPolicyAdmission,
);
registerKind(
  {
    ...KARMADA_POLICY,
    kind: 'ClusterPropagationPolicy',
    plural: 'clusterpropagationpolicies',
    shortNames: ['cpp'],
    namespaced: false,
  },
  propagationPolicyAdmission,
);
registerKind(
  { ...KARMADA_WORK, kind: 'ResourceBinding', plural: 'resourcebindings', shortNames: ['rb'], namespaced: true },
  resourceBindingAdmission,
);
registerKind(
  {
    ...KARMADA_WORK,
    kind: 'ClusterResourceBinding',
    plural: 'clusterresourcebindings',
    shortNames: ['crb'],
    namespaced: false,
  },
  resourceBindingAdmission,
);
registerKind(
  { ...KARMADA_AUTOSCALING, kind: 'FederatedHPA', plural: 'federatedhpas', shortNames: ['fhpa'], namespaced: true },
  federatedHpaAdmission,
);
registerKind(
  {
    ...KARMADA_AUTOSCALING,
    kind: 'CronFederatedHPA',
    plural: 'cronfederatedhpas',
    shortNames: ['cronfhpa'],
    namespaced: true,
  },
  cronFederatedHpaAdmission,
);
registerKind(
  {
    group: 'apps.karmada.io',
    version: 'v1alpha1',
    kind: 'WorkloadRebalancer',
    plural: 'workloadrebalancers',
    namespaced: false,
  },
  workloadRebalancerAdmission,
);
registerKind(
  {
    group: 'autoscaling.crane.io',
    version: 'v1alpha1',
    kind: 'EffectiveHorizontalPodAutoscaler',
    plural: 'effectivehorizontalpodautoscalers',
    shortNames: ['ehpa'],
    namespaced: true,
  },
  ehpaAdmission,
);
registerKind(
  {
    group: 'apps',
    version: 'v1',
    kind: 'Deployment',
    plural: 'deployments',
    shortNames: ['deploy'],
    namespaced: true,
  },
  workloadTemplateAdmission,
);
registerKind(
  {
    group: 'apps',
    version: 'v1',
    kind: 'StatefulSet',
    plural: 'statefulsets',
    shortNames: ['sts'],
    namespaced: true,
  },
  workloadTemplateAdmission,
);
registerKind({
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  shortNames: ['cm'],
  namespaced: true,
});
registerKind({ group: '', version: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true });
registerKind({ group: '', version: 'v1', kind: 'Service', plural: 'services', shortNames: ['svc'], namespaced: true });
registerKind({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'ClusterRole',
  plural: 'clusterroles',
  namespaced: false,
});
registerKind(
  {
    group: 'scheduling.k8s.io',
    version: 'v1',
    kind: 'PriorityClass',
    plural: 'priorityclasses',
    shortNames: ['pc'],
    namespaced: false,
  },
  priorityClassAdmission,
);
registerKind({
  group: 'autoscaling',
  version: 'v2',
  kind: 'HorizontalPodAutoscaler',
  plural: 'horizontalpodautoscalers',
  shortNames: ['hpa'],
  namespaced: true,
});

/** Every registered kind, in registration order. */
export function listKinds(): KindInfo[] {
  return [...byKind.values()].map((e) => e.info);
}

function kindNames(): string[] {
  return listKinds().map((k) => k.kind);
}

/**
 * Resolves what a user types for a kind, as kubectl does (case-insensitive): `Deployment`, `deployment`,
 * `deployments`, `deploy`, `deployments.apps`, `deployment.apps` or `deployments.v1.apps`.
 */
export function resolveKind(token: string): KindInfo {
  const t = token.trim().toLowerCase();
  for (const { info } of byKind.values()) {
    const bare = [info.kind.toLowerCase(), info.plural, info.singular, ...info.shortNames];
    if (bare.includes(t)) return info;
    const qualified = [info.plural, info.singular, info.kind.toLowerCase()].flatMap((n) =>
      info.group ? [`${n}.${info.group}`, `${n}.${info.version}.${info.group}`] : [`${n}.${info.version}`],
    );
    if (qualified.includes(t)) return info;
  }
  throw new UnknownKindError(token, kindNames());
}

/** The kind an object declares, checked against the apiVersion it is served under. */
export function kindOf(apiVersion: string, kind: string): KindInfo {
  const entry = byKind.get(kind);
  if (!entry) throw new UnknownKindError(kind, kindNames(), apiVersion);
  if (entry.info.apiVersion !== apiVersion) throw new WrongApiVersionError(apiVersion, kind, entry.info.apiVersion);
  return entry.info;
}

/** @internal admission's hook into the registry. */
export function admissionOf(kind: string): KindAdmission | undefined {
  return byKind.get(kind)?.admission;
}
