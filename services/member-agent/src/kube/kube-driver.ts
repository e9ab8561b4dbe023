import {
  type ClusterSpec,
  type Condition,
  effectiveResourceModels,
  type ForeignHorizontalPodAutoscaler,
  type ObjectMeta,
  type ResourceModel,
} from '@flotilla/api';
import { publishEvent, type Bus } from '@flotilla/bus';
import type { Clock } from '@flotilla/runtime';
import { Informer, type InformerEvent, type StatusRecord, type StoredObject } from '@flotilla/store';
import { type KubeInformer, type RawObject, statusOf } from '@flotilla/kube-client';
import { Registry } from 'prom-client';
import { withoutPlacement, type AgentLogger } from '../agent.js';
import { ClusterLeases } from '../cluster-lease.js';
import { ClusterMetrics } from '../cluster-metrics.js';
import { MemberUsageWriter, type BindingUsage } from '../member-usage.js';
import { bindingKey, readyReasonIsExpiry, ReportBook, targetClusterNames, type Report } from '../reports.js';
import {
  foreignHpasField,
  unreachableWorkloadReport,
  type BindingRef,
  type ClusterStatusPatch,
  type StatusLookup,
  type WorkloadReport,
  type WorkloadUsage,
} from '../report-model.js';
import type { WorkloadUsageGauge } from '../usage-metrics.js';
import type { UsageRecorder } from '../usage-recorder.js';
import {
  kubeClusterStatus,
  nodeView,
  podRequest,
  podView,
  probed,
  readiness,
  type KubeNode,
  type Readiness,
  type KubePod,
  type NodeView,
  type ProbeHistory,
} from './cluster-status.js';
import type { MemberClusterApi } from './kube-api.js';
import { kubeDriverMetrics } from './kube-metrics.js';
import {
  desiredMemberObjects,
  formatBindingRef,
  memberKey,
  MemberMarks,
  planApply,
  type ApplyAction,
  type DesiredObject,
  type Manifest,
} from './member-objects.js';
import { mapLimited, TokenBucket } from './rate-limit.js';
import {
  notAppliedReport,
  plainObjectReport,
  selectorMatches,
  readyPodsCpuMilli,
  workloadReportFrom,
  type MemberObjectView,
  type PodView,
} from './workload-status.js';

/** A kind the agent applies, by apiVersion and kind. */
export interface KindRef {
  apiVersion: string;
  kind: string;
}

/**
 * Kinds watched from the start, whether or not a binding asks for one now: what Flotilla created of them is found
 * (and removed once no binding assigns it) even after a restart. Other kinds (Secrets, ClusterRoles, CRDs) are
 * watched once a binding needs them; deploy/member/ grants these kinds only, so that reading Secrets stays opt-in.
 */
export const DEFAULT_MANAGED_KINDS: readonly KindRef[] = [
  { apiVersion: 'apps/v1', kind: 'Deployment' },
  { apiVersion: 'apps/v1', kind: 'StatefulSet' },
  { apiVersion: 'v1', kind: 'ConfigMap' },
  { apiVersion: 'v1', kind: 'Service' },
  { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' },
];

export interface KubeDriverOptions {
  /** The Cluster object (cluster.karmada.io/v1alpha1) this agent speaks for. */
  clusterName: string;
  api: MemberClusterApi;
  bus: Bus;
  clock: Clock;
  logger: AgentLogger;
  /** How often `/readyz` is probed while the cluster answers (KUBE_POLL_MS; Karmada's status update frequency). */
  pollMs: number;
  /** How often the cluster's lease is renewed at most, after a probe (CLUSTER_LEASE_RENEW_MS, default 10 s). */
  leaseRenewMs?: number;
  /** How long probes must fail before the cluster is reported not Ready (KUBE_FAILURE_THRESHOLD_MS). */
  failureThresholdMs: number;
  /** How long probes must succeed before a cluster reported not Ready is Ready again (KUBE_SUCCESS_THRESHOLD_MS). */
  successThresholdMs: number;
  /** A full reconcile at least this often, besides the one every change triggers (default 30 s). */
  resyncMs?: number;
  /** How often pod CPU usage is read from metrics.k8s.io (default 15 s, the HPA controller's sync period). */
  metricsPeriodMs?: number;
  /** client-go's write rate limit (KUBE_API_QPS / KUBE_API_BURST) and how many writes are in flight at once. */
  writes?: { qps: number; burst: number; concurrency: number };
  managedKinds?: readonly KindRef[];
  /** How long each watch asks the API server to keep it open before resuming (KUBE_WATCH_TIMEOUT_SECONDS). */
  watchTimeoutSeconds?: number;
  /** The service's registry: the cluster's readiness and capacity are reported there. */
  registry?: Registry;
  /** Exposes each workload's CPU usage in this cluster (as the sim driver does). */
  usageGauge?: WorkloadUsageGauge;
  /** Records each workload's usage into the metric history (EffectiveHPA's embedded source). */
  usageRecorder?: UsageRecorder;
  random?: () => number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** How long a new informer's first list may take before reconciling goes on without it (its objects wait). */
const FIRST_SYNC_WAIT_MS = 10_000;
/** Reports published at once, awaiting their acks (see `publish`). */
const REPORTS_IN_FLIGHT = 64;
const resourceModelsOf = (cluster: StoredObject) => (cluster.spec as ClusterSpec | undefined)?.resourceModels;
const kindKey = (k: KindRef) => `${k.apiVersion}/${k.kind}`;

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

/**
 * The `kube` driver: one agent per real member cluster. It probes the API server (`/readyz`, version), keeps
 * informers on nodes, pods, namespaces and the kinds it applies, applies what the bindings assign to its cluster by
 * server-side apply, removes what is no longer assigned, and reports the Cluster's status and each binding's
 * workload the way the sim driver does (through the same ReportBook). Reconcile is level-triggered: every change on
 * either side, and a periodic resync, run the same `reconcile`.
 */
export class KubeDriver {
  private readonly book = new ReportBook('flotilla/member-agent/kube');
  private readonly metrics: ClusterMetrics;
  private readonly counters: ReturnType<typeof kubeDriverMetrics>;
  private readonly registry: Registry;
  private readonly bindings = new Map<string, Informer<StoredObject>>();
  private readonly statuses = new Map<string, Informer<StatusRecord<Record<string, unknown>>>>();
  private readonly templates = new Map<string, Informer<StoredObject>>();
  /** The Clusters' resource models (`spec.resourceModels`): this cluster's grade its nodes in the status. */
  private readonly clusterModels: Informer<ResourceModel[] | undefined>;
  private nodes: KubeInformer<NodeView> | undefined;
  private pods: KubeInformer<PodView> | undefined;
  private namespaces: KubeInformer<string> | undefined;
  private readonly managed = new Map<string, KubeInformer<MemberObjectView>>();
  /** Kinds a binding asks for that the member cluster does not serve (or refused to list), with why. */
  private readonly unservedKinds = new Map<string, string>();
  private history: ProbeHistory = {};
  /**
   * Readiness as of the last probe. A change is what triggers a reconcile; it must be compared with the last state
   * seen, not recomputed from the old history at the new time (that hides the pending -> not Ready step, and NotReady
   * then waited for the next resync).
   */
  private readyState: Readiness['ready'] = true;
  private version: string | undefined;
  private lastPatch: ClusterStatusPatch | undefined;
  /** The last failed write per member object, reported in the binding's aggregated status until it succeeds. */
  private readonly writeErrors = new Map<string, string>();
  private readonly bucket: TokenBucket;
  private readonly writes: { qps: number; burst: number; concurrency: number };
  private podCpu = new Map<string, Map<string, number> | undefined>();
  private lastMetricsMs: number | undefined;
  /** The last metrics.k8s.io error per namespace: logged when it changes, not every period. */
  private readonly metricsErrors = new Map<string, string>();
  private stopped = false;
  private probeTimer: NodeJS.Timeout | undefined;
  private resyncTimer: NodeJS.Timeout | undefined;
  private kickTimer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private probing: Promise<void> | undefined;
  private dirty = false;
  private readonly leases: ClusterLeases;
  private readonly usageWriter: MemberUsageWriter;
  /** Whether a reconcile got its reports out: the lease is renewed only from then on (not by an agent stuck before). */
  private posted = false;
  /** The last lease renewal error, logged when it changes rather than every probe. */
  private leaseError: string | undefined;
  /** How many writes the driver sent (applies and deletes), for tests and the benchmark. */
  writesSent = 0;

  constructor(private readonly opts: KubeDriverOptions) {
    const registry = opts.registry ?? new Registry();
    this.registry = registry;
    this.metrics = ClusterMetrics.of(registry);
    this.counters = kubeDriverMetrics(registry);
    for (const [name, v] of [
      ['pollMs', opts.pollMs],
      ['failureThresholdMs', opts.failureThresholdMs],
      ['successThresholdMs', opts.successThresholdMs],
    ] as const)
      if (!Number.isInteger(v) || v < 0) throw new RangeError(`${name}: expected an integer >= 0, got ${v}`);
    this.writes = opts.writes ?? { qps: 50, burst: 100, concurrency: 8 };
    this.bucket = new TokenBucket(this.writes.qps, this.writes.burst);
    this.leases = new ClusterLeases({
      bus: opts.bus,
      clock: opts.clock,
      driver: 'kube',
      renewIntervalMs: opts.leaseRenewMs,
    });
    this.clusterModels = new Informer({
      bus: opts.bus,
      bucket: 'objects',
      kind: 'Cluster',
      onEvent: () => this.kick(),
      projection: { name: 'resourceModels', project: resourceModelsOf },
    });
    this.usageWriter = new MemberUsageWriter({ bus: opts.bus, clock: opts.clock });
  }

  private get cluster(): string {
    return this.opts.clusterName;
  }

  /** Fills the caches, probes and reconciles once, then follows changes until `stop`. */
  async start(): Promise<void> {
    this.metrics.report(() => (this.lastPatch ? [[this.cluster, this.lastPatch]] : []));
    for (const kind of ['ResourceBinding', 'ClusterResourceBinding'])
      this.bindings.set(
        kind,
        new Informer<StoredObject>({
          bus: this.opts.bus,
          bucket: 'objects',
          kind,
          onEvent: () => this.kick(),
          projection: { name: 'withoutPlacement', project: withoutPlacement },
        }),
      );
    for (const kind of ['Cluster', 'ResourceBinding', 'ClusterResourceBinding'])
      this.statuses.set(
        kind,
        new Informer<StatusRecord<Record<string, unknown>>>({
          bus: this.opts.bus,
          bucket: 'status',
          kind,
          // The scheduler set this cluster Ready=Unknown (this agent was cut off): report again at once.
          ...(kind === 'Cluster' && {
            onEvent: (e: InformerEvent<StatusRecord<Record<string, unknown>>>) => {
              if (e.type === 'upsert' && e.ref.name === this.cluster && readyReasonIsExpiry(e.value.status))
                this.kick();
            },
          }),
        }),
      );
    await Promise.all([...this.bindings.values(), ...this.statuses.values(), this.clusterModels].map((i) => i.start()));
    await this.probe();
    await this.reconcileNow();
    this.scheduleProbe(this.opts.pollMs);
    this.scheduleResync();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.metrics.forget();
    for (const t of [this.probeTimer, this.resyncTimer, this.kickTimer]) if (t) clearTimeout(t);
    await this.probing?.catch(() => undefined);
    await this.running?.catch(() => undefined);
    for (const i of [...this.bindings.values(), ...this.statuses.values(), ...this.templates.values()]) i.stop();
    this.clusterModels.stop();
    await Promise.all([this.nodes, this.pods, this.namespaces, ...this.managed.values()].map((i) => i?.stop()));
    this.opts.usageGauge?.update([]);
  }

  /** Runs one reconcile now (after any running one) and waits for it. */
  async reconcileNow(): Promise<void> {
    while (this.running) await this.running.catch(() => undefined);
    this.running = this.reconcile().finally(() => {
      this.running = undefined;
    });
    await this.running;
  }

  /** Something changed: reconcile soon (changes arriving together are folded into one pass). */
  private kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.dirty = true;
      return;
    }
    if (this.kickTimer) return;
    this.kickTimer = setTimeout(() => {
      this.kickTimer = undefined;
      this.reconcileNow()
        .catch((err: unknown) => this.opts.logger.error({ err, cluster: this.cluster }, 'reconcile failed; retrying'))
        .finally(() => {
          if (this.dirty) {
            this.dirty = false;
            this.kick();
          }
        });
    }, 20);
  }

  private scheduleResync(): void {
    if (this.stopped) return;
    this.resyncTimer = setTimeout(() => {
      this.kick();
      this.scheduleResync();
    }, this.opts.resyncMs ?? 30_000);
  }

  private scheduleProbe(ms: number): void {
    if (this.stopped) return;
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.probeTimer = setTimeout(() => {
      this.probeTimer = undefined;
      void this.probe();
    }, ms);
  }

  /** Probes `/readyz` (and the version once per recovery); a change of readiness triggers a reconcile. */
  private probe(): Promise<void> {
    if (this.probing) return this.probing;
    this.probing = (async () => {
      let result: 'ok' | 'unhealthy' | 'unreachable';
      try {
        result = (await this.opts.api.readyz()) ? 'ok' : 'unhealthy';
        if (result === 'ok' && (this.version === undefined || this.history.failingSinceMs !== undefined))
          this.version = await this.opts.api.version();
      } catch (err) {
        this.opts.logger.warn({ err: statusOf(err).message, cluster: this.cluster }, 'member cluster did not answer');
        result = 'unreachable';
      }
      const before = this.readyState;
      const answersAgain = result === 'ok' && this.history.failingSinceMs !== undefined;
      this.history = probed(this.history, result, this.opts.clock.now().getTime(), this.opts);
      const now = readiness(this.history, this.opts.clock.now().getTime(), this.opts);
      this.readyState = now.ready;
      // Informers waiting out their backoff list at once, so the caches are fresh when the cluster is Ready again.
      if (answersAgain) this.wakeInformers();
      if (now.ready !== before) this.kick();
      // While a threshold runs, look again right when it ends, so NotReady (or Ready again) comes on time.
      const recheckInMs = now.ready === true ? undefined : now.recheckInMs;
      this.scheduleProbe(recheckInMs === undefined ? this.opts.pollMs : Math.min(this.opts.pollMs, recheckInMs));
      if (this.posted && !this.stopped) await this.renewLease();
    })().finally(() => {
      this.probing = undefined;
    });
    return this.probing;
  }

  /** The heartbeat: this agent is alive and posting the cluster's status (whether the cluster answers or not). */
  private async renewLease(): Promise<void> {
    try {
      await this.leases.renew([this.cluster]);
      if (this.leaseError !== undefined)
        this.opts.logger.info({ cluster: this.cluster }, 'cluster lease renewed again');
      this.leaseError = undefined;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (message !== this.leaseError)
        this.opts.logger.warn({ cluster: this.cluster, err: message }, 'cluster lease not renewed; retrying');
      this.leaseError = message;
    }
  }

  /** What every member informer is given: changes kick a reconcile, errors probe, expiries are logged and counted. */
  private informerOptions(what: string) {
    return {
      name: what,
      registry: this.registry,
      onChange: () => this.kick(),
      onError: (err: Error) => this.onInformerError(what, err),
      onExpired: (resourceVersion: string) => {
        this.opts.logger.info(
          { cluster: this.cluster, informer: what, resourceVersion },
          'member watch expired (410 Gone); listing again',
        );
      },
      ...(this.opts.watchTimeoutSeconds !== undefined ? { watchTimeoutSeconds: this.opts.watchTimeoutSeconds } : {}),
      ...(this.opts.random ? { random: this.opts.random } : {}),
    };
  }

  /** An informer that failed (a broken watch) may mean the API server stopped: probe now rather than later. */
  private onInformerError(what: string, err: Error): void {
    this.opts.logger.warn({ err: err.message, cluster: this.cluster, informer: what }, 'member informer failed');
    if (!this.probing) void this.probe();
  }

  /**
   * Starts the informers on nodes, pods, namespaces and the default kinds, once the API server answers discovery
   * (an agent that starts while its cluster is down reports it not Ready, and starts them when it is back).
   */
  private async ensureMemberInformers(): Promise<boolean> {
    if (this.nodes && this.pods && this.namespaces) return true;
    const api = this.opts.api;
    const common = (what: string) => this.informerOptions(what);
    try {
      this.nodes ??= await api.informer('v1', 'Node', {
        project: (raw) => nodeView(raw as KubeNode),
        ...common('nodes'),
      });
      this.pods ??= await api.informer('v1', 'Pod', { project: (raw) => podView(raw as KubePod), ...common('pods') });
      this.namespaces ??= await api.informer('v1', 'Namespace', {
        project: (raw) => raw.metadata?.name,
        ...common('namespaces'),
      });
    } catch (err) {
      this.opts.logger.warn({ err: (err as Error).message, cluster: this.cluster }, 'member API discovery failed');
      return false;
    }
    for (const i of [this.nodes, this.pods, this.namespaces]) void i.start();
    await Promise.all((this.opts.managedKinds ?? DEFAULT_MANAGED_KINDS).map((k) => this.watchKind(k)));
    await Promise.all([this.nodes, this.pods, this.namespaces].map((i) => i.waitForSync(FIRST_SYNC_WAIT_MS)));
    return true;
  }

  /** The member API server answers again: informers waiting out their backoff list at once. */
  private wakeInformers(): void {
    for (const i of [this.nodes, this.pods, this.namespaces, ...this.managed.values()]) i?.retryNow();
  }

  /** Starts watching a kind the agent applies; resolves once its first list is in (or it failed). */
  private async watchKind(k: KindRef): Promise<KubeInformer<MemberObjectView> | undefined> {
    const key = kindKey(k);
    const have = this.managed.get(key);
    // Waited for once, when it starts: a kind that cannot be listed must not hold up every later reconcile.
    if (have) return have;
    let informer: KubeInformer<MemberObjectView>;
    try {
      informer = await this.opts.api.informer<MemberObjectView>(k.apiVersion, k.kind, {
        project: (raw) => memberObjectView(k, raw),
        ...this.informerOptions(key),
      });
    } catch (err) {
      this.unservedKinds.set(key, (err as Error).message);
      return undefined;
    }
    this.unservedKinds.delete(key);
    this.managed.set(key, informer);
    void informer.start();
    await informer.waitForSync(FIRST_SYNC_WAIT_MS);
    return informer;
  }

  private templateLookup = (ref: { kind: string; namespace: string; name: string }) =>
    this.templates.get(ref.kind)?.get(ref);

  /** Starts following the templates of every kind a binding names (the objects bucket holds them by kind). */
  private async followTemplates(bindings: readonly StoredObject[]): Promise<void> {
    const kinds = new Set<string>();
    for (const b of bindings) {
      const kind = (b.spec as { resource?: { kind?: string } } | undefined)?.resource?.kind;
      if (kind && !this.templates.has(kind)) kinds.add(kind);
    }
    await Promise.all(
      [...kinds].map(async (kind) => {
        const i = new Informer<StoredObject>({
          bus: this.opts.bus,
          bucket: 'objects',
          kind,
          onEvent: () => this.kick(),
        });
        this.templates.set(kind, i);
        await i.start();
      }),
    );
  }

  private statusOf: StatusLookup = (kind, namespace, name) =>
    this.statuses.get(kind)?.get({ kind, namespace, name })?.status;

  private async reconcile(): Promise<void> {
    if (this.stopped) return;
    const bindings = [...this.bindings.values()].flatMap((i) => i.values());
    await this.followTemplates(bindings);
    const desired = desiredMemberObjects({ cluster: this.cluster, bindings, template: this.templateLookup });
    const nowMs = this.opts.clock.now().getTime();
    const ready = readiness(this.history, nowMs, this.opts);
    const current = new Map<string, WorkloadReport>();
    const usage: WorkloadUsage[] = [];
    /** binding (formatBindingRef) → its ready pods' CPU here, in millicores. */
    const cpuByBinding = new Map<string, number>();
    let patch: ClusterStatusPatch | undefined;
    if (ready.ready === false) {
      patch = ready.patch;
      for (const [key] of desired.assigned) current.set(key, unreachableWorkloadReport(this.cluster));
    } else if (ready.ready === 'pending') {
      // Within the failure threshold nothing is written and nothing new is reported: the last report stands.
      return;
    } else {
      if (!(await this.ensureMemberInformers())) return;
      patch = await this.applyAndObserve(desired, current, { usage, cpuByBinding }, nowMs);
    }
    if (this.stopped) return;
    const reports: Report[] = [];
    if (patch) {
      const r = this.book.clusterReport(this.cluster, patch, this.opts.clock.now(), this.statusOf);
      if (r) reports.push(r);
    }
    const owned = { has: (c: string) => c === this.cluster };
    const present = new Set<string>();
    const bindingUsage: BindingUsage[] = [];
    for (const b of [...bindings].sort((x, y) =>
      formatBindingRef(refOf(x)).localeCompare(formatBindingRef(refOf(y))),
    )) {
      const ref = refOf(b);
      present.add(bindingKey(ref));
      const cpu = cpuByBinding.get(formatBindingRef(ref));
      if (cpu !== undefined) bindingUsage.push({ ref, cluster: this.cluster, cpuUsageMilli: cpu });
      const report = current.get(formatBindingRef(ref));
      reports.push(
        ...this.book.workloadReports({
          ref,
          current: report ? new Map([[this.cluster, report]]) : new Map(),
          owned,
          targetClusters: targetClusterNames(b),
          now: this.opts.clock.now(),
          statusOf: this.statusOf,
        }),
      );
    }
    this.book.forgetGone(owned, present);
    await this.publish(reports);
    if (this.stopped) return;
    this.posted = true;
    if (patch?.resourceSummary || ready.ready === false) this.lastPatch = patch;
    // Not ready: what was written is deleted, as a lost cluster's usage is not known.
    await this.usageWriter.publish(bindingUsage);
    if (ready.ready === true) {
      this.opts.usageGauge?.update(usage);
      await this.opts.usageRecorder?.maybeRecord(usage, this.opts.clock.now());
    }
  }

  /**
   * Publishes the reports with up to REPORTS_IN_FLIGHT awaiting their acks: one at a time, a thousand workloads'
   * reports cost a thousand round trips to JetStream. Each report is about a different object (one chain of ids each),
   * so their order in the stream does not matter; each is committed once acknowledged, and the first failure is thrown
   * after the others settled (what failed is reported again by the next reconcile).
   */
  private async publish(reports: readonly Report[]): Promise<void> {
    const outcomes = await mapLimited(reports, REPORTS_IN_FLIGHT, async (r) => {
      if (this.stopped) return;
      await publishEvent(this.opts.bus, r.event);
      r.commit();
    });
    const failed = outcomes.find((o) => o.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** Writes what the plan says, then reads back every assigned binding's object into a report. */
  private async applyAndObserve(
    desired: ReturnType<typeof desiredMemberObjects>,
    current: Map<string, WorkloadReport>,
    measured: { usage: WorkloadUsage[]; cpuByBinding: Map<string, number> },
    nowMs: number,
  ): Promise<ClusterStatusPatch | undefined> {
    // Every kind the desired objects have must be watched before anything is decided about it.
    const kinds = new Map<string, KindRef>();
    for (const d of desired.objects) kinds.set(kindKey(d.ref), { apiVersion: d.ref.apiVersion, kind: d.ref.kind });
    await Promise.all([...kinds.values()].map((k) => this.watchKind(k)));
    const observed = new Map<string, MemberObjectView>();
    let allSynced = true;
    for (const informer of this.managed.values()) {
      if (!informer.synced) allSynced = false;
      for (const v of informer.cache.values()) observed.set(memberKey(v.ref), v);
    }
    const watchable = desired.objects.filter((d) => {
      const i = this.managed.get(kindKey(d.ref));
      return i?.synced;
    });
    const plan = planApply(watchable, observed);
    // Removing what is no longer assigned needs the full picture: not while any kind's list is missing.
    const actions = allSynced ? plan.actions : plan.actions.filter((a) => a.type === 'apply');
    await this.ensureNamespaces(actions);
    await this.execute(actions);

    const conflicts = new Map(plan.conflicts.map((c) => [memberKey(c.object.ref), c.message]));
    const byKey = new Map(desired.objects.map((d) => [memberKey(d.ref), d]));
    await this.refreshPodMetrics(desired.objects, nowMs);
    const podsByNamespace = new Map<string, PodView[]>();
    for (const p of this.pods?.cache.values() ?? []) {
      const list = podsByNamespace.get(p.namespace) ?? [];
      list.push(p);
      podsByNamespace.set(p.namespace, list);
    }
    const hpas = [...(this.managed.get('autoscaling/v2/HorizontalPodAutoscaler')?.cache.values() ?? [])].filter(
      (h) => h.binding !== undefined && h.hpa,
    );
    for (const [key, a] of desired.assigned) {
      if (a.problem) {
        current.set(key, notAppliedReport(a.problem));
        continue;
      }
      const mKey = memberKey(a.ref!);
      const d = byKey.get(mKey)!;
      const unserved = this.unservedKinds.get(kindKey(a.ref!));
      const failed = conflicts.get(mKey) ?? this.writeErrors.get(mKey) ?? unserved;
      if (failed) {
        current.set(key, notAppliedReport(failed));
        continue;
      }
      const view = this.managed.get(kindKey(a.ref!))?.cache.get(`${a.ref!.namespace}/${a.ref!.name}`);
      if (!view || view.binding === undefined) {
        current.set(key, notAppliedReport('waiting for the member cluster to list the applied object'));
        continue;
      }
      if (d.replicas === undefined) {
        current.set(key, plainObjectReport());
        continue;
      }
      const pods = (podsByNamespace.get(a.ref!.namespace) ?? []).filter((p) =>
        selectorMatches(view.selector, p.labels),
      );
      const request = d.podTemplate ? podRequest({ spec: d.podTemplate } as KubePod).cpuMilli : 0;
      const podCpu = this.podCpu.get(a.ref!.namespace);
      const hpa = hpas.find(
        (h) =>
          h.ref.namespace === a.ref!.namespace &&
          h.hpa!.target?.kind === a.ref!.kind &&
          h.hpa!.target?.name === a.ref!.name,
      )?.hpa;
      const report = workloadReportFrom({
        ref: a.ref!,
        view,
        pods,
        ...(request > 0 ? { cpuRequestMilli: request } : {}),
        ...(hpa ? { hpa } : {}),
      });
      current.set(key, report);
      const cpu = podCpu && request > 0 ? readyPodsCpuMilli(pods, podCpu) : undefined;
      if (cpu !== undefined) {
        measured.cpuByBinding.set(key, cpu);
        measured.usage.push({
          cluster: this.cluster,
          namespace: a.ref!.namespace,
          kind: a.ref!.kind,
          workload: a.ref!.name,
          cores: cpu / 1000,
        });
      }
    }
    if (!this.nodes?.synced || !this.pods?.synced || this.version === undefined) return undefined;
    const models = effectiveResourceModels({
      resourceModels: this.clusterModels.get({ kind: 'Cluster', namespace: '', name: this.cluster }),
    });
    const patch = kubeClusterStatus(this.version, this.nodes.cache.values(), this.pods.cache.values(), models);
    const hpaInformer = this.managed.get('autoscaling/v2/HorizontalPodAutoscaler');
    // Only from a full list: a partial one would report a foreign HPA gone that is not.
    if (hpaInformer?.synced)
      patch.foreignHorizontalPodAutoscalers = foreignHpasField(foreignHpasOf(hpaInformer.cache.values()));
    return patch;
  }

  /** Creates the namespaces the objects to apply live in, when missing (never removed: others may use them). */
  private async ensureNamespaces(actions: readonly ApplyAction[]): Promise<void> {
    if (!this.namespaces?.synced) return;
    const missing = new Set<string>();
    for (const a of actions)
      if (a.type === 'apply' && a.object.ref.namespace && !this.namespaces.cache.has(`/${a.object.ref.namespace}`))
        missing.add(a.object.ref.namespace);
    await mapLimited([...missing], this.writes.concurrency, async (name) => {
      const manifest: Manifest = {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name, labels: { [MemberMarks.managedBy]: MemberMarks.managedByValue } },
      };
      try {
        await this.rateLimited('apply', () => this.opts.api.apply(manifest));
        this.namespaces!.upsert({ metadata: { name } });
      } catch (err) {
        this.opts.logger.error({ err: (err as Error).message, cluster: this.cluster }, 'creating a namespace failed');
      }
    });
  }

  private async rateLimited<T>(action: 'apply' | 'delete', write: () => Promise<T>): Promise<T> {
    const wait = this.bucket.take(performance.now());
    if (wait > 0) await sleep(wait);
    this.writesSent++;
    this.counters.writes.inc({ cluster: this.cluster, action });
    return write();
  }

  private async execute(actions: readonly ApplyAction[]): Promise<void> {
    await mapLimited(actions, this.writes.concurrency, async (a) => {
      if (this.stopped) return;
      const key = memberKey(a.type === 'apply' ? a.object.ref : a.ref);
      const informer = this.managed.get(kindKey(a.type === 'apply' ? a.object.ref : a.ref));
      try {
        if (a.type === 'apply') {
          const applied = await this.rateLimited('apply', () => this.opts.api.apply(a.manifest));
          informer?.upsert(applied);
        } else {
          await this.rateLimited('delete', () => this.opts.api.remove(a.ref));
          informer?.remove(`${a.ref.namespace}/${a.ref.name}`);
        }
        this.writeErrors.delete(key);
      } catch (err) {
        const message = (err as Error).message;
        this.writeErrors.set(key, message);
        this.opts.logger.error(
          { err: message, cluster: this.cluster, object: key, action: a.type },
          'writing to the member cluster failed',
        );
      }
    });
  }

  /** Reads pod CPU usage of the namespaces of workloads with CPU requests, once per metrics period. */
  private async refreshPodMetrics(objects: readonly DesiredObject[], nowMs: number): Promise<void> {
    const period = this.opts.metricsPeriodMs ?? 15_000;
    if (this.lastMetricsMs !== undefined && nowMs - this.lastMetricsMs < period) return;
    this.lastMetricsMs = nowMs;
    const namespaces = new Set<string>();
    for (const d of objects)
      if (d.replicas !== undefined && d.podTemplate && podRequest({ spec: d.podTemplate } as KubePod).cpuMilli > 0)
        namespaces.add(d.ref.namespace);
    const next = new Map<string, Map<string, number> | undefined>();
    for (const ns of namespaces) {
      try {
        next.set(ns, await this.opts.api.podCpuMilli(ns));
        this.metricsErrors.delete(ns);
      } catch (err) {
        // No metrics API (or none yet for these pods): the workloads report no usage, as a cluster without
        // metrics-server gives the HPA controller no metric.
        next.set(ns, undefined);
        const message = (err as Error).message;
        if (this.metricsErrors.get(ns) !== message)
          this.opts.logger.warn({ err: message, cluster: this.cluster, namespace: ns }, 'no pod metrics');
        this.metricsErrors.set(ns, message);
      }
    }
    this.podCpu = next;
  }
}

const refOf = (b: StoredObject): BindingRef => ({
  kind: b.kind,
  namespace: b.metadata.namespace || undefined,
  name: b.metadata.name,
});
