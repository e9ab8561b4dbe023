import { type ClusterSpec, effectiveResourceModels, type ReservedNamespaces, type ResourceModel } from '@flotilla/api';
import { type Bus, publishEvent } from '@flotilla/bus';
import { Controllers } from '@flotilla/catalogue';
import { type Controller, defineController, type InvolvesObjects } from '@flotilla/controller';
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
import { bindingKey, type Report, ReportBook, readyReasonIsExpiry, targetClusterNames } from '../reports.js';
import type { UsageRecorder } from '../usage-recorder.js';
import type { WorkloadUsageGauge } from '../usage-metrics.js';
import { type KubeNode, type KubePod, type NodeView, nodeView, podView, templatePodRequest } from './cluster-status.js';
import { ClusterStatusController } from './cluster-status-controller.js';
import { BindingRouter } from './binding-router.js';
import { KeyRouter } from './key-router.js';
import { kubeDriverMetrics } from './kube-metrics.js';
import type { MemberClusterApi } from './kube-api.js';
import { type DesiredObject, desiredMemberObjects, formatBindingRef, ManifestCache } from './member-objects.js';
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

/** The controller's name: the `controller` label of its metrics, the source of its events. */
export const KUBE_MEMBER_CONTROLLER = Controllers.kubeMember;

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
  /** A full reconcile at least this often, besides the one every change triggers (default 30 s). */
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
 * A member cluster's driver, real or simulated (`SimulatedFleet` runs one per simulated cluster), as two controllers
 * of the kit keyed by its Cluster. ClusterStatusController probes the API server (`/readyz`, version) and keeps the
 * cluster's readiness and lease. The execution controller (KUBE_MEMBER_CONTROLLER) keeps informers on nodes, pods,
 * namespaces and the kinds it applies, applies what the bindings assign to its cluster by server-side apply, removes
 * what is no longer assigned, and reports the Cluster's capacity and each binding's workload (through the ReportBook).
 *
 * A change on either side (the process's shared informers on the bindings, their templates and statuses and the
 * Clusters; the member informers), a change of readiness and a periodic resync queue a pass, and one reconcile passes
 * over the bindings that changed (or the cluster's whole share): plan (planMemberWrites), write (MemberWriter), observe
 * (observeWorkloads, observeCluster), publish. Writes that fail are reported in the bindings' status, and the reconcile
 * then fails with a MemberWriteError: retried with backoff, a Warning event on each binding concerned,
 * `flotilla_reconcile_total{controller="kube-member",result="error"}`.
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
  private readonly controller: Controller;
  private readonly key: string;
  private nodes: KubeInformer<NodeView> | undefined;
  private pods: KubeInformer<PodView> | undefined;
  private namespaces: KubeInformer<string> | undefined;
  private readonly managed = new Map<string, KubeInformer<MemberObjectView>>();
  /** Kinds a binding asks for that the member cluster does not serve (or refused to list), with why. */
  private readonly unservedKinds = new Map<string, string>();
  /** The bindings (by store key) that assigned this cluster at the last pass: their changes wake it. */
  private assignedKeys = new Set<string>();
  /**
   * The cluster -> bindings index: the bindings (by store key) whose `spec.clusters` names this cluster now, kept
   * from the binding informers' events. A pass looks at these and at those it reported before (`tracked`), not at
   * every binding of the installation: in a process serving many clusters, each pass costs its cluster's share.
   */
  private readonly assigning = new Set<string>();
  /**
   * The bindings a pass looks at besides `assigning`: those this driver reported for (a removal is reported once they
   * leave), or that assigned the cluster at the last pass. Undefined until the first pass, which looks at every
   * binding (what an earlier agent reported for this cluster is in the stored status of bindings now elsewhere).
   */
  private tracked: Set<string> | undefined;
  /** The last failed write per member object, reported in the binding's aggregated status until it succeeds. */
  private readonly writeErrors = new Map<string, FailedWrite>();
  private readonly writer: MemberWriter;
  private readonly manifests: ManifestCache;
  private podCpu = new Map<string, Map<string, number> | undefined>();
  /**
   * Changes counted as they come, and those the last pass saw: a resync with nothing unseen costs nothing but the
   * usage sample (a simulated cluster's resync every tick made it a pass over its whole share a second). Inputs
   * (bindings, templates, the Cluster, readiness) count as seen from the pass's start; the member cluster's objects
   * from its observation, so the echo of its own writes, which a simulated member delivers before the pass observes,
   * asks for no second pass. A real member's echo comes later and asks for one. `inputs` and `member` (namespaces,
   * deletes, someone else's objects) ask for a look at the whole share; `cluster` (nodes and pods: the capacity
   * summary) for a pass, which reports the summary, over the bindings that changed (a pod's own wakes its workload's).
   */
  private readonly changes = { inputs: 1, member: 0, cluster: 0 };
  private seen = { inputs: 0, member: 0, cluster: 0 };
  /** The usage of the last whole pass, sampled again by a pass that skips (UsageRecorder's interval). */
  private lastUsage: WorkloadUsage[] = [];
  private lastMetricsMs: number | undefined;
  /** The last metrics.k8s.io error per namespace: logged when it changes, not every period. */
  private readonly metricsErrors = new Map<string, string>();
  private stopped = false;
  /** Ends this driver's routes of binding changes (BindingRouter). */
  private unroute: (() => void) | undefined;
  /** Bindings (store keys) that changed since the pass that last looked at them, here or in the member cluster. */
  private readonly dirty = new Set<string>();
  /** While a pass over some bindings runs: which, and whether it observed the member cluster yet. */
  private passScope: { keys: Pick<ReadonlySet<string>, 'has'>; observed: boolean } | undefined;
  /** binding (store key) → the template (store key) it names here, and each template's bindings (for its changes). */
  private readonly templateOf = new Map<string, string>();
  private readonly templateUsers = new Map<string, Set<string>>();
  /** The bindings (store keys) placing a HorizontalPodAutoscaler here: every pass looks at them. */
  private readonly hpaBindings = new Set<string>();
  /** By binding (store key): its usage here as of the pass that last looked at it. */
  private readonly usageOf = new Map<string, { binding: BindingUsage; workload: WorkloadUsage }>();
  /** By binding (store key): where its workload's usage is read from (`refreshUsage`), for a workload requesting CPU. */
  private readonly usageSources = new Map<string, UsageSource>();
  private looks = 0;
  /** A round (or reconcileNow) asked for the next pass: with rounds, other reconciles join the next round instead. */
  private passAsked = false;
  /** Whether the driver joined the next round and it did not open yet (`rounds`). */
  private joined = false;
  /** Settles once the pass of the round the driver joined is queued (for `idle`). */
  private gathering: Promise<void> | undefined;
  /** What settles each `gathering` not settled yet (a stopping driver settles them). */
  private readonly finishes = new Set<() => void>();
  /** The bindings of the round the driver's next pass belongs to, taken from `dirty` when it opened. */
  private roundTaken: Set<string> | undefined;
  /** The round's hold on the driver's next pass, taken when the round queued it (the pass itself may start later). */
  private roundTicket: PassReports | undefined;
  /** Probes, readiness and the lease (Karmada's cluster status controller, keyed by this Cluster). */
  private readonly health: ClusterStatusController;
  private readonly usageWriter: MemberUsageWriter;
  private readonly looksCounter: Counter<'pass'>;
  /** flotilla_kube_member_binding_wakes_total's series, one per reason (a wake is counted without hashing labels). */
  private readonly wakes: Record<WakeReason, { inc(): void }>;
  /** Settles when the first reconcile ended (what `start` waits for, not the passes its own writes queue). */
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
    const wakes = kubeDriverMetrics(this.registry).bindingWakes;
    this.wakes = Object.fromEntries(WAKE_REASONS.map((reason) => [reason, wakes.labels({ reason })])) as Record<
      WakeReason,
      { inc(): void }
    >;
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
      onReadinessChange: () => this.kick(),
      onAnswersAgain: () => this.wakeInformers(),
    });
    const backoff = opts.backoff ?? KUBE_DRIVER_DEFAULTS.backoff;
    this.controller = defineController({
      name: KUBE_MEMBER_CONTROLLER,
      watches: [
        {
          source: ownCluster,
          // Counted as a change (its resource models grade the nodes anew), so the pass it asks for looks.
          onChange: () => this.kick(),
        },
        // The bindings, their statuses and this Cluster's status come through the process's routers (`start`), which
        // hand a change to the drivers it concerns only.
      ],
      keys: () => [this.key],
      reconcile: () => this.reconcile().finally(this.firstPassDone),
      resyncMs: opts.resyncMs ?? KUBE_DRIVER_DEFAULTS.resyncMs,
      resyncSpread: false,
      baseBackoffMs: backoff.baseMs,
      maxBackoffMs: backoff.maxMs,
      logger: opts.logger,
      registry: this.registry,
      failureEvents: { publish: (e) => publishEvent(opts.bus, e), objectOf: refFromKey },
    });
  }

  private get cluster(): string {
    return this.opts.clusterName;
  }

  /** How many bindings its passes looked at, counted once a pass (for tests: a change costs its own bindings' look). */
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

  /** Probes, fills the caches and reconciles once, then follows changes until `stop`. */
  async start(): Promise<void> {
    // The bindings that assign this cluster now, or did before (one that left it is reported removed).
    const routes = this.bindings.map((informer) =>
      // The router calls only for a binding that names this cluster now or did before: either way a pass looks.
      BindingRouter.of(informer).register(this.cluster, (e, namesCluster) => {
        if (namesCluster) this.assigning.add(e.key);
        else this.assigning.delete(e.key);
        this.kickBinding(e.key, 'binding');
      }),
    );
    // The scheduler set this cluster Ready=Unknown (this agent was cut off): report again at once.
    const unwatchStatus = KeyRouter.of(this.statuses.get('Cluster')!).watch(this.key, (e) => {
      if (e.type === 'upsert' && readyReasonIsExpiry(this.statusOf('Cluster', undefined, this.cluster))) this.kick();
    });
    // Read for what was reported already (after a restart): synced before the first pass.
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
    await this.controller.start();
    await this.firstPass;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unroute?.();
    for (const finish of [...this.finishes]) finish();
    this.roundTicket?.end();
    this.roundTicket = undefined;
    await this.health.stop();
    await this.controller.stop();
    // After the last pass (which may have followed another kind): the template informers are let go.
    for (const t of this.templates.values()) t.release();
    this.templates.clear();
    await Promise.all([this.nodes, this.pods, this.namespaces, ...this.managed.values()].map((i) => i?.stop()));
    this.opts.usageGauge?.update([], this.cluster);
  }

  /** The API server may have gone away or come back (a simulated cluster's `fail` or `recover`): probe it now. */
  probeNow(): void {
    this.health.probeNow();
  }

  /** Runs one reconcile now (after any running one) and waits for it. */
  async reconcileNow(): Promise<void> {
    this.changes.inputs++;
    this.passAsked = true;
    this.controller.enqueue(this.key);
    await this.controller.idle();
  }

  /**
   * A binding's inputs or member objects changed: a pass looks at it (and at the others that changed), not at the
   * cluster's whole share. Its own writes' echo, which a simulated member delivers before the pass observes, is no
   * change.
   */
  private kickBinding(key: string, reason: WakeReason): void {
    if (this.stopped) return;
    const echo = reason !== 'binding' && reason !== 'template';
    if (echo && this.passScope && !this.passScope.observed && this.passScope.keys.has(key)) return;
    if (!this.dirty.has(key)) this.wakes[reason].inc();
    this.dirty.add(key);
    this.wake();
  }

  /** Something changed: reconcile (changes arriving while one runs are folded into one more pass). */
  private kick(from: keyof KubeDriver['changes'] = 'inputs'): void {
    if (this.stopped) return;
    this.changes[from]++;
    this.wake();
  }

  /** A pass is wanted: in the next round with rounds, else queued at once. */
  private wake(): void {
    if (this.opts.rounds) this.joinRound(this.opts.rounds);
    else this.controller.enqueue(this.key);
  }

  /** Waits for the next round of passes (once, however often asked before it opens). */
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
      // What a pass saw while waiting for the round (its own writes' echo) needs no other.
      if (this.stopped || !this.hasWork()) {
        finish();
        return undefined;
      }
      // The round's bindings are those changed by now: a change while its passes are being queued is the next's, for
      // every cluster of the binding alike.
      this.roundTaken = new Set([...(this.roundTaken ?? []), ...this.dirty]);
      this.dirty.clear();
      return () => {
        this.passAsked = true;
        // The round waits for this pass from now, not from when it starts: the key may be busy with a reconcile that
        // is no round's (the end of the last round's pass, recording usage; a resync), and the pass runs after it.
        // Counted from its start, the round ended without it, and its reports went out with the next round's: a
        // binding's clusters in two events, for 2-8 % of bench/scheduler-e2e's bindings in 4 runs of 7.
        this.roundTicket ??= rounds.begin();
        this.controller.enqueue(this.key);
        finish();
      };
    });
  }

  /** Resolves once no change is being gathered and no pass is queued or running (for tests). */
  async idle(): Promise<void> {
    for (;;) {
      await this.gathering;
      await this.controller.idle();
      if (!this.gathering) return;
    }
  }

  /** What every member informer is given: changes queue a reconcile, errors probe, expiries are logged. */
  private informerOptions(what: string) {
    return {
      name: what,
      registry: this.registry,
      ...(this.opts.readiness ? { readiness: this.opts.readiness } : {}),
      onChange: () => this.kick('member'),
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
      // Nodes and pods make the capacity summary: a change asks for a pass (which reports it), not a whole look.
      this.nodes ??= await api.informer('v1', 'Node', {
        project: (raw) => nodeView(raw as KubeNode),
        ...common('nodes'),
        onChange: () => this.kick('cluster'),
      });
      if (!this.pods) {
        this.pods = await api.informer('v1', 'Pod', {
          project: (raw) => podView(raw as KubePod),
          indexers: { [POD_LABEL_INDEX.name]: POD_LABEL_INDEX.values },
          ...common('pods'),
          onChange: () => this.kick('cluster'),
        });
        // A pod's change is its workload's (its pending count): that binding is looked at, not the whole share.
        this.pods.subscribe(this.onPod);
      }
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
        // Its changes come by key (below): a change of a binding's own object is that binding's.
        onChange: () => undefined,
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
      if (binding !== undefined) this.kickBinding(binding, 'member-object');
      else if (!view) this.kick('member');
      // Someone else's object: a conflict may have come or gone for the bindings that would have it (a member object
      // is named as its template), and no other binding. Not the whole share: a real cluster's own workloads
      // (kube-system's) change all the time.
      else for (const user of this.templateUsers.get(objectKey(view.ref)) ?? []) this.kickBinding(user, 'other-object');
    });
    void informer.start();
    await informer.waitForSync(FIRST_SYNC_WAIT_MS);
    return informer;
  }

  /** A pod came, changed or went: the bindings of the workloads that select it are looked at again. */
  private readonly onPod = (e: KubeInformerEvent<PodView>): void => {
    const pod = e.type === 'upsert' ? this.pods?.cache.get(e.key) : e.deleted;
    if (!pod) return;
    for (const mark of markedWorkloadsSelecting(pod, this.managed.values())) {
      const binding = bindingKeyOfMark(mark);
      if (binding !== undefined) this.kickBinding(binding, 'pod');
    }
  };

  private templateLookup = (ref: { kind: string; namespace: string; name: string }) =>
    this.templates.get(ref.kind)?.informer.get(ref);

  /** A template of this cluster's share changed: its bindings here are looked at again. */
  private readonly onTemplate = (e: { key: string }) => {
    for (const binding of this.templateUsers.get(e.key) ?? []) this.kickBinding(binding, 'template');
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

  /**
   * The bindings a pass looks at: on the first, every binding; then those assigning this cluster (the index) and
   * those it tracks (reported for, or assigned at the last pass), the ones gone and those in `except` left out.
   */
  private bindingsToLookAt(except?: ReadonlySet<string>): StoredObject[] {
    const out: StoredObject[] = [];
    if (this.tracked === undefined) {
      if (!except?.size) return this.bindings.flatMap((i) => i.values());
      for (const i of this.bindings) for (const b of i.values()) if (!except.has(objectKey(refOf(b)))) out.push(b);
      return out;
    }
    for (const key of new Set([...this.assigning, ...this.tracked])) {
      if (except?.has(key)) continue;
      const b = this.bindingOf(key);
      if (b) out.push(b);
    }
    return out;
  }

  private statusOf: StatusLookup = (kind, namespace, name) =>
    this.statuses.get(kind)?.get({ kind, namespace, name })?.status;

  /**
   * One pass, over the bindings that changed or the cluster's whole share: 1. what they assign here; 2. readiness
   * decides whether to look at all; 3. plan
   * and write; 4. observe the workloads and the cluster; 5. publish the reports and usage; 6. fail (for a retry and
   * the bindings' Warning events) if a write failed.
   */
  private async reconcile(): Promise<void> {
    // The round's hold on this pass, if a round queued it: let go of on every way out.
    const ticket = this.roundTicket;
    this.roundTicket = undefined;
    if (this.stopped) {
      ticket?.end();
      return;
    }
    const nowMs = this.opts.clock.now().getTime();
    // Pod metrics due: the usage of every binding looked at before is read again from its workload's pods, without a
    // look at the bindings (their reports do not depend on metrics). The first pass reads them itself.
    if (this.tracked !== undefined && this.metricsDue(nowMs))
      try {
        await this.refreshUsage(nowMs);
      } catch (err) {
        ticket?.end();
        throw err;
      }
    // With rounds, only a round's pass (or the first, which `start` waits for) looks: a resync or a retry that finds
    // something to do joins the next round, so the passes of a binding's clusters report together.
    const asked = this.passAsked;
    this.passAsked = false;
    if (this.opts.rounds && !asked && this.tracked !== undefined) {
      ticket?.end();
      if (this.hasWork()) this.joinRound(this.opts.rounds);
      else await this.sampleUsage();
      return;
    }
    if (!this.hasWork()) {
      ticket?.end();
      await this.sampleUsage();
      return;
    }
    // The cluster's whole share, or only the bindings that changed (and every member HPA's binding, which decides
    // whose replicas the HPA owns): whole on the first pass, after a change of readiness or of the Cluster, of a
    // namespace or of someone else's object in the member (PassReason).
    const pending = this.roundTaken ?? this.dirty;
    const why = this.passReason(pending);
    const scope = why === 'changed' ? new Set([...pending, ...this.hpaBindings]) : undefined;
    const taken = [...pending];
    if (this.roundTaken) this.roundTaken = undefined;
    else this.dirty.clear();
    // A pass that fails or stops early leaves them unseen: the retry (or the next resync) looks again.
    const seen = { inputs: this.changes.inputs, member: this.changes.member, cluster: this.changes.cluster };
    const pass = ticket ?? this.opts.rounds?.beginOutside();
    let done = false;
    try {
      done = await this.passOver(scope, seen, why, pass);
      if (done) this.seen = seen;
    } finally {
      pass?.end();
      this.passScope = undefined;
      if (!done) for (const key of taken) this.dirty.add(key);
    }
  }

  /** Why the pass looks at the cluster's whole share (the first reason that holds), or `changed` when it need not. */
  private passReason(pending: ReadonlySet<string>): PassReason {
    if (this.tracked === undefined) return 'first';
    if (this.changes.inputs !== this.seen.inputs) return 'inputs';
    if (this.changes.member !== this.seen.member) return 'member';
    if (this.touchesHpa(pending)) return 'hpa';
    return 'changed';
  }

  /** Whether a change came that no pass saw yet. */
  private hasWork(): boolean {
    return (
      this.unseen() ||
      this.changes.cluster !== this.seen.cluster ||
      this.dirty.size > 0 ||
      (this.roundTaken?.size ?? 0) > 0
    );
  }

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

  /** A pass that skips samples the usage of the last whole pass (UsageRecorder's interval). */
  private async sampleUsage(): Promise<void> {
    if (this.health.readiness(this.opts.clock.now().getTime()).ready === true)
      await this.opts.usageRecorder?.maybeRecord(this.lastUsage, this.opts.clock.now());
  }

  /** Whether a change came that no whole pass saw yet (one that only a look at the cluster's whole share sees). */
  private unseen(): boolean {
    return this.changes.inputs !== this.seen.inputs || this.changes.member !== this.seen.member;
  }

  /** Whether pod metrics are to be read again (every metricsPeriodMs). */
  private metricsDue(nowMs: number): boolean {
    const period = this.opts.metricsPeriodMs ?? KUBE_DRIVER_DEFAULTS.metricsPeriodMs;
    return this.lastMetricsMs === undefined || nowMs - this.lastMetricsMs >= period;
  }

  /**
   * One pass over the bindings in `scope` (store keys), or over the cluster's whole share when there is none (see
   * `reconcile`); whether it got through, `marks.member` set at observing.
   */
  private async passOver(
    scope: ReadonlySet<string> | undefined,
    marks: KubeDriver['seen'],
    why: PassReason,
    pass?: PassReports,
  ): Promise<boolean> {
    // 1. Desired: of the cluster's share, or of the bindings in `scope` (store keys). A look at the whole share leaves
    // out the bindings that changed since its round took what it looks at (`dirty` now): the other clusters' passes
    // of the round, which began earlier or later, did not or will not see that change either, and the next round's
    // passes all see it. Looked at here, the binding's clusters reported that change in two rounds (two events).
    const deferred = scope ? undefined : new Set(this.dirty);
    const bindings = scope
      ? [...scope].flatMap((key) => {
          const b = this.bindingOf(key);
          return b ? [b] : [];
        })
      : this.bindingsToLookAt(deferred);
    this.passScope = { keys: scope ?? { has: () => true }, observed: false };
    this.looks += bindings.length;
    this.looksCounter.inc({ pass: why }, bindings.length);
    await this.followTemplates(bindings);
    const desired = desiredMemberObjects({
      cluster: this.cluster,
      bindings,
      template: this.templateLookup,
      manifests: this.manifests,
    });
    if (!scope) {
      for (const key of this.assignedKeys) if (!deferred?.has(key)) this.assignedKeys.delete(key);
      for (const key of this.hpaBindings) if (!deferred?.has(key)) this.hpaBindings.delete(key);
    } else for (const key of scope) this.assignedKeys.delete(key);
    const templateNow = new Map<string, string>();
    for (const a of desired.assigned.values()) {
      const key = objectKey(a.binding);
      this.assignedKeys.add(key);
      if (!a.ref) continue;
      templateNow.set(key, objectKey({ kind: a.ref.kind, namespace: a.ref.namespace, name: a.ref.name }));
      if (a.ref.kind === HPA_TEMPLATE_KIND) this.hpaBindings.add(key);
    }
    if (scope) for (const key of scope) if (!templateNow.has(key)) this.hpaBindings.delete(key);
    for (const key of scope ?? [...this.templateOf.keys()])
      if (!templateNow.has(key) && !deferred?.has(key)) this.setTemplateOf(key, undefined);
    for (const [key, template] of templateNow) this.setTemplateOf(key, template);
    const nowMs = this.opts.clock.now().getTime();
    // 2. Readiness.
    const ready = this.health.readiness(nowMs);
    let current = new Map<string, WorkloadReport>();
    /** By binding (formatBindingRef): its workload's usage here, and where it is read from. */
    let usage = new Map<string, WorkloadUsed>();
    let usageSources = new Map<string, UsageSource>();
    let patch: ClusterStatusPatch | undefined;
    let failed: FailedWrite[] = [];
    if (ready.ready === false) {
      patch = ready.patch;
      for (const [key] of desired.assigned) current.set(key, unreachableWorkloadReport(this.cluster));
    } else if (ready.ready === 'pending') {
      // Within the failure threshold nothing is written and nothing new is reported: the last report stands.
      return false;
    } else {
      if (!(await this.ensureMemberInformers())) return false;
      // 3. Every kind the desired objects have is watched before anything is decided about it; then plan and write.
      const kinds = new Map<string, KindRef>();
      for (const d of desired.objects) kinds.set(kindKey(d.ref), { apiVersion: d.ref.apiVersion, kind: d.ref.kind });
      await Promise.all([...kinds.values()].map((k) => this.watchKind(k)));
      const plan = planMemberWrites(desired, this.managed, {
        reserved: this.opts.reservedNamespaces,
        // Those in scope, gone ones too: a deleted binding's objects are removed by the pass that looks at it.
        ...(scope ? { bindings: new Set([...scope].map((key) => formatBindingRef(bindingRefOfKey(key)))) } : {}),
        ...(deferred?.size
          ? { except: new Set([...deferred].map((key) => formatBindingRef(bindingRefOfKey(key)))) }
          : {}),
      });
      await this.writer.ensureNamespaces(plan.actions, this.namespaces);
      const outcomes = await this.writer.execute(
        plan.actions,
        (ref) => this.managed.get(kindKey(ref)),
        () => this.stopped,
      );
      for (const [key, outcome] of outcomes)
        if (outcome) this.writeErrors.set(key, outcome);
        else this.writeErrors.delete(key);
      failed = [...outcomes.values()].filter((o) => o !== undefined);
      // 4. Observe.
      marks.member = this.changes.member;
      marks.cluster = this.changes.cluster;
      if (this.passScope) this.passScope.observed = true;
      // A whole look reads pod metrics when due (the first pass; later ones read them in `refreshUsage`).
      if (!scope) await this.refreshPodMetrics(namespacesRequestingCpu(desired.objects), nowMs);
      const seen = observeWorkloads({
        cluster: this.cluster,
        desired,
        managed: this.managed,
        conflicts: plan.conflicts,
        writeErrors: new Map([...this.writeErrors].map(([k, w]) => [k, w.message])),
        unservedKinds: this.unservedKinds,
        pods: this.podsWithLabel,
        podCpu: this.podCpu,
      });
      ({ reports: current, usage, usageSources } = seen);
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
    if (this.stopped) return false;
    // 5. Publish.
    const reports: Report[] = [];
    if (patch) {
      const r = this.book.clusterReport(this.cluster, patch, this.opts.clock.now(), this.statusOf);
      if (r) reports.push(r);
    }
    const owned = { has: (c: string) => c === this.cluster };
    const present = new Set<string>();
    // What was known of the bindings out of scope stands; those in scope are as this pass saw them.
    const tracked = scope ? (this.tracked ?? new Set<string>()) : new Set<string>();
    if (scope) for (const key of scope) tracked.delete(key);
    else for (const key of deferred ?? []) if (this.tracked?.has(key)) tracked.add(key);
    for (const kept of [this.usageOf, this.usageSources])
      if (!scope) {
        for (const key of kept.keys()) if (!deferred?.has(key)) kept.delete(key);
      } else for (const key of scope) kept.delete(key);
    const byRef = bindings.map((b) => ({ b, ref: refOf(b), key: formatBindingRef(refOf(b)) }));
    for (const { b, ref, key: mark } of byRef.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0))) {
      present.add(bindingKey(ref));
      const key = objectKey(ref);
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
    if (!scope) {
      for (const key of deferred ?? []) present.add(bindingKey(bindingRefOfKey(key)));
      this.book.forgetGone(owned, present);
    }
    this.tracked = tracked;
    const stopped = () => this.stopped;
    if (pass) await pass.publish(reports, stopped);
    else await publishReports({ bus: this.opts.bus, reports, stopped });
    if (this.stopped) return false;
    this.health.posted(patch?.resourceSummary || ready.ready === false ? patch : undefined);
    await this.publishUsage(ready.ready === true);
    // 6. What the member cluster refused is in the bindings' status; the kit retries it and records the events.
    if (failed.length > 0) throw new MemberWriteError(this.cluster, failed);
    return true;
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
 * What a pass looks at and why: the bindings that changed (`changed`: their own objects, templates, member objects and
 * pods), or the cluster's whole share because it is the first pass, a change of readiness or of the Cluster
 * (`inputs`), of a namespace in the member (`member`; someone else's object wakes only the bindings whose object it
 * would be), or a binding placing a member HPA changed (`hpa`). Pod metrics due are no reason:
 * usage is read again without a look (`usage`, counted beside them in `flotilla_kube_member_binding_looks_total`).
 */
export type PassReason = 'changed' | 'first' | 'inputs' | 'member' | 'hpa';

/**
 * What marked a binding for a `changed` look: its own object (`binding`), its template (`template`), its member object
 * (`member-object`, not the echo of the pass that wrote it), someone else's object where its own would be
 * (`other-object`), or a pod of its workload (`pod`). Counted in `flotilla_kube_member_binding_wakes_total`.
 */
const WAKE_REASONS = ['binding', 'template', 'member-object', 'other-object', 'pod'] as const;
export type WakeReason = (typeof WAKE_REASONS)[number];

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

const refOf = (b: StoredObject): BindingRef => ({
  kind: b.kind,
  namespace: b.metadata.namespace || undefined,
  name: b.metadata.name,
});
