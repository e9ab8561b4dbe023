import { KubeInformer, type RawObject } from '@flotilla/kube-client';
import type { Clock } from '@flotilla/runtime';
import { deepFreeze } from '@flotilla/store';
import type { MemberClusterApi, MemberInformerOptions, ResourceInfo } from '../kube/kube-api.js';
import type { Manifest, MemberRef } from '../kube/member-objects.js';
import { type KubePod, podRequest } from '../kube/cluster-status.js';
import { ZERO, type Resources } from '../resources.js';
import { compareBindings, podsThatFit, type WorkloadFit } from './capacity.js';
import { SimulationSpecError } from './errors.js';
import { type HpaOptions, type HpaState, initialHpaState, parseHpaSpec, reconcileHpa } from './hpa.js';
import { demandAt, loadOrigin, type LoadModel } from './load.js';
import { kindKeyOf, SimObjects } from './sim-objects.js';
import type { SimulationSpec } from './simulation-spec.js';

/** The simulated controller-manager's defaults, defined once (Kubernetes' own). */
export const SIMULATED_MEMBER_DEFAULTS = Object.freeze({
  /** `--horizontal-pod-autoscaler-sync-period`. */
  hpaSyncPeriodMs: 15_000,
});

export interface SimulatedMemberOptions {
  /** The Cluster this simulates (named in errors and object uids). */
  cluster: string;
  /** The HPAs' time and the load models' time. */
  clock: Clock;
  /** How often each HPA evaluates (SIM_HPA_SYNC_MS, default 15 s). */
  hpaSyncPeriodMs?: number;
  hpa?: HpaOptions;
}

const HPA = { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' } as const;
const POD = { apiVersion: 'v1', kind: 'Pod' } as const;
const NODE = { apiVersion: 'v1', kind: 'Node' } as const;
/** The status of a pod the simulated kubelet runs, and of one that fits nowhere (shared: never changed in place). */
const RUNNING_POD_STATUS = deepFreeze({
  phase: 'Running',
  conditions: [
    { type: 'PodScheduled', status: 'True' },
    { type: 'Ready', status: 'True' },
  ],
});
const PENDING_POD_STATUS = deepFreeze({
  phase: 'Pending',
  conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }],
});
/** What a fresh cluster has. */
const INITIAL_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/** A workload (any object with `spec.replicas`) as the simulated kubelet last placed its pods. */
interface Placed {
  ref: MemberRef;
  /** The spec's generation the pods were made from: a new one (template, replicas) rewrites them. */
  generation: number;
  fit: WorkloadFit;
  podRequest: Resources;
}

const workloadKey = (r: Pick<MemberRef, 'apiVersion' | 'kind' | 'namespace' | 'name'>) =>
  `${r.apiVersion}/${r.kind}/${r.namespace}/${r.name}`;
const specOf = (o: RawObject | undefined) => (o?.spec ?? {}) as Record<string, unknown>;
const podTemplateOf = (o: RawObject) =>
  (specOf(o).template as { metadata?: { labels?: Record<string, string> }; spec?: KubePod['spec'] } | undefined) ?? {};

/**
 * One simulated member cluster behind the member port (`MemberClusterApi`) the kube driver writes to and reads from,
 * so that simulated clusters run under the same driver as real ones. Inside, what a cluster's own parts would do:
 * - the API server (SimObjects): objects, list and watch; `failed` in `spec.simulation` takes it away;
 * - a kubelet and scheduler in one: each workload's pods placed by their requests into the one node of the
 *   simulation's `allocatable`, workloads in namespace/name order, the pods that do not fit Pending (Unschedulable);
 *   the workload's status follows at once (pods start instantly);
 * - the HPA controller: every applied autoscaling/v2 HorizontalPodAutoscaler scales its target's `spec.replicas`
 *   against the load model's CPU every sync period (`syncHpas`), and writes its status;
 * - metrics-server: each pod's CPU from the workload's load model (`spec.simulation.loads`), shared by its running
 *   pods.
 */
export class SimulatedMember implements MemberClusterApi {
  readonly objects: SimObjects;
  private spec: SimulationSpec | undefined;
  private invalid: SimulationSpecError | undefined;
  private readonly workloads = new Map<string, Placed | undefined>();
  private readonly hpaStates = new Map<string, HpaState>();
  /** `${workload}|${model}` → when the model was first seen (the origin of step models). */
  private readonly firstSeen = new Map<string, number>();
  /** The HorizontalPodAutoscalers `spec.simulation` lists as someone else's: reported by the driver, not run. */
  private foreign = new Set<string>();
  private readonly hpaSyncPeriodMs: number;
  /** The workloads (their keys and refs) in the order the kubelet places them; undefined once one came or went. */
  private order: Array<{ key: string; ref: MemberRef }> | undefined;
  /** The one node's name. */
  private readonly nodeName: string;
  /** The kubelet pass the writes of this turn wait for (settleSoon). */
  private pendingSettle: Promise<void> | undefined;
  /** The workloads (keys) whose spec changed, or that came, since the kubelet last placed their pods. */
  private readonly touched = new Set<string>();
  /** The next kubelet pass places every workload: the node changed, or room was freed while pods are Pending. */
  private placeAll = true;
  /** What every pod of the placed workloads asks for (Pending ones too), and how many of them are Pending. */
  private readonly asked: Resources = { cpuMilli: 0, memoryBytes: 0, pods: 0 };
  private pendingPods = 0;
  private looked = 0;

  /** How many workloads the kubelet looked at, over all its passes (the count its short way keeps low). */
  get workloadsLooked(): number {
    return this.looked;
  }

  constructor(private readonly o: SimulatedMemberOptions) {
    this.objects = new SimObjects(o.cluster);
    this.nodeName = `${o.cluster}-node`;
    this.hpaSyncPeriodMs = o.hpaSyncPeriodMs ?? SIMULATED_MEMBER_DEFAULTS.hpaSyncPeriodMs;
    for (const name of INITIAL_NAMESPACES)
      this.objects.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }

  get cluster(): string {
    return this.o.cluster;
  }

  /**
   * The Cluster's `spec.simulation`, as first seen and after each change: the node's allocatable, the load models,
   * the foreign HPAs, and whether the API server answers (`failed`). A simulation that cannot be read leaves the API
   * server answering `/readyz` with an error (the cluster is reported not Ready) and the rest as it was.
   */
  configure(spec: SimulationSpec | SimulationSpecError): void {
    if (spec instanceof SimulationSpecError) {
      this.invalid = spec;
      return;
    }
    this.invalid = undefined;
    const before = this.spec;
    this.spec = spec;
    this.objects.setAnswering(!spec.failed);
    if (!before || JSON.stringify(before.allocatable) !== JSON.stringify(spec.allocatable)) {
      const a = spec.allocatable;
      const quantities = { cpu: `${a.cpuMilli}m`, memory: String(a.memoryBytes), pods: String(a.pods) };
      this.objects.put({
        ...NODE,
        metadata: { name: this.nodeName },
        status: { allocatable: quantities, capacity: quantities },
      });
      this.placeAll = true;
      this.settle();
    }
    this.putForeignHpas(spec);
  }

  /** Why the simulation cannot run, if it cannot. */
  get invalidSpec(): SimulationSpecError | undefined {
    return this.invalid;
  }

  // The member port.

  async readyz(): Promise<boolean> {
    this.objects.assertAnswering();
    return this.invalid === undefined;
  }

  /** Why the simulation cannot run (its field path), while it cannot. */
  unhealthyReason(): string | undefined {
    return this.invalid?.message;
  }

  async version(): Promise<string> {
    this.objects.assertAnswering();
    return this.spec?.kubernetesVersion ?? 'v0.0.0';
  }

  async resource(apiVersion: string, kind: string): Promise<ResourceInfo> {
    this.objects.assertAnswering();
    return this.objects.resourceInfo(apiVersion, kind);
  }

  async informer<T>(apiVersion: string, kind: string, opts: MemberInformerOptions<T>): Promise<KubeInformer<T>> {
    const info = await this.resource(apiVersion, kind);
    return new KubeInformer<T>({
      ...opts,
      name: opts.name ?? kindKeyOf(apiVersion, kind),
      server: this.o.cluster,
      client: this.objects.listWatch(apiVersion, kind),
      request: { group: info.group, resource: info.plural },
      toError: (err) => (err instanceof Error ? err : new Error(String(err))),
    });
  }

  /**
   * Server-side apply, forced, by the only manager there is besides the HPA controller: the manifest replaces the
   * object, except `spec.replicas` when the manifest leaves it out (the HPA's field then). Refused in a namespace that
   * does not exist, as the API server refuses it.
   */
  async apply(manifest: Manifest): Promise<RawObject> {
    this.objects.assertAnswering();
    const info = this.objects.resourceInfo(manifest.apiVersion, manifest.kind);
    const namespace = info.namespaced ? (manifest.metadata.namespace ?? 'default') : undefined;
    if (namespace !== undefined && !this.objects.get('v1', 'Namespace', undefined, namespace))
      throw new Error(`member cluster "${this.o.cluster}": namespaces "${namespace}" not found`);
    const name = manifest.metadata.name!;
    assertValidPodTemplate(manifest);
    const before = this.objects.get(manifest.apiVersion, manifest.kind, namespace, name);
    let spec = manifest.spec as Record<string, unknown> | undefined;
    const beforeSpec = specOf(before);
    if (spec && !('replicas' in spec) && typeof beforeSpec.replicas === 'number')
      spec = { ...spec, replicas: beforeSpec.replicas };
    const generation = (before?.metadata?.generation as number | undefined) ?? 0;
    const changed = !before || JSON.stringify(beforeSpec) !== JSON.stringify(spec ?? {});
    const { status: _ignored, ...content } = manifest as Manifest & { status?: unknown };
    const stored = this.objects.put({
      ...content,
      ...(spec ? { spec } : {}),
      metadata: {
        ...manifest.metadata,
        ...(namespace !== undefined ? { namespace } : {}),
        generation: changed ? generation + 1 : generation,
      },
      ...(before?.status !== undefined ? { status: before.status } : {}),
    });
    if (typeof specOf(stored).replicas === 'number') {
      const ref = { apiVersion: manifest.apiVersion, kind: manifest.kind, namespace: namespace ?? '', name };
      const key = workloadKey(ref);
      if (!this.workloads.has(key)) {
        this.workloads.set(key, undefined);
        this.order = undefined;
        this.touched.add(key);
      } else if (changed) this.touched.add(key);
      await this.settleSoon();
      return this.objects.get(manifest.apiVersion, manifest.kind, namespace, name) ?? stored;
    }
    return stored;
  }

  /** Deletes an object (a workload's pods with it, and the room they took goes to the Pending ones). */
  async remove(ref: MemberRef): Promise<void> {
    this.objects.assertAnswering();
    const namespace = ref.namespace || undefined;
    if (!this.objects.delete(ref.apiVersion, ref.kind, namespace, ref.name)) return;
    const key = workloadKey(ref);
    if (!this.workloads.has(key)) return;
    const placed = this.workloads.get(key);
    this.place(key, undefined);
    this.touched.delete(key);
    this.order = undefined;
    // The room it took goes to the Pending pods, if any.
    if (this.pendingPods > 0) this.placeAll = true;
    for (let i = 0; i < (placed?.fit.replicas ?? 0); i++)
      this.objects.delete(POD.apiVersion, POD.kind, ref.namespace, podName(ref, i));
    await this.settleSoon();
  }

  /** metrics.k8s.io: the CPU of each running pod of `namespace`, its workload's demand shared by its running pods. */
  async podCpuMilli(namespace: string): Promise<Map<string, number>> {
    this.objects.assertAnswering();
    const out = new Map<string, number>();
    const nowMs = this.o.clock.now().getTime();
    for (const p of this.workloads.values()) {
      if (!p || p.ref.namespace !== namespace || p.fit.running === 0) continue;
      const model = this.loadOf(p.ref);
      if (!model) continue;
      const total = Math.round(this.demand(p.ref, model, nowMs) * 1000);
      const each = Math.floor(total / p.fit.running);
      for (let i = 0; i < p.fit.running; i++)
        out.set(podName(p.ref, i), i === 0 ? total - each * (p.fit.running - 1) : each);
    }
    return out;
  }

  close(): void {}

  /**
   * The HPA controller's pass: each applied HorizontalPodAutoscaler whose sync period ran out reads its target's
   * scale and the pods' CPU, runs Kubernetes' algorithm (sim/hpa.ts), scales the target and writes its status. An HPA
   * the simulator cannot run (another metric, no target) scales nothing. Nothing while the API server is down: the
   * cluster's own controllers are out of reach with it.
   */
  syncHpas(): void {
    if (!this.objects.answering || !this.spec) return;
    const nowMs = this.o.clock.now().getTime();
    const present = new Set<string>();
    for (const h of [...this.objects.list(HPA.apiVersion, HPA.kind)]) {
      const namespace = h.metadata?.namespace ?? '';
      const hKey = `${namespace}/${h.metadata?.name}`;
      if (this.foreign.has(hKey)) continue;
      present.add(hKey);
      let parsed: ReturnType<typeof parseHpaSpec>;
      try {
        parsed = parseHpaSpec(h.spec);
      } catch (err) {
        if (err instanceof SimulationSpecError) continue;
        throw err;
      }
      const target = [...this.workloads.values()].find(
        (p) =>
          p && p.ref.namespace === namespace && p.ref.kind === parsed.target.kind && p.ref.name === parsed.target.name,
      );
      if (!target) continue;
      const current = target.fit.replicas;
      const state = this.hpaStates.get(hKey);
      if (state?.lastSyncMs !== undefined && nowMs - state.lastSyncMs < this.hpaSyncPeriodMs) continue;
      const model = this.loadOf(target.ref);
      // No load model means no metric: like Kubernetes on FailedGetResourceMetric, the HPA only enforces min/max.
      const sample = model
        ? {
            readyPods: target.fit.running,
            pendingPods: target.fit.pending,
            usageMilli: target.fit.running > 0 ? Math.round(this.demand(target.ref, model, nowMs) * 1000) : 0,
            requestMilli: target.podRequest.cpuMilli,
          }
        : { readyPods: 0, pendingPods: 0, usageMilli: 0, requestMilli: 0 };
      // The HPA reads the scale each pass: whoever set the replicas last (the HPA, or an apply) is what it starts from.
      const next = reconcileHpa(
        parsed.spec,
        { ...(state ?? initialHpaState(current, nowMs)), replicas: current },
        sample,
        nowMs,
        this.o.hpa,
      );
      this.hpaStates.set(hKey, next);
      if (next.replicas !== current) this.scale(target.ref, next.replicas);
      const status = {
        currentReplicas: next.replicas,
        desiredReplicas: next.replicas,
        ...(next.utilization !== undefined
          ? {
              currentMetrics: [
                { type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: next.utilization } } },
              ],
            }
          : {}),
      };
      if (JSON.stringify(h.status ?? {}) !== JSON.stringify(status)) this.objects.put({ ...h, status });
    }
    for (const k of this.hpaStates.keys()) if (!present.has(k)) this.hpaStates.delete(k);
  }

  /** The HPA writes the target's scale (`spec.replicas`): a new generation, pods placed again. */
  private scale(ref: MemberRef, replicas: number): void {
    const o = this.objects.get(ref.apiVersion, ref.kind, ref.namespace || undefined, ref.name);
    if (!o) return;
    const generation = ((o.metadata?.generation as number | undefined) ?? 0) + 1;
    this.objects.put({ ...o, metadata: { ...o.metadata, generation }, spec: { ...specOf(o), replicas } });
    this.touched.add(workloadKey(ref));
    this.settle();
  }

  /**
   * The kubelet's pass after the writes of this turn of the event loop: a pass places every workload of the cluster,
   * so one per write made a burst of N writes cost N times the cluster's workloads. The writes a driver's pass sends
   * together (MemberWriter keeps up to its concurrency in flight) share one, and each resolves once it ran: what a
   * write changed (pods, the workload's status) is in the member's watches when it returns, as before.
   */
  private settleSoon(): Promise<void> {
    this.pendingSettle ??= new Promise<void>((resolve) =>
      setImmediate(() => {
        this.pendingSettle = undefined;
        this.settle();
        resolve();
      }),
    );
    return this.pendingSettle;
  }

  /**
   * The kubelet and scheduler: places the workloads' pods into the node, as the simulator always did: namespace/name
   * order, as many pods of each as still fit (capacity.ts's podsThatFit), the rest Pending; and writes the pods and
   * workload status that changed. It runs after every turn of writes. While every pod of every workload fits (none
   * Pending, and the sum of what they all ask for within the node), the order decides nothing: only the workloads
   * that changed are placed, all their pods running. Otherwise it places every workload again, keeping their order
   * until one comes or goes and writing nothing for a workload whose placement stands.
   */
  private settle(): void {
    const changed = this.placeAll || this.pendingPods > 0 ? undefined : this.changedIfAllFit();
    this.touched.clear();
    if (changed) {
      for (const c of changed) this.placeWorkload(c, c.replicas);
      return;
    }
    this.placeAll = false;
    const allocatable = this.spec?.allocatable ?? ZERO;
    this.order ??= [...this.workloads.entries()]
      .map(([key, placed]) => ({ key, ref: placed?.ref ?? refOfKey(key) }))
      .sort((a, b) => compareBindings(a.ref, b.ref));
    // What the pods placed so far use (one object for the pass, counted up in place).
    const used: Resources = { cpuMilli: 0, memoryBytes: 0, pods: 0 };
    for (const { key, ref } of this.order) {
      const w = this.current(key, ref);
      if (!w) continue;
      const running = podsThatFit(allocatable, used, w.replicas, w.request);
      addPods(used, running, w.request);
      this.placeWorkload(w, running);
    }
  }

  /**
   * The changed workloads as they are now, when every pod of every workload fits into the node with them (undefined
   * when not: the order decides then).
   */
  private changedIfAllFit(): CurrentWorkload[] | undefined {
    const allocatable = this.spec?.allocatable ?? ZERO;
    const demand = { ...this.asked };
    const changed: CurrentWorkload[] = [];
    for (const key of this.touched) {
      const placed = this.workloads.get(key);
      const w = this.current(key, placed?.ref ?? refOfKey(key));
      if (!w) continue;
      changed.push(w);
      if (placed) addPods(demand, -placed.fit.replicas, placed.podRequest);
      addPods(demand, w.replicas, w.request);
    }
    const fits =
      demand.pods <= allocatable.pods &&
      demand.cpuMilli <= allocatable.cpuMilli &&
      demand.memoryBytes <= allocatable.memoryBytes;
    return fits ? changed : undefined;
  }

  /** A workload's object, spec generation, replicas and pods' request now (undefined once it is gone). */
  private current(key: string, ref: MemberRef): CurrentWorkload | undefined {
    this.looked++;
    const object = this.objects.get(ref.apiVersion, ref.kind, ref.namespace || undefined, ref.name);
    if (!object) return undefined;
    const before = this.workloads.get(key);
    const generation = (object.metadata?.generation as number | undefined) ?? 0;
    // The pods' request is read again only when the spec changed (a new generation).
    let request = before?.generation === generation ? before.podRequest : undefined;
    if (!request) {
      try {
        request = podRequest({ spec: podTemplateOf(object).spec ?? {} });
      } catch {
        // Requests the simulator cannot read: the pods ask for nothing (the API server would have refused them).
        request = { ...ZERO, pods: 1 };
      }
    }
    const replicas = Math.max(0, Math.floor(specOf(object).replicas as number));
    return { key, ref, object, generation, request, replicas };
  }

  /** `running` of the workload's pods run, the others wait: its pods and status written unless they stand. */
  private placeWorkload(w: CurrentWorkload, running: number): void {
    const before = this.workloads.get(w.key);
    if (
      before &&
      before.generation === w.generation &&
      before.fit.replicas === w.replicas &&
      before.fit.running === running
    )
      return;
    const fit: WorkloadFit = {
      binding: { kind: w.ref.kind, namespace: w.ref.namespace, name: w.ref.name },
      replicas: w.replicas,
      running,
      pending: w.replicas - running,
    };
    this.place(w.key, { ref: w.ref, generation: w.generation, fit, podRequest: w.request });
    this.writePods(w.ref, podTemplateOf(w.object), fit, before?.fit.replicas ?? 0);
    this.writeStatus(w.object, fit);
  }

  /** Records a workload's placement (none: it is gone), keeping the sums of what every pod asks and of Pending pods. */
  private place(key: string, placed: Placed | undefined): void {
    const before = this.workloads.get(key);
    if (before) {
      addPods(this.asked, -before.fit.replicas, before.podRequest);
      this.pendingPods -= before.fit.pending;
    }
    if (!placed) {
      this.workloads.delete(key);
      return;
    }
    addPods(this.asked, placed.fit.replicas, placed.podRequest);
    this.pendingPods += placed.fit.pending;
    this.workloads.set(key, placed);
  }

  private writePods(
    ref: MemberRef,
    template: ReturnType<typeof podTemplateOf>,
    w: WorkloadFit,
    replicasBefore: number,
  ): void {
    // A workload's pods share their spec and status objects (stored objects are never changed in place): 30,000 pods
    // of their own were most of a 100-cluster fleet's memory.
    const pending = Object.freeze({
      containers: template.spec?.containers ?? [],
      ...(template.spec?.initContainers ? { initContainers: template.spec.initContainers } : {}),
      ...(template.spec?.overhead ? { overhead: template.spec.overhead } : {}),
    });
    const running = Object.freeze({ nodeName: this.nodeName, ...pending });
    const labels = template.metadata?.labels ?? {};
    for (let i = 0; i < w.replicas; i++) {
      const runs = i < w.running;
      this.objects.put({
        ...POD,
        metadata: { name: podName(ref, i), namespace: ref.namespace, labels },
        spec: runs ? running : pending,
        status: runs ? RUNNING_POD_STATUS : PENDING_POD_STATUS,
      });
    }
    for (let i = w.replicas; i < replicasBefore; i++)
      this.objects.delete(POD.apiVersion, POD.kind, ref.namespace, podName(ref, i));
  }

  /** The workload controller's status: every pod that runs is ready and available at once. */
  private writeStatus(object: RawObject, w: WorkloadFit): void {
    const status = {
      observedGeneration: object.metadata?.generation,
      replicas: w.replicas,
      readyReplicas: w.running,
      availableReplicas: w.running,
      updatedReplicas: w.replicas,
    };
    if (JSON.stringify(object.status ?? {}) === JSON.stringify(status)) return;
    this.objects.put({ ...object, status });
  }

  private putForeignHpas(spec: SimulationSpec): void {
    const next = new Set<string>();
    for (const h of spec.foreignHpas) {
      const key = `${h.namespace}/${h.name}`;
      next.add(key);
      const object = {
        ...HPA,
        metadata: { name: h.name, namespace: h.namespace },
        spec: {
          scaleTargetRef: h.scaleTargetRef,
          ...(h.minReplicas !== undefined ? { minReplicas: h.minReplicas } : {}),
          ...(h.maxReplicas !== undefined ? { maxReplicas: h.maxReplicas } : {}),
        },
      };
      const have = this.objects.get(HPA.apiVersion, HPA.kind, h.namespace, h.name);
      if (JSON.stringify(have?.spec) !== JSON.stringify(object.spec)) this.objects.put(object);
    }
    for (const key of this.foreign) {
      if (next.has(key)) continue;
      const [namespace, name] = key.split('/') as [string, string];
      this.objects.delete(HPA.apiVersion, HPA.kind, namespace, name);
    }
    this.foreign = next;
  }

  private loadOf(ref: MemberRef): LoadModel | undefined {
    return this.spec?.loads.find(
      (l) => l.workload.kind === ref.kind && l.workload.namespace === ref.namespace && l.workload.name === ref.name,
    )?.model;
  }

  private demand(ref: MemberRef, model: LoadModel, nowMs: number): number {
    const key = `${workloadKey(ref)}|${JSON.stringify(model)}`;
    let seen = this.firstSeen.get(key);
    if (seen === undefined) {
      seen = nowMs;
      this.firstSeen.set(key, seen);
    }
    return demandAt(model, nowMs - loadOrigin(model, seen));
  }
}

/**
 * What the API server validates of a pod template that the simulator reads: each container's requests are
 * quantities. Refused as the API server refuses it (422 Invalid), naming the field, rather than stored and its pods
 * written with requests nothing can read.
 */
function assertValidPodTemplate(manifest: Manifest): void {
  const spec = podTemplateOf(manifest as RawObject).spec;
  if (!spec) return;
  for (const field of ['initContainers', 'containers'] as const)
    (spec[field] ?? []).forEach((container, i) => {
      try {
        podRequest({ spec: { containers: [container] } });
      } catch (err) {
        const path = `spec.template.spec.${field}[${i}].resources.requests`;
        throw new Error(
          `${manifest.kind} "${manifest.metadata.name}" is invalid: ${path}: Invalid value: ${JSON.stringify(container.resources?.requests)}: ${(err as Error).message}`,
        );
      }
    });
}

/** A workload as the kubelet places it: its object now, and what that asks for. */
interface CurrentWorkload {
  key: string;
  ref: MemberRef;
  object: RawObject;
  generation: number;
  request: Resources;
  replicas: number;
}

/** Adds to `total` (in place) what `count` pods of `request` ask for; a negative count takes them away. */
function addPods(total: Resources, count: number, request: Resources): void {
  total.pods += count;
  total.cpuMilli += count * request.cpuMilli;
  total.memoryBytes += count * request.memoryBytes;
}

/** A workload's i-th pod: `<name>-<kind>-<i>`, so a Deployment and a StatefulSet of one name do not share pods. */
const podName = (ref: Pick<MemberRef, 'kind' | 'name'>, i: number) => `${ref.name}-${ref.kind.toLowerCase()}-${i}`;

function refOfKey(key: string): MemberRef {
  const parts = key.split('/');
  // apiVersion may hold a '/' (apps/v1): the last three parts are kind, namespace and name.
  const name = parts.pop()!;
  const namespace = parts.pop()!;
  const kind = parts.pop()!;
  return { apiVersion: parts.join('/'), kind, namespace, name };
}
