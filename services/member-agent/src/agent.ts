import type { Bus } from '@flotilla/bus';
import type { Clock } from '@flotilla/runtime';
import { Informer, refFromKey, type StatusRecord, type StoredObject } from '@flotilla/store';
import { Registry } from 'prom-client';
import { type AgentLogger, bindingStatusForAgent, withoutPlacement } from './agent-projections.js';
import { ClusterLeases } from './cluster-lease.js';
import { ClusterMetrics } from './cluster-metrics.js';
import { MemberUsageWriter } from './member-usage.js';
import type { StatusLookup } from './report-model.js';
import { SimulatedClusters, type SimulatedClustersOptions } from './sim/cluster-sim.js';
import type { WorkloadUsageGauge } from './usage-metrics.js';
import type { UsageRecorder } from './usage-recorder.js';
import { publishReports } from './publish-reports.js';

export interface SimAgentOptions {
  bus: Bus;
  clock: Clock;
  logger: AgentLogger;
  /** How often the simulated clusters advance and report (SIM_TICK_MS, default 1000). */
  tickMs?: number;
  /** How often each simulated cluster's lease is renewed at most (CLUSTER_LEASE_RENEW_MS, default 10 s). */
  leaseRenewMs?: number;
  sim?: SimulatedClustersOptions;
  /** Exposes each workload's usage per cluster (the Prometheus source's data). */
  usageGauge?: WorkloadUsageGauge;
  /** Records each workload's usage into the metric history once per sample interval (the embedded source). */
  usageRecorder?: UsageRecorder;
  /** The service's registry: each simulated cluster's readiness and capacity are reported there. */
  registry?: Registry;
}

/** Every kind the agent watches in the objects bucket. */
export const WATCHED_KINDS = [
  'Cluster',
  'ResourceBinding',
  'ClusterResourceBinding',
  'HorizontalPodAutoscaler',
] as const;
/** Kinds whose stored status tells a new leader what was already reported. */
const STATUS_KINDS = ['Cluster', 'ResourceBinding', 'ClusterResourceBinding'] as const;
/** How many reports a tick publishes between looks at whether a lease is due (a look costs a pass over the clusters). */
const RENEW_CHECK_EVERY_REPORTS = 100;

/**
 * The `sim` driver: one process simulates every Cluster that has `spec.simulation`. It keeps informers on the
 * clusters, bindings and HPAs, and every tick advances the simulation and publishes the reports that changed.
 * Run one per leadership term: its memory starts from the stored status, so a new leader repeats nothing.
 */
export class SimAgent {
  private readonly objects = new Map<string, Informer<StoredObject>>();
  private readonly statuses = new Map<string, Informer<StatusRecord<Record<string, unknown>>>>();
  private readonly sim: SimulatedClusters;
  private readonly tickMs: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private readonly metrics: ClusterMetrics;
  private readonly leases: ClusterLeases;
  private readonly usageWriter: MemberUsageWriter;
  /** Scheduled ticks ended (failed ones too), and who waits for a count: the barrier of `afterTicks`. */
  private ticksEnded = 0;
  /** Whether a tick got all its reports out: from then on the leases are renewed around every tick's reports. */
  private reportedOnce = false;
  private tickWaiters: Array<{ count: number; resolve(): void }> = [];

  constructor(private readonly opts: SimAgentOptions) {
    this.metrics = ClusterMetrics.of(opts.registry ?? new Registry());
    this.tickMs = opts.tickMs ?? 1000;
    if (!Number.isInteger(this.tickMs) || this.tickMs <= 0)
      throw new RangeError(`tickMs: expected a positive integer, got ${opts.tickMs}`);
    this.leases = new ClusterLeases({
      bus: opts.bus,
      clock: opts.clock,
      driver: 'sim',
      renewIntervalMs: opts.leaseRenewMs,
    });
    this.usageWriter = new MemberUsageWriter({ bus: opts.bus, clock: opts.clock });
    this.sim = new SimulatedClusters({ source: 'flotilla/member-agent/sim', ...opts.sim });
  }

  /** Fills the caches, reports once, then keeps ticking until `stop`. */
  async start(): Promise<void> {
    for (const kind of WATCHED_KINDS)
      this.objects.set(
        kind,
        new Informer<StoredObject>({
          bus: this.opts.bus,
          bucket: 'objects',
          kind,
          ...(kind.endsWith('ResourceBinding') && {
            projection: { name: 'withoutPlacement', project: withoutPlacement },
          }),
        }),
      );
    for (const kind of STATUS_KINDS)
      this.statuses.set(
        kind,
        new Informer<StatusRecord<Record<string, unknown>>>({
          bus: this.opts.bus,
          bucket: 'status',
          kind,
          ...(kind.endsWith('ResourceBinding') && {
            projection: { name: 'bindingStatusForAgent', project: bindingStatusForAgent },
          }),
        }),
      );
    await Promise.all([...this.objects.values(), ...this.statuses.values()].map((i) => i.start()));
    // The stored status, which is what this agent reported once folded: after a hand-over it is known at once.
    const clusterStatus = this.statuses.get('Cluster')!;
    this.metrics.report(function* () {
      for (const [key, { value }] of clusterStatus.cache) yield [refFromKey(key).name, value.status];
    });
    await this.tick();
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.metrics.forget();
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
    for (const i of [...this.objects.values(), ...this.statuses.values()]) i.stop();
    // an agent that is no longer the leader stops speaking for the clusters on /metrics
    this.opts.usageGauge?.update([]);
  }

  /**
   * Resolves once `n` scheduled ticks that begin after this call have ended (a tick running now does not count): the
   * barrier before asserting that ticks changed nothing.
   */
  afterTicks(n: number): Promise<void> {
    const count = this.ticksEnded + (this.running ? 1 : 0) + n;
    return new Promise((resolve) => this.tickWaiters.push({ count, resolve }));
  }

  /**
   * One simulation step: computes the reports and publishes them in order. A report is remembered only once the
   * bus acknowledged it, so a failed publish is offered again (with the same event id) on the next tick. The
   * simulated clusters' leases are renewed around the reports (an agent that cannot reach NATS renews nothing), and
   * once the reports are out the workloads' usage that moved is written to the usage bucket.
   * Returns how many events were published.
   */
  async tick(): Promise<number> {
    const list = (kind: string) => this.objects.get(kind)?.values() ?? [];
    const statusOf: StatusLookup = (kind, namespace, name) =>
      this.statuses.get(kind)?.get({ kind, namespace, name })?.status;
    const reports = await this.sim.reconcileInSlices({
      clusters: list('Cluster'),
      bindings: [...list('ResourceBinding'), ...list('ClusterResourceBinding')],
      hpas: list('HorizontalPodAutoscaler'),
      now: this.opts.clock.now(),
      statusOf,
    });
    const simulated = list('Cluster')
      .filter((c) => (c.spec as { simulation?: unknown } | undefined)?.simulation !== undefined)
      .map((c) => c.metadata.name);
    // Once a tick got its reports out, the leases are renewed before, during and after every later tick's reports
    // (each only once its interval passed): a tick that publishes a burst's thousands of reports on a busy machine,
    // or fails at its first publish until a NATS election ends, must not outlast the grace period of an agent that
    // is alive and reaches NATS. An agent that never got a tick through (crash-looping) renews nothing.
    const renewLeases = async () => {
      if (!this.stopped && this.reportedOnce) await this.leases.renew(simulated);
    };
    await renewLeases();
    const published = await publishReports({
      bus: this.opts.bus,
      reports,
      stopped: () => this.stopped,
      between: { every: RENEW_CHECK_EVERY_REPORTS, call: renewLeases },
    });
    if (!this.stopped) this.reportedOnce = true;
    await renewLeases();
    if (!this.stopped) await this.usageWriter.publish(this.sim.bindingUsage());
    const usage = this.sim.usage();
    this.opts.usageGauge?.update(usage);
    if (!this.stopped) await this.opts.usageRecorder?.maybeRecord(usage, this.opts.clock.now());
    return published;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick()
        .then(
          () => undefined,
          (err: unknown) => this.opts.logger.error({ err }, 'simulation tick failed; its reports will be retried'),
        )
        .finally(() => {
          this.running = undefined;
          this.ticksEnded++;
          const due = this.tickWaiters.filter((w) => w.count <= this.ticksEnded);
          this.tickWaiters = this.tickWaiters.filter((w) => w.count > this.ticksEnded);
          for (const w of due) w.resolve();
          this.schedule();
        });
    }, this.tickMs);
  }
}
