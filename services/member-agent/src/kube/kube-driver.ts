import { type ClusterSpec, effectiveResourceModels, type ReservedNamespaces, type ResourceModel } from '@flotilla/api';
import { type Bus, type CloudEvent, publishEvent } from '@flotilla/bus';
import { Controllers } from '@flotilla/catalogue';
import { type BatchResult, type Controller, defineController, type InvolvesObjects } from '@flotilla/controller';
import type { KubeInformer, KubeInformerEvent, ReadinessSink } from '@flotilla/kube-client';
import type { Clock } from '@flotilla/runtime';
import { type Informer, Informers, objectKey, refFromKey, type StatusRecord, type StoredObject } from '@flotilla/store';
import { type Counter, Registry } from 'prom-client';
import { type AgentLogger, bindingStatusForAgent, withoutPlacement } from '../agent-projections.js';
import { type BindingUsage, MemberUsageWriter } from '../member-usage.js';
import {
  type BindingRef,
  type ClusterStatusPatch,
  type StatusLookup,
  unreachableWorkloadReport,
  type WorkloadReport,
  type WorkloadUsage,
} from '../report-model.js';
import { type Report, ReportBook, readyReasonIsExpiry, targetClusterNames } from '../reports.js';
import type { UsageRecorder } from '../usage-recorder.js';
import type { WorkloadUsageGauge } from '../usage-metrics.js';
import { type KubeNode, type KubePod, type NodeView, nodeView, podView, templatePodRequest } from './cluster-status.js';
import { ClusterStatusController } from './cluster-status-controller.js';
import { BindingRouter } from './binding-router.js';
import { KeyRouter } from './key-router.js';
import { kubeDriverMetrics } from './kube-metrics.js';
import type { MemberClusterApi } from './kube-api.js';
import {
  type DesiredObject,
  type DesiredState,
  desiredMemberObjects,
  formatBindingRef,
  ManifestCache,
  memberKey,
} from './member-objects.js';
import { DEFAULT_WRITE_LIMITS, type FailedWrite, MemberWriter, type WriteLimits } from './member-writer.js';
import {
  HPA_KIND,
  type KindRef,
  kindKey,
  markedWorkloadsSelecting,
  memberObjectView,
  observeCluster,
  observeWorkloads,
  planMemberWrites,
  podsSelected,
  type UsageSource,
  type WorkloadUsed,
  workloadUsage,
  POD_LABEL_INDEX,
  type PodsWithLabel,
  SELECTOR_INDEX,
} from './observe.js';
import { publishReports } from '../publish-reports.js';
import type { MemberObjectView, PodView } from './workload-status.js';

export { foreignHpasOf, type KindRef, memberObjectView } from './observe.js';

/** The execution controller's name: the `controller` label of its metrics, the source of its events. */
export const KUBE_MEMBER_CONTROLLER = Controllers.kubeMember;
/** The workload status controller's name. */
export const MEMBER_WORKLOAD_STATUS_CONTROLLER = Controllers.memberWorkloadStatus;

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

/** The driver's defaults, defined once. */
export const KUBE_DRIVER_DEFAULTS = Object.freeze({
  resyncMs: 30_000,
  metricsPeriodMs: 15_000,
  writes: DEFAULT_WRITE_LIMITS,
  /** A failed reconcile (a write the member cluster refused) is retried after this, doubled per failure. */
  backoff: Object.freeze({ baseMs: 500, maxMs: 30_000 }),
});

export interface KubeDriverOptions {
  /** The Cluster object (cluster.karmada.io/v1alpha1) this agent speaks for. */
  clusterName: string;
  api: MemberClusterApi;
  bus: Bus;
  clock: Clock;
  logger: AgentLogger;
  /**
   * The process's shared informers (runBusService's `openInformers`: each closes its readiness gate while its cache
   * cannot be trusted); informers of the driver's own when unset.
   */
  informers?: Informers;
  /** How often `/readyz` is probed while the cluster answers (KUBE_POLL_MS; Karmada's status update frequency). */
  pollMs: number;
  /** How often the cluster's lease is renewed at most, after a probe (CLUSTER_LEASE_RENEW_MS, default 10 s). */
  leaseRenewMs?: number;
  /** How long probes must fail before the cluster is reported not Ready (KUBE_FAILURE_THRESHOLD_MS). */
  failureThresholdMs: number;
  /** How long probes must succeed before a cluster reported not Ready is Ready again (KUBE_SUCCESS_THRESHOLD_MS). */
  successThresholdMs: number;
  /**
   * How often the Cluster key comes round in the status controller (default 30 s): the usage sampled, pod metrics
   * read when due. Nothing else is periodic: every change wakes the bindings it concerns.
   */
  resyncMs?: number;
  /** How often pod CPU usage is read from metrics.k8s.io (default 15 s, the HPA controller's sync period). */
  metricsPeriodMs?: number;
  /** client-go's write rate limit (KUBE_API_QPS / KUBE_API_BURST) and how many writes are in flight at once. */
  writes?: WriteLimits;
  /** First retry after a reconcile whose writes failed, doubled per failure up to maxMs. */
  backoff?: { baseMs: number; maxMs: number };
  managedKinds?: readonly KindRef[];
  /** How long each watch asks the API server to keep it open before resuming (KUBE_WATCH_TIMEOUT_SECONDS). */
  watchTimeoutSeconds?: number;
  /** The service's registry: the cluster's readiness and capacity, the controller's and informers' metrics. */
  registry?: Registry;
  /**
   * The service's readiness gates: each member informer holds one (`kube-informer:<cluster>/<informer>`), closed
   * until its first list and once it has been relisting after an error for longer than a short grace.
   */
  readiness?: ReadinessSink;
  /** Exposes each workload's CPU usage in this cluster (as the sim driver does). */
  usageGauge?: WorkloadUsageGauge;
  /** Records each workload's usage into the metric history (EffectiveHPA's embedded source). */
  usageRecorder?: UsageRecorder;
  /** Namespaces nothing is written into (RESERVED_NAMESPACES); the defaults, `kube-*` and `flotilla-system`, by default. */
  reservedNamespaces?: ReservedNamespaces;
  /**
   * Rounds of passes shared by the drivers of one process (the simulated fleet): a change makes the driver join the
   * next round rather than queue its pass at once, and the round publishes its passes' reports together. Unset (a
   * real cluster's agent): a change queues a pass at once, and each pass publishes its own reports.
   */
  rounds?: PassRounds;
  /**
   * The member manifests' hashes, shared by the drivers of one process: a manifest does not depend on its cluster
   * beyond the replicas, so the clusters of a binding assigned alike hash it once. The driver's own by default.
   */
  manifests?: ManifestCache;
  /** The holder identity's driver in the cluster lease (default `kube`; `sim` for simulated clusters). */
  leaseDriver?: 'sim' | 'kube';
  random?: () => number;
}

/**
 * Rounds of passes for many drivers in one process. A driver woken by a change `join`s the next round, and its pass
 * runs when the round opens; every pass `begin`s a ticket and hands its reports to it (or ends without). The reports
 * of a round's passes are published together once the last of them ended (a binding's clusters' reports as one
 * event), and the next round opens only after that: the clusters one change woke report in one round.
 */
export interface PassRounds {
  /**
   * Calls `open` when the next round opens, with every other driver that joined, in one turn: it takes what its pass
   * will look at and returns how to queue that pass (or nothing to do), which the round calls a slice of drivers a
   * turn; the pass begins its ticket before the call returns.
   */
  join(open: () => (() => void) | undefined): void;
  /** A ticket of the round being opened, for the pass it queues. */
  begin(): PassReports;
  /** A ticket for a pass no round queued (a driver's first, `reconcileNow`): never held for a round. */
  beginOutside(): PassReports;
}

/** One pass's reports. */
export interface PassReports {
  /** Publishes reports (committing each once acknowledged); resolves with how many were published. */
  publish(reports: readonly Report[], stopped: () => boolean): Promise<number>;
  /** The pass ended; a no-op once it published. */
  end(): void;
}

/** How long a new informer's first list may take before reconciling goes on without it (its objects wait). */
const FIRST_SYNC_WAIT_MS = 10_000;
/** What the member-agent reads of a Cluster: its resource models and, for a simulated one, its simulation. */
export interface MemberClusterView {
  resourceModels?: ResourceModel[];
  simulation?: unknown;
}

/** The member-agent's projection of the Clusters' shared informer (the kube driver's and the simulated fleet's). */
export const MEMBER_CLUSTER_VIEW = Object.freeze({
  name: 'memberClusterView',
  project: (cluster: StoredObject): MemberClusterView => {
    const spec = cluster.spec as (ClusterSpec & { simulation?: unknown }) | undefined;
    return {
      ...(spec?.resourceModels ? { resourceModels: spec.resourceModels } : {}),
      ...(spec?.simulation !== undefined ? { simulation: spec.simulation } : {}),
    };
  },
});
const BINDING_KINDS = ['ResourceBinding', 'ClusterResourceBinding'] as const;
const HPA_TEMPLATE_KIND = 'HorizontalPodAutoscaler';

/** The store key of the binding a member object's `flotilla.io/binding` mark names (`Kind/namespace/name`). */
function bindingKeyOfMark(mark: string): string | undefined {
  const [kind, namespace, ...name] = mark.split('/');
  if (!kind || name.length === 0) return undefined;
  return objectKey({ kind, namespace: namespace ?? '', name: name.join('/') });
}

/**
 * Writes to the member cluster failed in a reconcile: the kit retries it with backoff and records a Warning event
 * (reason ApplyFailed) on each binding whose object was refused, with the member API server's words.
 */
export class MemberWriteError extends Error implements InvolvesObjects {
  override readonly name = 'MemberWriteError';
  readonly reason = 'ApplyFailed';
  readonly involvedObjects: InvolvesObjects['involvedObjects'];

  constructor(
    readonly cluster: string,
    readonly failures: readonly FailedWrite[],
  ) {
    super(
      `member cluster "${cluster}": ${failures.length} write${failures.length === 1 ? '' : 's'} failed: ${failures[0]?.message}`,
    );
    this.involvedObjects = failures.flatMap((f) =>
      f.binding
        ? [{ kind: f.binding.kind, namespace: f.binding.namespace, name: f.binding.name, message: f.message }]
        : [],
    );
  }
}

/**
 * A member cluster's driver, real or simulated (`SimulatedFleet` runs one per simulated cluster), as three controllers
 * of the kit, keyed as Karmada keys them:
 * - ClusterStatusController (`member-cluster-status`), keyed by the Cluster, probes the API server (`/readyz`,
 *   version) and keeps the cluster's readiness and lease;
 * - the execution controller (KUBE_MEMBER_CONTROLLER), keyed by binding, applies what each binding assigns to the
 *   cluster by server-side apply and removes what is no longer assigned (desiredMemberObjects, planMemberWrites,
 *   MemberWriter);
 * - the workload status controller (`member-workload-status`), keyed by binding, observes each binding's workload
 *   (observeWorkloads) and reports it through the ReportBook; its Cluster key stands for the cluster's capacity
 *   summary (observeCluster) and the workloads' usage.
 *
 * Both binding controllers reconcile the keys ready together (`reconcileBatch`): one look at the member's informers
 * serves them all, and a round publishes a binding's clusters' reports as one event. The execution controller hands
 * the keys it looked at to the status controller, with what it decided, so that a write is reported after it.
 * Changes wake the keys they concern: a binding's (through the BindingRouter), its template's, its member objects'
 * and pods' (by the informers' indexes), someone else's object where theirs would be; readiness wakes the whole
 * share. Writes that fail are reported in the binding's status, and its key then fails with a MemberWriteError:
 * retried with backoff, a Warning event on the binding, `flotilla_reconcile_total{controller="kube-member",result="error"}`.
 */
export class KubeDriver {
  private readonly book = new ReportBook('flotilla/member-agent/kube');
  private readonly registry: Registry;
  private readonly informers: Informers;
  private readonly bindings: Array<Informer<StoredObject>>;
  private readonly statuses = new Map<string, Informer<StatusRecord<Record<string, unknown>>>>();
  /** The Clusters' resource models (`spec.resourceModels`): this cluster's grade its nodes in the status. */
  private readonly clusterModels: Informer<MemberClusterView>;
  /** The template informers followed so far, by kind, each held (its KeyRouter) while the driver runs. */
  private readonly templates = new Map<string, { informer: Informer<StoredObject>; release(): void }>();
  /** The templates (by store key) the bindings assigning this cluster name, each watched through its KeyRouter. */
  private readonly templateWatches = new Map<string, () => void>();
  /** Applies what the bindings assign here, keyed by binding (Karmada's execution controller). */
  private readonly execution: Controller;
  /** Reports the bindings' workloads, keyed by binding, and the cluster's capacity under its Cluster key. */
  private readonly workloadStatus: Controller;
  /** The Cluster's store key: the workload status controller's key for the capacity summary and the usage. */
  private readonly key: string;
  private nodes: KubeInformer<NodeView> | undefined;
  private pods: KubeInformer<PodView> | undefined;
  private namespaces: KubeInformer<string> | undefined;
  private readonly managed = new Map<string, KubeInformer<MemberObjectView>>();
  /** Kinds a binding asks for that the member cluster does not serve (or refused to list), with why. */
  private readonly unservedKinds = new Map<string, string>();
  /** The bindings (by store key) that assigned this cluster when last looked at. */
  private readonly assignedKeys = new Set<string>();
  /**
   * The cluster -> bindings index: the bindings (by store key) whose `spec.clusters` names this cluster now, kept
   * from the binding informers' events. The cluster's share is these and those it reported before (`tracked`), not
   * every binding of the installation: in a process serving many clusters, a look at the share costs that share.
   */
  private readonly assigning = new Set<string>();
  /**
   * The bindings of the share besides `assigning`: those this driver reported for (a removal is reported once they
   * leave), or that assigned the cluster when last looked at. The first look is at every binding (what an earlier
   * agent reported for this cluster is in the stored status of bindings now elsewhere).
   */
  private tracked = new Set<string>();
  /** Whether the first look (at every binding) was queued: before it, the share is every binding. */
  private looked = false;
  /** The first look's keys are queued and its batch has not begun. */
  private firstLookQueued = false;
  /** The last failed write per member object, reported in the binding's aggregated status until it succeeds. */
  private readonly writeErrors = new Map<string, FailedWrite>();
  /** Someone else's object where a binding's would go, per member object (planMemberWrites), with why. */
  private readonly conflicts = new Map<string, string>();
  private readonly writer: MemberWriter;
  private readonly manifests: ManifestCache;
  private podCpu = new Map<string, Map<string, number> | undefined>();
  /** The usage last published, sampled again when the Cluster key comes round (UsageRecorder's interval). */
  private lastUsage: WorkloadUsage[] = [];
  private lastMetricsMs: number | undefined;
  /** The last metrics.k8s.io error per namespace: logged when it changes, not every period. */
  private readonly metricsErrors = new Map<string, string>();
  private stopped = false;
  /** Ends this driver's routes of binding changes (BindingRouter). */
  private unroute: (() => void) | undefined;
  /** binding (store key) → the template (store key) it names here, and each template's bindings (for its changes). */
  private readonly templateOf = new Map<string, string>();
  private readonly templateUsers = new Map<string, Set<string>>();
  /** The bindings (store keys) placing a HorizontalPodAutoscaler here: every look at bindings includes them. */
  private readonly hpaBindings = new Set<string>();
  /** By binding (store key): its usage here as of the status reconcile that last observed it. */
  private readonly usageOf = new Map<string, { binding: BindingUsage; workload: WorkloadUsage }>();
  /** By binding (store key): where its workload's usage is read from (`refreshUsage`), for a workload requesting CPU. */
  private readonly usageSources = new Map<string, UsageSource>();
  private looks = 0;
  /** Whether the capacity summary may have changed since it was last observed (nodes, pods, readiness, the Cluster). */
  private summaryChanged = true;
  /**
   * Keys (bindings, and the Cluster key for the summary) an execution batch looks at, or a status batch has still to
   * observe: a change of their member objects or pods is that batch's (its own writes' echo), not the next one's.
   */
  private readonly observing = new Set<string>();
  /** Why the next execution batch looks at the whole share (counted as that pass); `changed` when unset. */
  private wholeReason: PassReason | undefined;
  /** With rounds: the keys woken for the next round, of each controller. */
  private nextRound = { execution: new Set<string>(), status: new Set<string>() };
  /** Whether the driver joined the next round and it did not open yet (`rounds`). */
  private joined = false;
  /** Settles once the keys of the round the driver joined are queued (for `idle`). */
  private gathering: Promise<void> | undefined;
  /** What settles each `gathering` not settled yet (a stopping driver settles them). */
  private readonly finishes = new Set<() => void>();
  /** The round's hold on the next execution batch: handed on to the status batch that reports it. */
  private roundTicket: PassReports | undefined;
  /** The status keys of the round, queued with those the round's execution batch hands on. */
  private roundStatusKeys: Set<string> | undefined;
  /** What the last execution batch handed to the status controller: its round's ticket and what it decided. */
  private handoff:
    | { ticket?: PassReports; keys: ReadonlySet<string>; desired: DesiredState; first?: boolean }
    | undefined;
  /** Probes, readiness and the lease (Karmada's cluster status controller, keyed by this Cluster). */
  private readonly health: ClusterStatusController;
  private readonly usageWriter: MemberUsageWriter;
  private readonly looksCounter: Counter<'pass'>;
  /** Settles when the first look at the bindings was reported (what `start` waits for). */
  private firstPass: Promise<void>;
  private firstPassDone!: () => void;

  constructor(private readonly opts: KubeDriverOptions) {
    this.registry = opts.registry ?? new Registry();
    this.firstPass = new Promise((r) => {
      this.firstPassDone = r;
    });
    this.writer = new MemberWriter({
      cluster: opts.clusterName,
      api: opts.api,
      limits: opts.writes ?? KUBE_DRIVER_DEFAULTS.writes,
      logger: opts.logger,
      registry: this.registry,
    });
    this.manifests = opts.manifests ?? new ManifestCache();
    this.looksCounter = kubeDriverMetrics(this.registry).bindingLooks;
    this.usageWriter = new MemberUsageWriter({ bus: opts.bus, clock: opts.clock });
    this.informers = opts.informers ?? new Informers({ bus: opts.bus, registry: this.registry });
    this.key = objectKey({ kind: 'Cluster', name: opts.clusterName });
    this.bindings = BINDING_KINDS.map((kind) =>
      this.informers.objects(kind, { name: 'withoutPlacement', project: withoutPlacement }),
    );
    this.statuses.set('Cluster', this.informers.status('Cluster'));
    // A binding's status is read for what was reported already: its aggregated status, not its conditions.
    for (const kind of BINDING_KINDS)
      this.statuses.set(
        kind,
        this.informers.status(kind, { name: 'bindingStatusForAgent', project: bindingStatusForAgent }),
      );
    this.clusterModels = this.informers.objects('Cluster', MEMBER_CLUSTER_VIEW);
    // Its own Cluster only, through the process's router: another's change is not this driver's business.
    const ownCluster = KeyRouter.of(this.clusterModels).source(this.key);
    this.health = new ClusterStatusController({
      clusterName: opts.clusterName,
      api: opts.api,
      bus: opts.bus,
      clock: opts.clock,
      logger: opts.logger,
      registry: this.registry,
      clusters: ownCluster,
      pollMs: opts.pollMs,
      failureThresholdMs: opts.failureThresholdMs,
      successThresholdMs: opts.successThresholdMs,
      ...(opts.leaseRenewMs !== undefined ? { leaseRenewMs: opts.leaseRenewMs } : {}),
      ...(opts.leaseDriver !== undefined ? { leaseDriver: opts.leaseDriver } : {}),
      // Reachable or not: every binding is written (or not) and reported again.
      onReadinessChange: () => this.wakeShare('inputs'),
      onAnswersAgain: () => this.wakeInformers(),
    });
    const backoff = opts.backoff ?? KUBE_DRIVER_DEFAULTS.backoff;
    const common = {
      // The bindings, their templates and statuses, and the member cluster's objects come through the process's
      // routers and the member informers (`start`), which hand a change to the keys it concerns only.
      maxBatch: Number.MAX_SAFE_INTEGER,
      baseBackoffMs: backoff.baseMs,
      maxBackoffMs: backoff.maxMs,
      logger: opts.logger,
      registry: this.registry,
      failureEvents: { publish: (e: CloudEvent) => publishEvent(opts.bus, e), objectOf: refFromKey },
    };
    this.execution = defineController({
      ...common,
      name: KUBE_MEMBER_CONTROLLER,
      // Its resource models grade the nodes in the summary; its simulation is the fleet's (a probe follows).
      // What a binding assigns does not depend on its Cluster; its readiness wakes the share (`health`).
      watches: [{ source: ownCluster, onChange: () => undefined }],
      keys: () => this.firstLook(),
      reconcileBatch: (keys) => this.execute(keys.map((k) => k.key)),
    });
    this.workloadStatus = defineController({
      ...common,
      name: MEMBER_WORKLOAD_STATUS_CONTROLLER,
      // Its resource models grade the nodes in the summary.
      watches: [{ source: ownCluster, onChange: () => this.summaryMayChange() }],
      // Woken by the execution batches and the member's changes, and the Cluster key every resync (usage) once the
      // first look began.
      keys: () => (this.looked ? [this.key] : []),
      reconcileBatch: (keys) => this.report(keys.map((k) => k.key)),
      resyncMs: opts.resyncMs ?? KUBE_DRIVER_DEFAULTS.resyncMs,
      resyncSpread: false,
    });
  }

  private get cluster(): string {
    return this.opts.clusterName;
  }

  /** How many bindings its reconciles looked at (for tests: a change costs its own bindings' look). */
  get bindingLooks(): number {
    return this.looks;
  }

  /** How many writes the driver sent (applies and deletes), for tests and the benchmark. */
  get writesSent(): number {
    return this.writer.sent;
  }

  /** The member's pods that carry a label, from the pod informer's index. */
  private readonly podsWithLabel: PodsWithLabel = (namespace, label) =>
    this.pods?.byIndex(POD_LABEL_INDEX.name, POD_LABEL_INDEX.valueOf(namespace, label)) ?? [];

  /** Probes, fills the caches and looks at every binding once, then follows changes until `stop`. */
  async start(): Promise<void> {
    // The bindings that assign this cluster now, or did before (one that left it is removed and reported so).
    const routes = this.bindings.map((informer) =>
      // The router calls only for a binding that names this cluster now or did before: either way it is applied.
      BindingRouter.of(informer).register(this.cluster, (e, namesCluster) => {
        if (namesCluster) this.assigning.add(e.key);
        else this.assigning.delete(e.key);
        this.wakeExecution(e.key);
      }),
    );
    // The scheduler set this cluster Ready=Unknown (this agent was cut off): report again at once.
    const unwatchStatus = KeyRouter.of(this.statuses.get('Cluster')!).watch(this.key, (e) => {
      if (e.type === 'upsert' && readyReasonIsExpiry(this.statusOf('Cluster', undefined, this.cluster)))
        this.wakeShare('inputs');
    });
    // Read for what was reported already (after a restart): synced before the first look.
    const statuses = [...this.statuses.values()].map((informer) => KeyRouter.of(informer).hold());
    this.unroute = () => {
      for (const r of routes) r.unregister();
      unwatchStatus();
      for (const s of statuses) s.release();
      for (const unwatch of this.templateWatches.values()) unwatch();
      this.templateWatches.clear();
    };
    await Promise.all([...routes.map((r) => r.synced), ...statuses.map((s) => s.synced)]);
    await this.health.start();
    await this.workloadStatus.start();
    // Its start queues every binding (`shareKeys`): the first look, reported outside any round. With none, the first
    // report is the cluster's alone.
    await this.execution.start();
    if (this.execution.queue.length === 0) {
      this.firstLookQueued = false;
      this.handToStatus(new Set([this.key]), { first: true });
    }
    await this.firstPass;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unroute?.();
    for (const finish of [...this.finishes]) finish();
    this.roundTicket?.end();
    this.roundTicket = undefined;
    this.handoff?.ticket?.end();
    this.handoff = undefined;
    await this.health.stop();
    await this.execution.stop();
    await this.workloadStatus.stop();
    // After the last reconcile (which may have followed another kind): the template informers are let go.
    for (const t of this.templates.values()) t.release();
    this.templates.clear();
    await Promise.all([this.nodes, this.pods, this.namespaces, ...this.managed.values()].map((i) => i?.stop()));
    this.opts.usageGauge?.update([], this.cluster);
    this.firstPassDone();
  }

  /** The API server may have gone away or come back (a simulated cluster's `fail` or `recover`): probe it now. */
  probeNow(): void {
    this.health.probeNow();
  }

  /** Looks at the cluster's whole share now, outside any round, and waits until it is reported. */
  async reconcileNow(): Promise<void> {
    this.wholeReason = 'inputs';
    this.summaryMayChange(false);
    this.execution.queue.together(() => {
      for (const key of this.shareKeys()) this.execution.enqueue(key);
    });
    await this.idle();
  }

  /**
   * The execution controller's keys at start: every binding. What woke before (the bindings as their router listed
   * them, readiness first known) is this look's.
   */
  private firstLook(): Iterable<string> {
    const keys = this.shareKeys();
    this.looked = true;
    this.firstLookQueued = true;
    this.nextRound.execution.clear();
    return keys;
  }

  /** The cluster's share: every binding before the first look, then those assigning it and those it tracks. */
  private shareKeys(): Iterable<string> {
    if (!this.looked) return this.bindings.flatMap((i) => [...i.keys()]);
    return new Set([...this.assigning, ...this.tracked]);
  }

  /** A binding's inputs changed (itself, its template, its member object gone): it is applied again. */
  private wakeExecution(key: string, fromMember = false): void {
    if (this.stopped) return;
    // The echo of the batch's own delete: it decided about this binding with what it wrote.
    if (fromMember && this.observing.has(key)) return;
    if (this.opts.rounds) {
      this.nextRound.execution.add(key);
      this.joinRound(this.opts.rounds);
    } else this.execution.enqueue(key);
  }

  /** A binding's workload (or, by the Cluster key, the capacity) changed in the member cluster: it is reported again. */
  private wakeStatus(key: string): void {
    if (this.stopped || this.observing.has(key)) return;
    if (this.opts.rounds) {
      this.nextRound.status.add(key);
      this.joinRound(this.opts.rounds);
    } else this.workloadStatus.enqueue(key);
  }

  /** Nodes, pods, readiness or the Cluster changed: the summary is observed again. */
  private summaryMayChange(wake = true): void {
    this.summaryChanged = true;
    if (wake) this.wakeStatus(this.key);
  }

  /**
   * The whole share is applied and reported again: a change of readiness, of the Cluster's expiry (`inputs`), or a
   * namespace gone in the member (`member`).
   */
  private wakeShare(reason: PassReason): void {
    if (this.stopped) return;
    // Before the first look (readiness known at start): that look is at every binding.
    if (!this.looked) {
      this.summaryMayChange();
      return;
    }
    this.wholeReason = reason;
    for (const key of this.shareKeys()) this.wakeExecution(key);
    this.summaryMayChange();
  }

  /** Waits for the next round (once, however often asked before it opens). */
  private joinRound(rounds: PassRounds): void {
    if (this.joined || this.stopped) return;
    this.joined = true;
    let done!: () => void;
    const gathering = new Promise<void>((r) => {
      done = r;
    });
    this.gathering = gathering;
    const finish = () => {
      this.finishes.delete(finish);
      if (this.gathering === gathering) this.gathering = undefined;
      done();
    };
    this.finishes.add(finish);
    rounds.join(() => {
      this.joined = false;
      // The round's keys are those woken by now: a change while its batches are being queued is the next round's,
      // for every cluster of the binding alike.
      const { execution, status } = this.nextRound;
      if (this.stopped || (execution.size === 0 && status.size === 0)) {
        finish();
        return undefined;
      }
      this.nextRound = { execution: new Set(), status: new Set() };
      return () => {
        // The round waits for this driver from now, not from when its batch starts: a batch outside the round (a
        // retry, the Cluster key's usage) may be running, and the round's runs after it.
        const ticket = rounds.begin();
        if (execution.size > 0) {
          // A round before this one whose batch has not begun (the execution controller busy outside the rounds):
          // its keys are queued, and go with this round's.
          this.roundTicket?.end();
          this.roundTicket = ticket;
          this.roundStatusKeys = this.roundStatusKeys ? new Set([...this.roundStatusKeys, ...status]) : status;
          this.execution.queue.together(() => {
            for (const key of execution) this.execution.enqueue(key);
          });
        } else this.handToStatus(status, { ticket });
        finish();
      };
    });
  }

  /**
   * Queues `keys` in the status controller, with the round's ticket and what an execution batch decided of the
   * bindings it `looked` at (the status batch observes those as decided, and looks at the others itself).
   */
  private handToStatus(
    keys: ReadonlySet<string>,
    o: {
      ticket?: PassReports | undefined;
      looked?: { keys: ReadonlySet<string>; desired: DesiredState };
      /** The first look's: its status batch reads pod metrics, and `start` waits for it. */
      first?: boolean;
    } = {},
  ): void {
    if (this.stopped) {
      o.ticket?.end();
      return;
    }
    // An earlier hand-off no batch took yet: its keys are queued with these, so one batch reports both.
    const before = this.handoff;
    if (before?.ticket && o.ticket) before.ticket.end();
    const ticket = o.ticket ?? before?.ticket;
    const looked =
      before && o.looked
        ? { keys: new Set([...before.keys, ...o.looked.keys]), desired: mergeDesired(before.desired, o.looked.desired) }
        : (o.looked ??
          (before ? { keys: before.keys, desired: before.desired } : { keys: new Set<string>(), desired: EMPTY }));
    const first = o.first || before?.first;
    this.handoff = { ...(ticket ? { ticket } : {}), ...(first ? { first } : {}), ...looked };
    this.workloadStatus.queue.together(() => {
      for (const key of keys) this.workloadStatus.enqueue(key);
    });
  }

  /** Resolves once no change is being gathered and no reconcile is queued or running (for tests). */
  async idle(): Promise<void> {
    for (;;) {
      await this.gathering;
      await this.execution.idle();
      await this.workloadStatus.idle();
      if (!this.gathering && this.execution.queue.length === 0 && this.workloadStatus.queue.length === 0) return;
    }
  }

  /** What every member informer is given: errors probe, expiries are logged; changes come by subscription. */
  private informerOptions(what: string) {
    return {
      name: what,
      registry: this.registry,
      ...(this.opts.readiness ? { readiness: this.opts.readiness } : {}),
      onChange: () => undefined,
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
    this.health.probeNow();
  }

  /** The member API server answers again: informers waiting out their backoff list at once. */
  private wakeInformers(): void {
    for (const i of [this.nodes, this.pods, this.namespaces, ...this.managed.values()]) i?.retryNow();
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
      // Nodes and pods make the capacity summary; a pod's change is also its workload's (its pending count).
      if (!this.nodes) {
        this.nodes = await api.informer('v1', 'Node', {
          project: (raw) => nodeView(raw as KubeNode),
          ...common('nodes'),
        });
        this.nodes.subscribe(() => this.summaryMayChange());
      }
      if (!this.pods) {
        this.pods = await api.informer('v1', 'Pod', {
          project: (raw) => podView(raw as KubePod),
          indexers: { [POD_LABEL_INDEX.name]: POD_LABEL_INDEX.values },
          ...common('pods'),
        });
        this.pods.subscribe(this.onPod);
      }
      if (!this.namespaces) {
        this.namespaces = await api.informer('v1', 'Namespace', {
          project: (raw) => raw.metadata?.name,
          ...common('namespaces'),
        });
        // A namespace gone took the objects in it: every binding is applied again. One made (ours, mostly) is no news.
        this.namespaces.subscribe((e) => {
          if (e.type === 'delete') this.wakeShare('member');
        });
      }
    } catch (err) {
      this.opts.logger.warn({ err: (err as Error).message, cluster: this.cluster }, 'member API discovery failed');
      return false;
    }
    for (const i of [this.nodes, this.pods, this.namespaces]) void i.start();
    await Promise.all((this.opts.managedKinds ?? DEFAULT_MANAGED_KINDS).map((k) => this.watchKind(k)));
    await Promise.all([this.nodes, this.pods, this.namespaces].map((i) => i.waitForSync(FIRST_SYNC_WAIT_MS)));
    return true;
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
        // A pod's workload, found by its labels (onPod).
        indexers: { [SELECTOR_INDEX.name]: SELECTOR_INDEX.values },
        ...this.informerOptions(key),
      });
    } catch (err) {
      this.unservedKinds.set(key, (err as Error).message);
      return undefined;
    }
    this.unservedKinds.delete(key);
    this.managed.set(key, informer);
    const managed = informer;
    managed.subscribe((e) => {
      const view = e.type === 'upsert' ? managed.cache.get(e.key) : e.deleted;
      const binding = view?.binding === undefined ? undefined : bindingKeyOfMark(view.binding);
      // Someone else's object: a conflict may have come or gone for the bindings whose object it would be (their
      // template's kind, namespace and name); a foreign HPA is in the capacity summary.
      if (binding === undefined) {
        if (!view) return;
        const { kind, namespace, name } = view.ref;
        for (const user of this.templateUsers.get(objectKey({ kind, namespace, name })) ?? []) this.wakeExecution(user);
        if (kind === HPA_TEMPLATE_KIND) this.summaryMayChange();
      }
      // Ours gone: applied again (unless the binding left). Ours changed: its status is the workload's report.
      else if (e.type === 'delete') this.wakeExecution(binding, true);
      else {
        this.wakeStatus(binding);
        // An HPA's status is in the report of the workload it scales.
        const scaled = view?.hpa?.target ? this.scaledBy(view.ref.namespace, view.hpa.target) : undefined;
        if (scaled !== undefined) this.wakeStatus(scaled);
      }
    });
    void informer.start();
    await informer.waitForSync(FIRST_SYNC_WAIT_MS);
    return informer;
  }

  /** The binding (store key) of the workload of ours an HPA's `scaleTargetRef` names, if there is one. */
  private scaledBy(
    namespace: string,
    target: { apiVersion?: string; kind?: string; name?: string },
  ): string | undefined {
    for (const [key, informer] of this.managed) {
      if (
        !key.endsWith(`/${target.kind}`) ||
        (target.apiVersion !== undefined && key !== `${target.apiVersion}/${target.kind}`)
      )
        continue;
      const mark = informer.cache.get(`${namespace}/${target.name}`)?.binding;
      if (mark !== undefined) return bindingKeyOfMark(mark);
    }
    return undefined;
  }

  /** A pod came, changed or went: the capacity, and the workloads that select it, are reported again. */
  private readonly onPod = (e: KubeInformerEvent<PodView>): void => {
    this.summaryMayChange();
    const pod = e.type === 'upsert' ? this.pods?.cache.get(e.key) : e.deleted;
    if (!pod) return;
    for (const mark of markedWorkloadsSelecting(pod, this.managed.values())) {
      const binding = bindingKeyOfMark(mark);
      if (binding !== undefined) this.wakeStatus(binding);
    }
  };

  private templateLookup = (ref: { kind: string; namespace: string; name: string }) =>
    this.templates.get(ref.kind)?.informer.get(ref);

  /** A template of this cluster's share changed: its bindings here are applied again. */
  private readonly onTemplate = (e: { key: string }) => {
    for (const binding of this.templateUsers.get(e.key) ?? []) this.wakeExecution(binding);
  };
  /** Starts following the templates of every kind a binding names (the shared informer of that kind's objects). */
  private async followTemplates(bindings: readonly StoredObject[]): Promise<void> {
    const kinds = new Set<string>();
    for (const b of bindings) {
      const kind = (b.spec as { resource?: { kind?: string } } | undefined)?.resource?.kind;
      if (kind && !this.templates.has(kind)) kinds.add(kind);
    }
    await Promise.all(
      [...kinds].map(async (kind) => {
        const informer = this.informers.objects(kind) as Informer<StoredObject>;
        const held = KeyRouter.of(informer).hold();
        this.templates.set(kind, { informer, release: held.release });
        await held.synced;
      }),
    );
  }

  /** From now on, a change of `template` (none: no template) wakes the driver for `binding`. */
  private setTemplateOf(binding: string, template: string | undefined): void {
    const before = this.templateOf.get(binding);
    if (before === template) return;
    if (before !== undefined) {
      const users = this.templateUsers.get(before);
      users?.delete(binding);
      if (users?.size === 0) {
        this.templateUsers.delete(before);
        this.templateWatches.get(before)?.();
        this.templateWatches.delete(before);
      }
    }
    if (template === undefined) {
      this.templateOf.delete(binding);
      return;
    }
    this.templateOf.set(binding, template);
    let users = this.templateUsers.get(template);
    if (!users) {
      users = new Set();
      this.templateUsers.set(template, users);
      const followed = this.templates.get(refFromKey(template).kind);
      if (followed)
        this.templateWatches.set(template, KeyRouter.of(followed.informer).watch(template, this.onTemplate));
    }
    users.add(binding);
  }

  private statusOf: StatusLookup = (kind, namespace, name) =>
    this.statuses.get(kind)?.get({ kind, namespace, name })?.status;

  /** Whether one of these bindings (store keys) places a HorizontalPodAutoscaler, which decides another's replicas. */
  private touchesHpa(keys: Iterable<string>): boolean {
    for (const key of keys) {
      if (this.hpaBindings.has(key)) return true;
      const b = this.bindingOf(key);
      if ((b?.spec as { resource?: { kind?: string } } | undefined)?.resource?.kind === HPA_TEMPLATE_KIND) return true;
    }
    return false;
  }

  private bindingOf(key: string): StoredObject | undefined {
    const ref = refFromKey(key);
    return this.bindings[BINDING_KINDS.indexOf(ref.kind as (typeof BINDING_KINDS)[number])]?.get(ref);
  }

  /**
   * What the bindings (store keys) assign here, kept for their changes to come: their templates followed, whether
   * they place an HPA. Counted as looks, `why`.
   */
  private async desiredOf(keys: ReadonlySet<string>, why: LookReason): Promise<DesiredState> {
    const bindings: StoredObject[] = [];
    for (const key of keys) {
      const b = this.bindingOf(key);
      if (b) bindings.push(b);
    }
    this.looks += bindings.length;
    this.looksCounter.inc({ pass: why }, bindings.length);
    await this.followTemplates(bindings);
    return desiredMemberObjects({
      cluster: this.cluster,
      bindings,
      template: this.templateLookup,
      manifests: this.manifests,
    });
  }

  /**
   * The execution controller's batch: what the bindings assign here (with every binding placing a member HPA, which
   * decides whose replicas it owns), planned against the member's caches and written; then handed to the status
   * controller, which reports it. Each binding whose write the member refused fails alone (a MemberWriteError).
   */
  private async execute(keys: readonly string[]): Promise<BatchResult> {
    const ticket = this.roundTicket;
    this.roundTicket = undefined;
    const alsoReport = this.roundStatusKeys;
    this.roundStatusKeys = undefined;
    const first = this.firstLookQueued;
    this.firstLookQueued = false;
    let why: PassReason = first ? 'first' : (this.wholeReason ?? 'changed');
    this.wholeReason = undefined;
    const scope = new Set(keys);
    // A binding placing a member HPA changed: any workload of the share may be the one it scales.
    if (!first && why === 'changed' && this.touchesHpa(keys)) {
      why = 'hpa';
      for (const key of this.shareKeys()) scope.add(key);
    } else for (const key of this.hpaBindings) scope.add(key);
    for (const key of scope) this.observing.add(key);
    this.observing.add(this.key);
    let handed = false;
    try {
      const desired = await this.desiredOf(scope, why);
      this.keepAssigned(scope, desired);
      const ready = this.health.readiness(this.opts.clock.now().getTime());
      // Within the failure threshold nothing is written and nothing new is reported: the last report stands. The
      // threshold's end is a change of readiness, which wakes every binding.
      if (ready.ready === 'pending') return {};
      if (ready.ready === false) {
        handed = true;
        this.handToStatus(new Set([...scope, ...(alsoReport ?? []), this.key]), {
          ticket,
          looked: { keys: scope, desired },
          first,
        });
        return {};
      }
      if (!(await this.ensureMemberInformers())) {
        const err = new Error(`member cluster "${this.cluster}": API discovery failed`);
        return { failed: new Map(keys.map((key) => [key, err])) };
      }
      // Every kind the desired objects have is watched before anything is decided about it; then plan and write.
      const kinds = new Map<string, KindRef>();
      for (const d of desired.objects) kinds.set(kindKey(d.ref), { apiVersion: d.ref.apiVersion, kind: d.ref.kind });
      await Promise.all([...kinds.values()].map((k) => this.watchKind(k)));
      const plan = planMemberWrites(desired, this.managed, {
        reserved: this.opts.reservedNamespaces,
        // Those in scope, gone ones too: a deleted binding's objects are removed by the batch that looks at it.
        bindings: new Set([...scope].map((key) => formatBindingRef(bindingRefOfKey(key)))),
      });
      for (const d of desired.objects) {
        const mKey = memberKey(d.ref);
        const conflict = plan.conflicts.get(mKey);
        if (conflict === undefined) this.conflicts.delete(mKey);
        else this.conflicts.set(mKey, conflict);
      }
      await this.writer.ensureNamespaces(plan.actions, this.namespaces);
      const outcomes = await this.writer.execute(
        plan.actions,
        (ref) => this.managed.get(kindKey(ref)),
        () => this.stopped,
      );
      const failures = new Map<string, FailedWrite[]>();
      for (const [mKey, outcome] of outcomes) {
        if (!outcome) {
          this.writeErrors.delete(mKey);
          continue;
        }
        this.writeErrors.set(mKey, outcome);
        // A write of no binding's (a namespace) fails every binding of the batch.
        for (const key of outcome.binding ? [objectKey(outcome.binding)] : keys) {
          const list = failures.get(key) ?? [];
          list.push(outcome);
          failures.set(key, list);
        }
      }
      handed = true;
      this.handToStatus(new Set([...scope, ...(alsoReport ?? []), this.key]), {
        ticket,
        looked: { keys: scope, desired },
        first,
      });
      const failed = new Map<string, unknown>();
      const batch = new Set(keys);
      for (const [key, list] of failures) {
        if (batch.has(key)) failed.set(key, new MemberWriteError(this.cluster, list));
        // Looked at beside the batch (a binding placing an HPA): retried as the kit retries the batch's own.
        else if (scope.has(key))
          this.execution.queue.addAfter(key, (this.opts.backoff ?? KUBE_DRIVER_DEFAULTS.backoff).baseMs);
      }
      return { failed };
    } finally {
      if (!handed) {
        ticket?.end();
        for (const key of scope) this.observing.delete(key);
        this.observing.delete(this.key);
        // The first look is over even when it could not write: `start` waits no longer.
        if (first) this.firstPassDone();
      }
    }
  }

  /** What the bindings in `scope` assign here now: their templates followed, whether they place a member HPA. */
  private keepAssigned(scope: ReadonlySet<string>, desired: DesiredState): void {
    const templateNow = new Map<string, string>();
    for (const key of scope) {
      this.assignedKeys.delete(key);
      this.hpaBindings.delete(key);
    }
    for (const a of desired.assigned.values()) {
      const key = objectKey(a.binding);
      this.assignedKeys.add(key);
      if (!a.ref) continue;
      templateNow.set(key, objectKey({ kind: a.ref.kind, namespace: a.ref.namespace, name: a.ref.name }));
      if (a.ref.kind === HPA_TEMPLATE_KIND) this.hpaBindings.add(key);
    }
    for (const key of scope) this.setTemplateOf(key, templateNow.get(key));
  }

  /**
   * The workload status controller's batch: each binding's workload observed in the member's caches (what the
   * execution batch decided, handed on, or what the binding assigns now) and reported, the capacity summary first
   * when the Cluster key is in the batch and it may have changed; then the usage. The Cluster key comes round again
   * after the resync period: pod metrics when due, the usage sampled.
   */
  private async report(keys: readonly string[]): Promise<BatchResult> {
    const handed = this.handoff;
    this.handoff = undefined;
    const first = handed?.first === true;
    const withCluster = keys.includes(this.key);
    const bindingKeys = new Set(keys.filter((k) => k !== this.key));
    // Outside a round, the bindings' reports go with those of the other batches outside the rounds (a binding's
    // clusters in one event); the Cluster key coming round alone publishes its own.
    const pass = handed?.ticket ?? (bindingKeys.size > 0 || first ? this.opts.rounds?.beginOutside() : undefined);
    try {
      const nowMs = this.opts.clock.now().getTime();
      const ready = this.health.readiness(nowMs);
      if (ready.ready === 'pending') return {};
      // What the execution batch decided for the keys it handed on; what the others assign now, looked at here.
      const missing = new Set([...bindingKeys].filter((k) => !handed?.keys.has(k)));
      const desired =
        missing.size === 0
          ? (handed?.desired ?? EMPTY)
          : handed
            ? mergeDesired(handed.desired, await this.desiredOf(missing, 'status'))
            : await this.desiredOf(missing, 'status');
      let current = new Map<string, WorkloadReport>();
      let usage = new Map<string, WorkloadUsed>();
      let usageSources = new Map<string, UsageSource>();
      let patch: ClusterStatusPatch | undefined;
      if (ready.ready === false) {
        patch = ready.patch;
        for (const [key] of desired.assigned) current.set(key, unreachableWorkloadReport(this.cluster));
      } else {
        if (!(await this.ensureMemberInformers())) return {};
        // Observed from here: what changes after is the next batch's.
        for (const key of keys) this.observing.delete(key);
        if (withCluster && first) await this.refreshPodMetrics(namespacesRequestingCpu(desired.objects), nowMs);
        ({
          reports: current,
          usage,
          usageSources,
        } = observeWorkloads({
          cluster: this.cluster,
          desired,
          managed: this.managed,
          conflicts: this.conflicts,
          writeErrors: new Map([...this.writeErrors].map(([k, w]) => [k, w.message])),
          unservedKinds: this.unservedKinds,
          pods: this.podsWithLabel,
          podCpu: this.podCpu,
        }));
        if (withCluster && this.summaryChanged) {
          this.summaryChanged = false;
          patch = observeCluster({
            version: this.health.version,
            nodes: this.nodes,
            pods: this.pods,
            hpas: this.managed.get(HPA_KIND),
            models: effectiveResourceModels({
              resourceModels: this.clusterModels.get({ kind: 'Cluster', namespace: '', name: this.cluster })
                ?.resourceModels,
            }),
          });
        }
      }
      if (this.stopped) return {};
      // The capacity summary ahead of the workloads: a report of pods Pending follows the capacity that explains it.
      const reports: Report[] = [];
      if (patch) {
        const r = this.book.clusterReport(this.cluster, patch, this.opts.clock.now(), this.statusOf);
        if (r) reports.push(r);
      }
      const owned = { has: (c: string) => c === this.cluster };
      const tracked = this.tracked;
      const byMark = [...new Set([...bindingKeys, ...(handed?.keys ?? [])])]
        .filter((key) => key !== this.key)
        .map((key) => ({ key, ref: bindingRefOfKey(key) }))
        .map((k) => ({ ...k, mark: formatBindingRef(k.ref) }))
        .sort((x, y) => (x.mark < y.mark ? -1 : x.mark > y.mark ? 1 : 0));
      for (const { key, ref, mark } of byMark) {
        tracked.delete(key);
        this.usageOf.delete(key);
        this.usageSources.delete(key);
        const b = this.bindingOf(key);
        // Gone: its status went with it.
        if (!b) {
          this.book.forget(ref);
          continue;
        }
        const source = usageSources.get(mark);
        if (source) this.usageSources.set(key, source);
        this.setUsage(key, ref, usage.get(mark));
        const report = current.get(mark);
        const out = this.book.workloadReports({
          ref,
          current: report ? new Map([[this.cluster, report]]) : new Map(),
          owned,
          targetClusters: targetClusterNames(b),
          now: this.opts.clock.now(),
          statusOf: this.statusOf,
        });
        reports.push(...out);
        if (report || out.length > 0 || this.assignedKeys.has(key) || this.book.remembers(ref)) tracked.add(key);
      }
      this.tracked = tracked;
      const stopped = () => this.stopped;
      if (pass) await pass.publish(reports, stopped);
      else await publishReports({ bus: this.opts.bus, reports, stopped });
      if (this.stopped) return {};
      this.health.posted(patch?.resourceSummary || ready.ready === false ? patch : undefined);
      if (bindingKeys.size > 0 || patch) await this.publishUsage(ready.ready === true);
      if (withCluster) {
        if (!first && ready.ready === true && this.metricsDue(nowMs)) await this.refreshUsage(nowMs);
        else await this.sampleUsage();
      }
      if (first) this.firstPassDone();
      return {};
    } finally {
      pass?.end();
      for (const key of keys) this.observing.delete(key);
      for (const key of handed?.keys ?? []) this.observing.delete(key);
    }
  }

  /** Whether pod metrics are to be read again (every metricsPeriodMs). */
  private metricsDue(nowMs: number): boolean {
    const period = this.opts.metricsPeriodMs ?? KUBE_DRIVER_DEFAULTS.metricsPeriodMs;
    return this.lastMetricsMs === undefined || nowMs - this.lastMetricsMs >= period;
  }

  /** The Cluster key came round with nothing to report: the usage last published is sampled (UsageRecorder). */
  private async sampleUsage(): Promise<void> {
    if (this.health.readiness(this.opts.clock.now().getTime()).ready === true)
      await this.opts.usageRecorder?.maybeRecord(this.lastUsage, this.opts.clock.now());
  }

  /** A binding's usage here as last read (none: its workload has no usage here, or the binding left). */
  private setUsage(key: string, ref: BindingRef, used: WorkloadUsed | undefined): void {
    if (used)
      this.usageOf.set(key, {
        binding: { ref, cluster: this.cluster, cpuUsageMilli: used.cpuMilli },
        workload: used.usage,
      });
    else this.usageOf.delete(key);
  }

  /**
   * Pod metrics are due: each binding looked at before has its workload's usage read again from the pods its member
   * object selects now, and the usage is published; the bindings themselves are not looked at. Nothing is read while
   * the cluster is not Ready (its last pass reported it so, and removed its usage).
   */
  private async refreshUsage(nowMs: number): Promise<void> {
    if (this.health.readiness(nowMs).ready !== true || !this.pods) return;
    const namespaces = new Set<string>();
    for (const source of this.usageSources.values()) namespaces.add(source.ref.namespace);
    await this.refreshPodMetrics(namespaces, nowMs);
    for (const [key, source] of this.usageSources) {
      const { ref } = source;
      const view = this.managed.get(kindKey(ref))?.cache.get(`${ref.namespace}/${ref.name}`);
      const pods = view?.binding === undefined ? [] : podsSelected(this.podsWithLabel, ref.namespace, view.selector);
      this.setUsage(
        key,
        bindingRefOfKey(key),
        workloadUsage({ cluster: this.cluster, source, pods, podCpu: this.podCpu }),
      );
    }
    this.looksCounter.inc({ pass: 'usage' }, this.usageSources.size);
    await this.publishUsage(true);
  }

  /**
   * The usage of every binding as last read: to the usage bucket (what is no longer there is deleted, as a cluster
   * not Ready's usage is not known), and while Ready to the gauge and the metric history.
   */
  private async publishUsage(ready: boolean): Promise<void> {
    const bindingUsage: BindingUsage[] = [];
    const usage: WorkloadUsage[] = [];
    for (const u of this.usageOf.values()) {
      bindingUsage.push(u.binding);
      usage.push(u.workload);
    }
    this.lastUsage = usage;
    await this.usageWriter.publish(bindingUsage);
    if (!ready) return;
    this.opts.usageGauge?.update(usage, this.cluster);
    await this.opts.usageRecorder?.maybeRecord(usage, this.opts.clock.now());
  }

  /** Reads pod CPU usage of these namespaces (those of workloads with CPU requests), once per metrics period. */
  private async refreshPodMetrics(namespaces: ReadonlySet<string>, nowMs: number): Promise<void> {
    if (!this.metricsDue(nowMs)) return;
    this.lastMetricsMs = nowMs;
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

/**
 * Why an execution batch looks at what it does: the bindings that changed (`changed`: their own objects, templates,
 * member objects gone, someone else's object where theirs would be), or the cluster's whole share because it is the
 * first look, a change of readiness or of the Cluster's expiry (`inputs`), a namespace gone in the member (`member`),
 * or a binding placing a member HPA changed (`hpa`). The status controller looks on its own (`status`) at a binding whose workload
 * changed in the member after it was applied. Pod metrics due are no reason: usage is read again without a look
 * (`usage`), each counted in `flotilla_kube_member_binding_looks_total`.
 */
export type PassReason = 'changed' | 'first' | 'inputs' | 'member' | 'hpa';

/** Why the bindings were looked at: by the execution controller (PassReason), or by the status controller alone. */
type LookReason = PassReason | 'status';

/** No binding assigns anything here. */
const EMPTY: DesiredState = Object.freeze({ objects: [], assigned: new Map(), namespaces: new Set<string>() });

/** What two looks at different bindings decided, as one. */
function mergeDesired(a: DesiredState, b: DesiredState): DesiredState {
  return {
    objects: [...a.objects, ...b.objects],
    assigned: new Map([...a.assigned, ...b.assigned]),
    namespaces: new Set([...a.namespaces, ...b.namespaces]),
  };
}

/**
 * The namespaces of the workloads among `objects` whose pods request CPU: those whose pod metrics are read. A request
 * that cannot be read is none (the API server refuses the workload, and its report says why).
 */
function namespacesRequestingCpu(objects: readonly DesiredObject[]): Set<string> {
  const namespaces = new Set<string>();
  for (const d of objects) {
    if (d.replicas === undefined || !d.podTemplate || namespaces.has(d.ref.namespace)) continue;
    try {
      if (templatePodRequest(d.podTemplate).cpuMilli > 0) namespaces.add(d.ref.namespace);
    } catch {
      // not a quantity: no usage
    }
  }
  return namespaces;
}

/** A binding's ref from its store key. */
function bindingRefOfKey(key: string): BindingRef {
  const ref = refFromKey(key);
  return { kind: ref.kind, namespace: ref.namespace || undefined, name: ref.name };
}
