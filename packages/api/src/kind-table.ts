import { UnknownKindError, WrongApiVersionError } from './errors.js';
import type { KindInfo } from './registry-types.js';

export type { KindInfo } from './registry-types.js';

/**
 * The kinds Flotilla knows, by name, without their admission: what a process that reads objects but never admits
 * them (the scheduler, the status writer) needs to name and resolve kinds, without building admission's schemas
 * (registry.ts pairs each kind with its admission).
 */

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

const byKind = new Map<string, KindInfo>();

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
 * @internal registerKind's half: adds a kind's name, returning its info and a function that removes it again.
 * Throws when the kind name is taken.
 */
export function addKind(def: KindDefinition, strict: boolean): { info: KindInfo; remove(): void } {
  if (byKind.has(def.kind)) throw new Error(`kind ${def.kind} is already registered`);
  const info = makeInfo(def, strict);
  byKind.set(def.kind, info);
  return {
    info,
    remove: () => {
      if (byKind.get(def.kind) === info) byKind.delete(def.kind);
    },
  };
}

const KARMADA_CLUSTER = { group: 'cluster.karmada.io', version: 'v1alpha1' };
const KARMADA_POLICY = { group: 'policy.karmada.io', version: 'v1alpha1' };
const KARMADA_WORK = { group: 'work.karmada.io', version: 'v1alpha2' };
const KARMADA_AUTOSCALING = { group: 'autoscaling.karmada.io', version: 'v1alpha1' };

/**
 * The built-in kinds, in the order they are listed; `strict` when Flotilla validates the whole object (registry.ts
 * checks each against its admission when it loads).
 */
export const BUILT_IN_KINDS: ReadonlyArray<KindDefinition & { strict: boolean }> = [
  { ...KARMADA_CLUSTER, kind: 'Cluster', plural: 'clusters', namespaced: false, strict: true },
  {
    ...KARMADA_POLICY,
    kind: 'PropagationPolicy',
    plural: 'propagationpolicies',
    shortNames: ['pp'],
    namespaced: true,
    strict: true,
  },
  {
    ...KARMADA_POLICY,
    kind: 'ClusterPropagationPolicy',
    plural: 'clusterpropagationpolicies',
    shortNames: ['cpp'],
    namespaced: false,
    strict: true,
  },
  {
    ...KARMADA_WORK,
    kind: 'ResourceBinding',
    plural: 'resourcebindings',
    shortNames: ['rb'],
    namespaced: true,
    strict: true,
  },
  {
    ...KARMADA_WORK,
    kind: 'ClusterResourceBinding',
    plural: 'clusterresourcebindings',
    shortNames: ['crb'],
    namespaced: false,
    strict: true,
  },
  {
    ...KARMADA_AUTOSCALING,
    kind: 'FederatedHPA',
    plural: 'federatedhpas',
    shortNames: ['fhpa'],
    namespaced: true,
    strict: true,
  },
  {
    ...KARMADA_AUTOSCALING,
    kind: 'CronFederatedHPA',
    plural: 'cronfederatedhpas',
    shortNames: ['cronfhpa'],
    namespaced: true,
    strict: true,
  },
  {
    group: 'apps.karmada.io',
    version: 'v1alpha1',
    kind: 'WorkloadRebalancer',
    plural: 'workloadrebalancers',
    namespaced: false,
    strict: true,
  },
  {
    group: 'autoscaling.crane.io',
    version: 'v1alpha1',
    kind: 'EffectiveHorizontalPodAutoscaler',
    plural: 'effectivehorizontalpodautoscalers',
    shortNames: ['ehpa'],
    namespaced: true,
    strict: true,
  },
  {
    group: 'apps',
    version: 'v1',
    kind: 'Deployment',
    plural: 'deployments',
    shortNames: ['deploy'],
    namespaced: true,
    strict: false,
  },
  {
    group: 'apps',
    version: 'v1',
    kind: 'StatefulSet',
    plural: 'statefulsets',
    shortNames: ['sts'],
    namespaced: true,
    strict: false,
  },
  {
    group: '',
    version: 'v1',
    kind: 'ConfigMap',
    plural: 'configmaps',
    shortNames: ['cm'],
    namespaced: true,
    strict: false,
  },
  { group: '', version: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true, strict: false },
  {
    group: '',
    version: 'v1',
    kind: 'Service',
    plural: 'services',
    shortNames: ['svc'],
    namespaced: true,
    strict: false,
  },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind: 'ClusterRole',
    plural: 'clusterroles',
    namespaced: false,
    strict: false,
  },
  {
    group: 'scheduling.k8s.io',
    version: 'v1',
    kind: 'PriorityClass',
    plural: 'priorityclasses',
    shortNames: ['pc'],
    namespaced: false,
    strict: false,
  },
  {
    group: 'autoscaling',
    version: 'v2',
    kind: 'HorizontalPodAutoscaler',
    plural: 'horizontalpodautoscalers',
    shortNames: ['hpa'],
    namespaced: true,
    strict: false,
  },
];
for (const { strict, ...def } of BUILT_IN_KINDS) addKind(def, strict);

/** Every registered kind, in registration order. */
export function listKinds(): KindInfo[] {
  return [...byKind.values()];
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
  for (const info of byKind.values()) {
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
  const info = byKind.get(kind);
  if (!info) throw new UnknownKindError(kind, kindNames(), apiVersion);
  if (info.apiVersion !== apiVersion) throw new WrongApiVersionError(apiVersion, kind, info.apiVersion);
  return info;
}
