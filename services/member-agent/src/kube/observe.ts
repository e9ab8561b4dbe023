import type { Condition, ForeignHorizontalPodAutoscaler, ObjectMeta, ResourceModel } from '@flotilla/api';
import type { RawObject } from '@flotilla/kube-client';
import { type ClusterStatusPatch, foreignHpasField, type WorkloadReport, type WorkloadUsage } from '../report-model.js';
import { kubeClusterStatus, type NodeView, templatePodRequest } from './cluster-status.js';
import {
  type ApplyAction,
  type DesiredState,
  MemberMarks,
  memberKey,
  type MemberRef,
  planApply,
  type PlanOptions,
} from './member-objects.js';
import {
  type MemberObjectView,
  notAppliedReport,
  type PodView,
  plainObjectReport,
  readyPodsCpuMilli,
  selectorMatches,
  workloadReportFrom,
} from './workload-status.js';

// The kube driver's decisions, pure: what to write (planMemberWrites) and what the member cluster's caches say of
// each assigned workload and of the cluster (observeWorkloads, observeCluster). The driver reads its informers into
// these inputs, runs them, and writes (MemberWriter) and publishes what they return.

/** A kind the agent applies, by apiVersion and kind. */
export interface KindRef {
  apiVersion: string;
  kind: string;
}

/** `apps/v1/Deployment`: a kind's informer, in maps, metrics and logs. */
export const kindKey = (k: KindRef): string => `${k.apiVersion}/${k.kind}`;

/** One informer's cache as the decisions read it: whether a complete list is in, and its objects by `ns/name`. */
export interface CacheView<T> {
  synced: boolean;
  cache: ReadonlyMap<string, T>;
}

/** The HorizontalPodAutoscalers' informer, by its kindKey. */
export const HPA_KIND = kindKey({ apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' });

/**
 * The writes that bring the member cluster to `desired`, from what its informers hold (`managed`, by kindKey). An
 * object whose kind is not listed yet is left for later; removing what no binding assigns any more needs the full
 * picture, so no delete while any kind's list is missing. Conflicts (objects Flotilla did not create, or another
 * binding's, or any object in a reserved namespace) are returned by member key, with why.
 */
export function planMemberWrites(
  desired: DesiredState,
  managed: ReadonlyMap<string, CacheView<MemberObjectView>>,
  opts: PlanOptions & {
    /**
     * The bindings (formatBindingRef) `desired` was made of, when not of the cluster's whole share: only their
     * objects are removed when no longer desired (the others' bindings were not looked at).
     */
    bindings?: ReadonlySet<string>;
    /**
     * The bindings (formatBindingRef) left out of `desired` although of the share (changed after the pass's round
     * took what it looks at): their objects are neither written nor removed.
     */
    except?: ReadonlySet<string>;
  } = {},
): { actions: ApplyAction[]; conflicts: Map<string, string> } {
  const observed = new Map<string, MemberObjectView>();
  let allSynced = true;
  for (const informer of managed.values()) {
    if (!informer.synced) allSynced = false;
    for (const v of informer.cache.values()) {
      if (opts.bindings && (v.binding === undefined || !opts.bindings.has(v.binding))) continue;
      if (opts.except && v.binding !== undefined && opts.except.has(v.binding)) continue;
      observed.set(memberKey(v.ref), v);
    }
  }
  // What is desired is looked up whoever has it (someone else's object is a conflict).
  if (opts.bindings || opts.except)
    for (const d of desired.objects) {
      const v = managed.get(kindKey(d.ref))?.cache.get(`${d.ref.namespace}/${d.ref.name}`);
      if (v) observed.set(memberKey(d.ref), v);
    }
  const listed = desired.objects.filter((d) => managed.get(kindKey(d.ref))?.synced);
  const plan = planApply(listed, observed, opts);
  return {
    actions: allSynced ? plan.actions : plan.actions.filter((a) => a.type === 'apply'),
    conflicts: new Map(plan.conflicts.map((c) => [memberKey(c.object.ref), c.message])),
  };
}

/** The pods of `namespace` that carry the label `key=value`. */
export type PodsWithLabel = (namespace: string, label: string) => readonly PodView[];

/**
 * The pod informer's index by namespace and label: a workload's candidates are the pods with its selector's first
 * label, not every pod of its namespace, and the index is kept as pods change rather than built again each pass (a
 * pass over one binding built it from every pod of the cluster).
 */
const podLabelValue = (namespace: string, label: string): string => `${namespace}\n${label}`;
export const POD_LABEL_INDEX = Object.freeze({
  name: 'label',
  valueOf: podLabelValue,
  values: (p: PodView): string[] => Object.entries(p.labels).map(([k, v]) => podLabelValue(p.namespace, `${k}=${v}`)),
});

/**
 * The managed objects' index by their selector's first label, in the pod index's values: the workloads that may
 * select a pod are those indexed under one of its labels (then matched by their whole selector), so a pod's change
 * wakes its workload's binding, not every binding of the cluster.
 */
export const SELECTOR_INDEX = Object.freeze({
  name: 'selector',
  values: (v: MemberObjectView): string[] => {
    const first = v.selector ? Object.entries(v.selector)[0] : undefined;
    return first ? [podLabelValue(v.ref.namespace, `${first[0]}=${first[1]}`)] : [];
  },
});

/** The marks (`flotilla.io/binding`) of the managed workloads whose selector selects `pod`, through SELECTOR_INDEX. */
export function markedWorkloadsSelecting(
  pod: Pick<PodView, 'namespace' | 'labels'>,
  managed: Iterable<{ byIndex(name: string, value: string): readonly MemberObjectView[] }>,
): string[] {
  const marks: string[] = [];
  const informers = [...managed];
  for (const [k, v] of Object.entries(pod.labels)) {
    const value = podLabelValue(pod.namespace, `${k}=${v}`);
    for (const informer of informers)
      for (const w of informer.byIndex(SELECTOR_INDEX.name, value))
        if (w.binding !== undefined && selectorMatches(w.selector, pod.labels)) marks.push(w.binding);
  }
  return marks;
}

/** `PodsWithLabel` over a list of pods (where there is no informer to index them). */
export function podsWithLabelOf(pods: Iterable<PodView>): PodsWithLabel {
  const byLabel = new Map<string, PodView[]>();
  for (const p of pods)
    for (const value of POD_LABEL_INDEX.values(p)) {
      const list = byLabel.get(value);
      if (list) list.push(p);
      else byLabel.set(value, [p]);
    }
  return (namespace, label) => byLabel.get(POD_LABEL_INDEX.valueOf(namespace, label)) ?? [];
}

export interface WorkloadObservation {
  cluster: string;
  desired: DesiredState;
  managed: ReadonlyMap<string, CacheView<MemberObjectView>>;
  /** By member key: objects left alone because someone else has them (planMemberWrites). */
  conflicts: ReadonlyMap<string, string>;
  /** By member key: the last write that failed, until one succeeds. */
  writeErrors: ReadonlyMap<string, string>;
  /** By kindKey: kinds the member cluster does not serve, or refused to list, with why. */
  unservedKinds: ReadonlyMap<string, string>;
  /** The pods that carry a label: the pod informer's index (POD_LABEL_INDEX), or `podsWithLabelOf` a list. */
  pods: PodsWithLabel;
  /** By namespace, each pod's CPU use in millicores (metrics.k8s.io); undefined where it could not be read. */
  podCpu: ReadonlyMap<string, ReadonlyMap<string, number> | undefined>;
}

/**
 * Where a workload's usage is read from between passes (the kube driver refreshes usage when pod metrics are due
 * without looking at the bindings again): its member object and the CPU each of its pods requests.
 */
export interface UsageSource {
  ref: MemberRef;
  cpuRequestMilli: number;
}

/** The pods of `namespace` that `selector` (a workload's matchLabels) selects, through the label index. */
export function podsSelected(
  pods: PodsWithLabel,
  namespace: string,
  selector: Record<string, string> | undefined,
): PodView[] {
  const first = selector ? Object.entries(selector)[0] : undefined;
  if (!first) return [];
  return pods(namespace, `${first[0]}=${first[1]}`).filter((p) => selectorMatches(selector, p.labels));
}

/** A workload's usage here, and its ready pods' CPU in millicores (the binding's part of it). */
export interface WorkloadUsed {
  cpuMilli: number;
  usage: WorkloadUsage;
}

/**
 * A workload's usage here: its ready pods' CPU from metrics.k8s.io (`podCpu` by namespace), for a workload whose pods
 * request CPU; none where metrics has no figure for them (readyPodsCpuMilli).
 */
export function workloadUsage(o: {
  cluster: string;
  source: UsageSource;
  pods: readonly PodView[];
  podCpu: ReadonlyMap<string, ReadonlyMap<string, number> | undefined>;
}): WorkloadUsed | undefined {
  const { ref, cpuRequestMilli } = o.source;
  const podCpu = o.podCpu.get(ref.namespace);
  const cpu = podCpu && cpuRequestMilli > 0 ? readyPodsCpuMilli(o.pods, podCpu) : undefined;
  if (cpu === undefined) return undefined;
  return {
    cpuMilli: cpu,
    usage: { cluster: o.cluster, namespace: ref.namespace, kind: ref.kind, workload: ref.name, cores: cpu / 1000 },
  };
}

export interface WorkloadObservations {
  /** By binding (formatBindingRef): this cluster's entry of the binding's aggregated status. */
  reports: Map<string, WorkloadReport>;
  /** By binding (formatBindingRef): where its workload's usage is read from, for a workload whose pods request CPU. */
  usageSources: Map<string, UsageSource>;
  /** By binding (formatBindingRef): its workload's CPU use here, where its pods request CPU and metrics answer. */
  usage: Map<string, WorkloadUsed>;
}

/** What the member cluster's caches say of each workload the bindings assign to it. */
export function observeWorkloads(o: WorkloadObservation): WorkloadObservations {
  const out: WorkloadObservations = { reports: new Map(), usageSources: new Map(), usage: new Map() };
  const byKey = new Map(o.desired.objects.map((d) => [memberKey(d.ref), d]));
  const hpas = [...(o.managed.get(HPA_KIND)?.cache.values() ?? [])].filter((h) => h.binding !== undefined && h.hpa);
  for (const [key, a] of o.desired.assigned) {
    if (a.problem || !a.ref) {
      out.reports.set(key, notAppliedReport(a.problem ?? 'no object to apply'));
      continue;
    }
    const ref = a.ref;
    const mKey = memberKey(ref);
    const d = byKey.get(mKey)!;
    const failed = o.conflicts.get(mKey) ?? o.writeErrors.get(mKey) ?? o.unservedKinds.get(kindKey(ref));
    if (failed) {
      out.reports.set(key, notAppliedReport(failed));
      continue;
    }
    const view = o.managed.get(kindKey(ref))?.cache.get(`${ref.namespace}/${ref.name}`);
    if (!view || view.binding === undefined) {
      out.reports.set(key, notAppliedReport('waiting for the member cluster to list the applied object'));
      continue;
    }
    if (d.replicas === undefined) {
      out.reports.set(key, plainObjectReport());
      continue;
    }
    const pods = podsSelected(o.pods, ref.namespace, view.selector);
    const request = d.podTemplate ? templatePodRequest(d.podTemplate).cpuMilli : 0;
    const hpa = hpas.find(
      (h) => h.ref.namespace === ref.namespace && h.hpa!.target?.kind === ref.kind && h.hpa!.target?.name === ref.name,
    )?.hpa;
    out.reports.set(
      key,
      workloadReportFrom({
        ref,
        view,
        pods,
        ...(request > 0 ? { cpuRequestMilli: request } : {}),
        ...(hpa ? { hpa } : {}),
      }),
    );
    if (request === 0) continue;
    const source = { ref, cpuRequestMilli: request };
    out.usageSources.set(key, source);
    const used = workloadUsage({ cluster: o.cluster, source, pods, podCpu: o.podCpu });
    if (used) out.usage.set(key, used);
  }
  return out;
}

export interface ClusterObservation {
  /** The API server's gitVersion; undefined until it answered once. */
  version: string | undefined;
  nodes: CacheView<NodeView> | undefined;
  pods: CacheView<PodView> | undefined;
  /** The HorizontalPodAutoscalers' cache: those Flotilla did not create go into the status. */
  hpas: CacheView<MemberObjectView> | undefined;
  models: readonly ResourceModel[];
}

/**
 * The Cluster's status from the member cluster's caches (Ready, version, resource summary), or undefined while the
 * nodes or pods are not listed or the version is unknown. Foreign HPAs only from a full list: a partial one would
 * report one gone that is not.
 */
export function observeCluster(o: ClusterObservation): ClusterStatusPatch | undefined {
  if (!o.nodes?.synced || !o.pods?.synced || o.version === undefined) return undefined;
  const patch = kubeClusterStatus(o.version, o.nodes.cache.values(), o.pods.cache.values(), o.models);
  if (o.hpas?.synced) patch.foreignHorizontalPodAutoscalers = foreignHpasField(foreignHpasOf(o.hpas.cache.values()));
  return patch;
}

/** What the driver keeps of an object of a kind it applies (the informers' transform). */
export function memberObjectView(k: KindRef, raw: RawObject): MemberObjectView {
  const md = (raw.metadata ?? {}) as Partial<
    Pick<ObjectMeta, 'name' | 'namespace' | 'annotations' | 'generation' | 'deletionTimestamp'>
  >;
  const view: MemberObjectView = {
    ref: { apiVersion: k.apiVersion, kind: k.kind, namespace: md.namespace ?? '', name: md.name ?? '' },
  };
  const binding = md.annotations?.[MemberMarks.binding];
  // Someone else's object: only its name is kept, to see a conflict; of an HPA also what it scales, within which
  // limits (an autoscaler of Flotilla's aimed at the same workload has an owner conflict).
  if (binding === undefined) {
    if (k.kind === 'HorizontalPodAutoscaler') {
      const spec = (raw.spec ?? {}) as Record<string, unknown>;
      const target = (spec.scaleTargetRef ?? {}) as Record<string, unknown>;
      if (typeof target.kind === 'string' && typeof target.name === 'string')
        view.hpa = {
          target: {
            kind: target.kind,
            name: target.name,
            ...(typeof target.apiVersion === 'string' ? { apiVersion: target.apiVersion } : {}),
          },
          ...(typeof spec.minReplicas === 'number' ? { minReplicas: spec.minReplicas } : {}),
          ...(typeof spec.maxReplicas === 'number' ? { maxReplicas: spec.maxReplicas } : {}),
        };
    }
    return view;
  }
  view.binding = binding;
  const hash = md.annotations?.[MemberMarks.appliedHash];
  if (hash) view.appliedHash = hash;
  const assigned = md.annotations?.[MemberMarks.assignedReplicas];
  if (assigned !== undefined && Number.isInteger(Number(assigned))) view.assignedReplicas = Number(assigned);
  if (md.deletionTimestamp) view.deleting = true;
  if (md.generation !== undefined) view.generation = md.generation;
  const spec = (raw.spec ?? {}) as {
    replicas?: number;
    selector?: { matchLabels?: Record<string, string> };
    minReplicas?: number;
    maxReplicas?: number;
    scaleTargetRef?: { kind?: string; name?: string };
  };
  if (typeof spec.replicas === 'number') view.replicas = spec.replicas;
  if (spec.selector?.matchLabels) view.selector = spec.selector.matchLabels;
  const status = (raw.status ?? {}) as Record<string, unknown>;
  if (k.kind === 'HorizontalPodAutoscaler') {
    const metrics = (status.currentMetrics ?? []) as Array<{
      type?: string;
      resource?: { name?: string; current?: { averageUtilization?: number } };
    }>;
    const cpu = metrics.find((m) => m.type === 'Resource' && m.resource?.name === 'cpu')?.resource?.current
      ?.averageUtilization;
    view.hpa = {
      ...(spec.minReplicas !== undefined ? { minReplicas: spec.minReplicas } : {}),
      ...(spec.maxReplicas !== undefined ? { maxReplicas: spec.maxReplicas } : {}),
      ...(spec.scaleTargetRef ? { target: { ...spec.scaleTargetRef } } : {}),
      ...(typeof status.currentReplicas === 'number' ? { currentReplicas: status.currentReplicas } : {}),
      ...(typeof status.desiredReplicas === 'number' ? { desiredReplicas: status.desiredReplicas } : {}),
      ...(cpu !== undefined ? { cpuUtilization: cpu } : {}),
    };
  } else if (view.replicas !== undefined) {
    const conditions = (status.conditions ?? []) as Array<Pick<Condition, 'type' | 'status' | 'reason'>>;
    const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
    view.status = {
      ...(num(status.observedGeneration) !== undefined ? { observedGeneration: num(status.observedGeneration) } : {}),
      ...(num(status.replicas) !== undefined ? { replicas: num(status.replicas) } : {}),
      ...(num(status.readyReplicas) !== undefined ? { readyReplicas: num(status.readyReplicas) } : {}),
      ...(num(status.availableReplicas) !== undefined ? { availableReplicas: num(status.availableReplicas) } : {}),
      ...(num(status.updatedReplicas) !== undefined ? { updatedReplicas: num(status.updatedReplicas) } : {}),
      ...(conditions.length
        ? {
            conditions: conditions.map((c) => ({
              type: c.type,
              status: c.status,
              ...(c.reason ? { reason: c.reason } : {}),
            })),
          }
        : {}),
    };
  }
  return view;
}

/** The HorizontalPodAutoscalers Flotilla did not create (no binding annotation), as a Cluster's status lists them. */
export function foreignHpasOf(views: Iterable<MemberObjectView>): ForeignHorizontalPodAutoscaler[] {
  const out: ForeignHorizontalPodAutoscaler[] = [];
  for (const v of views) {
    const target = v.hpa?.target;
    if (v.binding !== undefined || !target?.kind || !target.name) continue;
    out.push({
      namespace: v.ref.namespace,
      name: v.ref.name,
      scaleTargetRef: {
        ...(target.apiVersion ? { apiVersion: target.apiVersion } : {}),
        kind: target.kind,
        name: target.name,
      },
      ...(v.hpa!.minReplicas !== undefined ? { minReplicas: v.hpa!.minReplicas } : {}),
      ...(v.hpa!.maxReplicas !== undefined ? { maxReplicas: v.hpa!.maxReplicas } : {}),
    });
  }
  return out;
}
