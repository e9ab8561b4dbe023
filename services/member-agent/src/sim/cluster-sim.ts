import type { ClusterSpec, ResourceBindingSpec, ResourceModel } from '@flotilla/api';
import type { BindingUsage } from '../member-usage.js';
import { bindingKey, targetClusterNames, ReportBook, type Report } from '../reports.js';

export { clusterPatchIsNoop, type Report } from '../reports.js';
import { effectiveResourceModels, MemberLimitsError, parseMemberLimits, ReservedNamespaces } from '@flotilla/api';
import type { StoredObject } from '@flotilla/store';
import {
  fitWorkloads,
  resourceSummary,
  workloadReport,
  type ClusterFit,
  type PlacedWorkload,
  type WorkloadFit,
} from './capacity.js';
import {
  foreignHpasField,
  unreachableWorkloadReport,
  type BindingRef,
  type ClusterCondition,
  type ClusterStatusPatch,
  type StatusLookup,
  type WorkloadReport,
  type WorkloadUsage,
} from '../report-model.js';
import { SimulationSpecError } from './errors.js';
import {
  initialHpaState,
  parseHpaSpec,
  reconcileHpa,
  type HpaOptions,
  type HpaSpec,
  type HpaState,
  type HpaTarget,
} from './hpa.js';
import { demandAt, loadOrigin, type LoadModel } from './load.js';
import { resourcesFrom, type Resources } from '../resources.js';
import { parseSimulation, type SimulationSpec } from './simulation-spec.js';

/** How many bindings (or clusters' bindings) a step handles between turns of the event loop. */
const SLICE = 1000;

export interface SimInput {
  /** Every Cluster; those without `spec.simulation` are someone else's and are ignored. */
  clusters: readonly StoredObject[];
  /** ResourceBindings and ClusterResourceBindings. */
  bindings: readonly StoredObject[];
  /** autoscaling/v2 HorizontalPodAutoscaler templates; one acts in a cluster when a binding propagates it there. */
  hpas?: readonly StoredObject[];
  now: Date;
  statusOf?: StatusLookup;
}

export interface SimulatedClustersOptions {
  /** CloudEvents `source` of the reports. */
  source?: string;
  /** How often each cluster's HPA controller evaluates (`--horizontal-pod-autoscaler-sync-period`, default 15 s). */
  hpaSyncPeriodMs?: number;
  hpa?: HpaOptions;
  /** Namespaces nothing is applied into (RESERVED_NAMESPACES); the defaults, `kube-*` and `flotilla-system`, by default. */
  reservedNamespaces?: ReservedNamespaces;
}

export const DEFAULT_HPA_SYNC_PERIOD_MS = 15_000;

const READY: ClusterCondition = {
  type: 'Ready',
  status: 'True',
  reason: 'ClusterReady',
  message: 'cluster is healthy and ready to accept workloads',
};
const NOT_REACHABLE: ClusterCondition = {
  type: 'Ready',
  status: 'False',
  reason: 'ClusterNotReachable',
  message: 'cluster is not reachable',
};

interface Desired {
  ref: BindingRef;
  replicas: number | undefined;
  request: Resources | undefined;
  error?: string;
  template?: { kind: string; namespace: string; name: string };
}

const refOfObject = (o: StoredObject): BindingRef => ({
  kind: o.kind,
  namespace: o.metadata.namespace || undefined,
  name: o.metadata.name,
});

/**
 * The `sim` driver's state machine: from the current Clusters, bindings and HPAs at `now`, it simulates each
 * simulated cluster (pods fitted into capacity, an HPA loop per propagated HPA against the workloads' load models)
 * and returns the `ClusterStatusReported` / `WorkloadStatusReported` events whose data changed since the last
 * committed report. Pure apart from its own memory: no I/O and no clock.
 */
export class SimulatedClusters {
  private readonly book: ReportBook;
  private readonly hpaSyncPeriodMs: number;
  private readonly hpaOptions: HpaOptions;
  private readonly reserved: ReservedNamespaces;
  /** `${cluster}|${namespace}/${hpa}` → state. */
  private readonly hpaStates = new Map<string, HpaState>();
  /** `${cluster}|${namespace}/${hpa}` → the replicas the workload's binding last asked for there. */
  private readonly scaledTo = new Map<string, number>();
  /** `${cluster}|${binding}` → the cpu sample last reported for a workload. */
  private readonly usageSamples = new Map<string, { atMs: number; usageMilli: number; ready: number }>();
  /** `${cluster}|${workload}|${model}` → when the model was first seen (the origin of step models). */
  private readonly firstSeen = new Map<string, number>();

  constructor(opts: SimulatedClustersOptions = {}) {
    this.book = new ReportBook(opts.source ?? 'flotilla/member-agent');
    this.hpaSyncPeriodMs = opts.hpaSyncPeriodMs ?? DEFAULT_HPA_SYNC_PERIOD_MS;
    this.hpaOptions = opts.hpa ?? {};
    this.reserved = opts.reservedNamespaces ?? ReservedNamespaces.defaults;
  }

  private lastUsage: WorkloadUsage[] = [];
  private lastBindingUsage: BindingUsage[] = [];

  /** Each workload's usage per healthy simulated cluster, as of the last `reconcile`. */
  usage(): readonly WorkloadUsage[] {
    return this.lastUsage;
  }

  /**
   * Each binding's usage per healthy simulated cluster (workloads with a load model), as of the last `reconcile`,
   * sampled once per HPA sync period as metrics-server would: what the hpa-assigner reads.
   */
  bindingUsage(): readonly BindingUsage[] {
    return this.lastBindingUsage;
  }

  /** The replicas the HPA `namespace/name` holds in `cluster`, if it acts there. */
  hpaReplicas(cluster: string, namespace: string, name: string): number | undefined {
    return this.hpaStates.get(`${cluster}|${namespace}/${name}`)?.replicas;
  }

  /** One simulation step, at once: what changed since the last, as reports to publish. */
  reconcile(input: SimInput): Report[] {
    const steps = this.steps(input);
    for (;;) {
      const next = steps.next();
      if (next.done) return next.value;
    }
  }

  /**
   * The same step, giving the event loop a turn after every SLICE bindings or clusters: at 10,000 bindings one
   * step in one turn held the agent's loop past a second (its lease renewals and NATS pings wait behind it).
   */
  async reconcileInSlices(input: SimInput): Promise<Report[]> {
    const steps = this.steps(input);
    for (;;) {
      const next = steps.next();
      if (next.done) return next.value;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /** `reconcile`, yielding between slices of its work. */
  private *steps(input: SimInput): Generator<void, Report[]> {
    const nowMs = input.now.getTime();
    const statusOf: StatusLookup = input.statusOf ?? (() => undefined);
    const simulated = new Map<
      string,
      { spec?: SimulationSpec; error?: SimulationSpecError; models?: readonly ResourceModel[] }
    >();
    for (const c of input.clusters) {
      const raw = (c.spec as { simulation?: unknown } | undefined)?.simulation;
      if (raw === undefined) continue;
      try {
        simulated.set(c.metadata.name, {
          spec: parseSimulation(raw),
          models: effectiveResourceModels(c.spec as Pick<ClusterSpec, 'resourceModels'> | undefined),
        });
      } catch (err) {
        if (!(err instanceof SimulationSpecError)) throw err;
        simulated.set(c.metadata.name, { error: err });
      }
    }
    this.forgetGone(simulated, input.bindings);

    const desired = new Map<string, Map<string, Desired>>(); // cluster → binding key → desired
    const hpaPlacements = new Map<
      string,
      Array<{ key: string; namespace: string; target: HpaTarget; spec: HpaSpec }>
    >();
    const hpaByRef = new Map((input.hpas ?? []).map((h) => [`${h.metadata.namespace ?? ''}/${h.metadata.name}`, h]));
    let done = 0;
    for (const b of [...input.bindings].sort((x, y) =>
      bindingKey(refOfObject(x)).localeCompare(bindingKey(refOfObject(y))),
    )) {
      if (++done % SLICE === 0) yield;
      const spec = (b.spec ?? {}) as BindingSpec;
      const ref = refOfObject(b);
      const targets = Array.isArray(spec.clusters) ? spec.clusters : [];
      let request: Resources | undefined;
      let error: string | undefined;
      try {
        request = resourcesFrom(spec.replicaRequirements?.resourceRequest, 'spec.replicaRequirements.resourceRequest');
      } catch (err) {
        if (!(err instanceof SimulationSpecError)) throw err;
        error = err.message;
      }
      const res = spec.resource;
      const template =
        res?.kind && res.name
          ? { kind: res.kind, namespace: res.namespace ?? ref.namespace ?? '', name: res.name }
          : undefined;
      // A template in a reserved namespace is not applied (nor its HPA run): the binding's status says why.
      const refusal = this.reserved.refusal(template?.namespace);
      if (refusal) error = `${refusal}; not applied`;
      const hpa =
        !refusal && template?.kind === 'HorizontalPodAutoscaler'
          ? hpaByRef.get(`${template.namespace}/${template.name}`)
          : undefined;
      for (const t of targets) {
        if (typeof t?.name !== 'string' || !simulated.has(t.name)) continue;
        const replicas = t.replicas ?? spec.replicas;
        const perCluster = desired.get(t.name) ?? new Map<string, Desired>();
        perCluster.set(bindingKey(ref), {
          ref,
          replicas,
          request,
          ...(error ? { error } : {}),
          ...(template ? { template } : {}),
        });
        desired.set(t.name, perCluster);
        if (hpa) {
          try {
            const parsed = parseHpaSpec(hpa.spec);
            // A FederatedHPA's member HPA: this cluster's min/max come from the binding's per-cluster override.
            const limits = parseMemberLimits(b.metadata.annotations)?.get(t.name);
            if (limits) parsed.spec = { ...parsed.spec, ...limits };
            const list = hpaPlacements.get(t.name) ?? [];
            list.push({
              key: `${t.name}|${template!.namespace}/${template!.name}`,
              namespace: template!.namespace,
              ...parsed,
            });
            hpaPlacements.set(t.name, list);
          } catch (err) {
            if (!(err instanceof SimulationSpecError || err instanceof MemberLimitsError)) throw err;
            // An HPA the simulator cannot run acts like one whose metric is unavailable: it scales nothing.
          }
        }
      }
    }

    const reports: Report[] = [];
    const usage: WorkloadUsage[] = [];
    const bindingUsage: BindingUsage[] = [];
    const workloadReports = new Map<string, Map<string, WorkloadReport>>(); // binding key → cluster → report
    const activeHpas = new Set<string>();
    let weight = 0;
    for (const [cluster, sim] of [...simulated].sort(([a], [b]) => a.localeCompare(b))) {
      const wanted = desired.get(cluster) ?? new Map<string, Desired>();
      weight += wanted.size;
      if (weight >= SLICE) {
        weight = 0;
        yield;
      }
      let patch: ClusterStatusPatch;
      const put = (d: Desired, r: WorkloadReport) => {
        const m = workloadReports.get(bindingKey(d.ref)) ?? new Map<string, WorkloadReport>();
        m.set(cluster, r);
        workloadReports.set(bindingKey(d.ref), m);
      };
      if (!sim.spec) {
        patch = {
          conditions: [{ type: 'Ready', status: 'False', reason: 'InvalidSimulation', message: sim.error!.message }],
        };
        for (const d of wanted.values())
          put(d, { applied: false, health: 'Unknown', appliedMessage: sim.error!.message });
      } else if (sim.spec.failed) {
        patch = { conditions: [NOT_REACHABLE] };
        for (const d of wanted.values()) put(d, unreachableWorkloadReport(cluster));
        // The cluster's own HPA controller is out of reach too: its state stays frozen until recovery.
        for (const h of hpaPlacements.get(cluster) ?? []) activeHpas.add(h.key);
      } else {
        const spec = sim.spec;
        const hpas = hpaPlacements.get(cluster) ?? [];
        const hpaFor = (d: Desired) =>
          d.template
            ? hpas.find(
                (h) =>
                  h.namespace === d.template!.namespace &&
                  h.target.kind === d.template!.kind &&
                  h.target.name === d.template!.name,
              )
            : undefined;
        const place = (): ClusterFit =>
          fitWorkloads(
            spec.allocatable,
            [...wanted.values()]
              .filter((d) => !d.error && d.replicas !== undefined)
              .map((d): PlacedWorkload => {
                const h = hpaFor(d);
                return {
                  binding: d.ref,
                  replicas: h ? this.hpaStates.get(h.key)!.replicas : d.replicas!,
                  request: d.request!,
                };
              }),
          );
        for (const d of wanted.values()) {
          const h = hpaFor(d);
          if (!h) continue;
          const state = this.hpaStates.get(h.key);
          if (!state) this.hpaStates.set(h.key, initialHpaState(d.replicas ?? 0, nowMs));
          else if (d.replicas !== undefined && this.scaledTo.has(h.key) && this.scaledTo.get(h.key) !== d.replicas) {
            // The binding scaled the member workload (Karmada writing spec.replicas, as `kubectl scale` would): the
            // HPA reads the scale's new replicas on its next pass. A FederatedHPA scaling a cluster to 0 relies on it.
            this.hpaStates.set(h.key, { ...state, replicas: d.replicas });
          }
          if (d.replicas !== undefined) this.scaledTo.set(h.key, d.replicas);
        }
        for (const h of hpas) activeHpas.add(h.key);
        let fit = place();
        if (this.runHpas(cluster, spec, wanted, hpaFor, fit, nowMs)) fit = place();
        patch = {
          kubernetesVersion: spec.kubernetesVersion,
          conditions: [READY],
          resourceSummary: resourceSummary(spec.allocatable, fit, sim.models!),
          foreignHorizontalPodAutoscalers: foreignHpasField(spec.foreignHpas),
        };
        const fitByKey = new Map(fit.workloads.map((w) => [bindingKey(w.binding), w]));
        usage.push(...this.usageIn(cluster, spec, wanted, fitByKey, nowMs));
        for (const d of wanted.values()) {
          if (d.error) put(d, { applied: false, health: 'Unknown', appliedMessage: d.error });
          else if (d.replicas === undefined) put(d, { applied: true, health: 'Healthy' });
          else {
            const w = fitByKey.get(bindingKey(d.ref))!;
            put(d, this.withMetrics(workloadReport(w), cluster, spec, d, w, hpaFor(d), nowMs, bindingUsage));
          }
        }
      }
      const r = this.book.clusterReport(cluster, patch, input.now, statusOf);
      if (r) reports.push(r);
    }
    for (const key of [...this.hpaStates.keys()]) {
      if (activeHpas.has(key)) continue;
      this.hpaStates.delete(key);
      this.scaledTo.delete(key);
    }
    this.lastUsage = usage;
    this.lastBindingUsage = bindingUsage;

    done = 0;
    for (const b of [...input.bindings].sort((x, y) =>
      bindingKey(refOfObject(x)).localeCompare(bindingKey(refOfObject(y))),
    )) {
      if (++done % SLICE === 0) yield;
      reports.push(
        ...this.book.workloadReports({
          ref: refOfObject(b),
          current: workloadReports.get(bindingKey(refOfObject(b))) ?? new Map(),
          owned: simulated,
          targetClusters: targetClusterNames(b),
          now: input.now,
          statusOf,
        }),
      );
    }
    return reports;
  }

  /** Runs each due HPA of a healthy cluster against its workload's load; true when any changed its replicas. */
  private runHpas(
    cluster: string,
    spec: SimulationSpec,
    wanted: Map<string, Desired>,
    hpaFor: (d: Desired) => { key: string; spec: HpaSpec } | undefined,
    fit: ClusterFit,
    nowMs: number,
  ): boolean {
    let changed = false;
    for (const d of wanted.values()) {
      const h = hpaFor(d);
      if (!h || !d.template || d.error) continue;
      const state = this.hpaStates.get(h.key)!;
      if (state.lastSyncMs !== undefined && nowMs - state.lastSyncMs < this.hpaSyncPeriodMs) continue;
      const tpl = d.template;
      const load = spec.loads.find(
        (l) => l.workload.kind === tpl.kind && l.workload.namespace === tpl.namespace && l.workload.name === tpl.name,
      );
      const w = fit.workloads.find((x) => bindingKey(x.binding) === bindingKey(d.ref));
      // No load model means no metric: like Kubernetes on FailedGetResourceMetric, the HPA only enforces min/max.
      const sample =
        load && w
          ? {
              readyPods: w.running,
              pendingPods: w.pending,
              usageMilli: Math.round(this.demand(cluster, tpl, load.model, nowMs) * 1000),
              requestMilli: d.request!.cpuMilli,
            }
          : { readyPods: 0, pendingPods: 0, usageMilli: 0, requestMilli: 0 };
      const next = reconcileHpa(h.spec, state, sample, nowMs, this.hpaOptions);
      this.hpaStates.set(h.key, next);
      if (next.replicas !== state.replicas) changed = true;
    }
    return changed;
  }

  private usageIn(
    cluster: string,
    spec: SimulationSpec,
    wanted: Map<string, Desired>,
    fitByKey: Map<string, ClusterFit['workloads'][number]>,
    nowMs: number,
  ): WorkloadUsage[] {
    const out: WorkloadUsage[] = [];
    for (const d of wanted.values()) {
      const tpl = d.template;
      if (!tpl || d.error) continue;
      const load = spec.loads.find(
        (l) => l.workload.kind === tpl.kind && l.workload.namespace === tpl.namespace && l.workload.name === tpl.name,
      );
      const w = fitByKey.get(bindingKey(d.ref));
      if (!load || !w) continue;
      const cores = w.running > 0 ? this.demand(cluster, tpl, load.model, nowMs) : 0;
      out.push({ cluster, namespace: tpl.namespace, kind: tpl.kind, workload: tpl.name, cores });
    }
    return out;
  }

  /**
   * What the control plane needs to autoscale across clusters: the ready pods' cpu usage (sampled once per HPA sync
   * period, as metrics-server is scraped, so a ramp does not report every tick) into `usage`, not the status, and in
   * the status one pod's request and the member HPA's own status when one acts on the workload.
   */
  private withMetrics(
    report: WorkloadReport,
    cluster: string,
    spec: SimulationSpec,
    d: Desired,
    w: WorkloadFit,
    hpa: { key: string; spec: HpaSpec } | undefined,
    nowMs: number,
    usage: BindingUsage[],
  ): WorkloadReport {
    if (!report.status || !d.template) return report;
    const tpl = d.template;
    const load = spec.loads.find(
      (l) => l.workload.kind === tpl.kind && l.workload.namespace === tpl.namespace && l.workload.name === tpl.name,
    );
    const status = { ...report.status };
    if (load) {
      const key = `${cluster}|${bindingKey(d.ref)}`;
      let sample = this.usageSamples.get(key);
      if (!sample || nowMs - sample.atMs >= this.hpaSyncPeriodMs || (sample.ready === 0) !== (w.running === 0)) {
        const usage = w.running > 0 ? Math.round(this.demand(cluster, tpl, load.model, nowMs) * 1000) : 0;
        sample = { atMs: nowMs, usageMilli: usage, ready: w.running };
        this.usageSamples.set(key, sample);
      }
      usage.push({ ref: d.ref, cluster, cpuUsageMilli: sample.usageMilli });
      status.cpuRequestMilli = d.request!.cpuMilli;
    }
    const state = hpa ? this.hpaStates.get(hpa.key) : undefined;
    if (hpa && state) {
      status.hpa = {
        minReplicas: hpa.spec.minReplicas,
        maxReplicas: hpa.spec.maxReplicas,
        currentReplicas: w.replicas,
        desiredReplicas: state.replicas,
        ...(state.utilization !== undefined ? { currentCPUUtilizationPercentage: state.utilization } : {}),
      };
    }
    return { ...report, status };
  }

  private demand(
    cluster: string,
    tpl: { kind: string; namespace: string; name: string },
    model: LoadModel,
    nowMs: number,
  ): number {
    const key = `${cluster}|${tpl.kind}/${tpl.namespace}/${tpl.name}|${JSON.stringify(model)}`;
    let seen = this.firstSeen.get(key);
    if (seen === undefined) {
      seen = nowMs;
      this.firstSeen.set(key, seen);
    }
    return demandAt(model, nowMs - loadOrigin(model, seen));
  }

  /** Drops the memory of clusters no longer simulated and of bindings that are gone (their status went with them). */
  private forgetGone(simulated: Map<string, unknown>, bindings: readonly StoredObject[]): void {
    const present = new Set(bindings.map((b) => bindingKey(refOfObject(b))));
    this.book.forgetGone(simulated, present);
    for (const key of this.firstSeen.keys())
      if (!simulated.has(key.slice(0, key.indexOf('|')))) this.firstSeen.delete(key);
    for (const key of this.usageSamples.keys()) {
      const [cluster, binding] = [key.slice(0, key.indexOf('|')), key.slice(key.indexOf('|') + 1)];
      if (!simulated.has(cluster) || !present.has(binding)) this.usageSamples.delete(key);
    }
  }
}

/** What the simulation reads of a stored binding's spec, which it does not trust to be complete. */
type BindingSpec = Partial<ResourceBindingSpec>;
