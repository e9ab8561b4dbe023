import type { ReservedNamespaces } from '@flotilla/api';
import type { Bus } from '@flotilla/bus';
import type { ReadinessSink } from '@flotilla/kube-client';
import type { Clock } from '@flotilla/runtime';
import type { Informers } from '@flotilla/store';
import { Registry } from 'prom-client';
import type { AgentLogger } from '../agent-projections.js';
import { DEFAULT_CLUSTER_LEASE_RENEW_MS } from '../cluster-lease.js';
import { ClusterMetrics } from '../cluster-metrics.js';
import { KubeDriver, MEMBER_CLUSTER_VIEW } from '../kube/kube-driver.js';
import { ManifestCache } from '../kube/member-objects.js';
import type { UsageRecorder } from '../usage-recorder.js';
import type { WorkloadUsageGauge } from '../usage-metrics.js';
import { SimulationSpecError } from './errors.js';
import type { HpaOptions } from './hpa.js';
import { FleetRounds } from './pass-rounds.js';
import { SimulatedMember } from './simulated-member.js';
import { parseSimulation } from './simulation-spec.js';

/** The fleet's defaults, defined once. */
export const SIMULATED_FLEET_DEFAULTS = Object.freeze({
  /** How often the simulated clusters' API servers are probed and their controller-managers run (SIM_TICK_MS). */
  tickMs: 1000,
  /**
   * Writes to a simulated API server cost no network: the kube driver's client-side rate limit (client-go's 50 / 100
   * against a real API server) would only slow the simulation down.
   */
  writes: Object.freeze({ qps: 100_000, burst: 100_000, concurrency: 64 }),
  /**
   * How long the changes that wake the clusters' drivers gather before a round of their passes, in ticks: a burst of
   * bindings costs each cluster a few passes rather than one per binding, and the clusters one binding woke report in
   * one round (folded in one status write). The tick loop gathered a whole tick.
   */
  gatherTicks: 0.5,
});

export interface SimulatedFleetOptions {
  bus: Bus;
  clock: Clock;
  logger: AgentLogger;
  /** The process's shared informers (every cluster's kube driver reads them). */
  informers: Informers;
  /** How often each simulated API server is probed and its HPAs looked at (SIM_TICK_MS, default 1000). */
  tickMs?: number;
  /** How long the changes that wake the drivers gather before a round of passes (default half of tickMs). */
  gatherMs?: number;
  /** How often each simulated cluster's lease is renewed at most (CLUSTER_LEASE_RENEW_MS). */
  leaseRenewMs?: number;
  /** The simulated HPA controllers' sync period (SIM_HPA_SYNC_MS), also how often pod metrics are read. */
  hpaSyncPeriodMs?: number;
  hpa?: HpaOptions;
  reservedNamespaces?: ReservedNamespaces;
  registry?: Registry;
  readiness?: ReadinessSink;
  usageGauge?: WorkloadUsageGauge;
  /** A recorder per cluster (its `source`), as one kube agent per real cluster records its part. */
  usageRecorder?: (cluster: string) => UsageRecorder;
}

interface Member {
  sim: SimulatedMember;
  driver: KubeDriver;
  started: Promise<void>;
  /** `spec.simulation` as last configured (JSON), so an unrelated change does not configure again. */
  simulation: string;
}

/**
 * The `sim` driver: every Cluster with `spec.simulation` becomes a SimulatedMember (an API server, kubelet, HPA
 * controller and metrics-server in memory) behind a KubeDriver of its own, so that simulated clusters run under the
 * same controllers as real ones, in one process. The fleet only creates and removes members as Clusters come and
 * go, tells them their `spec.simulation` (`failed` takes the API server away), and runs their controller-managers'
 * clock; everything Flotilla does with a member cluster is the kube driver's.
 */
export class SimulatedFleet {
  private readonly members = new Map<string, Member>();
  private readonly registry: Registry;
  private readonly tickMs: number;
  private readonly rounds: FleetRounds;
  /** The members' manifests' hashes: a binding's clusters assigned alike hash its manifest once. */
  readonly manifests = new ManifestCache();
  private unsubscribe: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Changes to members are made one at a time, in the order the Clusters changed. */
  private changes: Promise<void> = Promise.resolve();

  constructor(private readonly o: SimulatedFleetOptions) {
    this.registry = o.registry ?? new Registry();
    this.tickMs = o.tickMs ?? SIMULATED_FLEET_DEFAULTS.tickMs;
    if (!Number.isInteger(this.tickMs) || this.tickMs <= 0)
      throw new RangeError(`tickMs: expected a positive integer, got ${o.tickMs}`);
    this.rounds = new FleetRounds({
      bus: o.bus,
      gatherMs: o.gatherMs ?? Math.max(1, Math.round(this.tickMs * SIMULATED_FLEET_DEFAULTS.gatherTicks)),
    });
    // The clusters' gauges are on /metrics from the start, before the first simulated cluster joins.
    ClusterMetrics.of(this.registry);
  }

  /** The simulated member of `cluster`, while it is one (for tests). */
  member(cluster: string): SimulatedMember | undefined {
    return this.members.get(cluster)?.sim;
  }

  /** The kube driver of `cluster`, while it is simulated (for tests). */
  driver(cluster: string): KubeDriver | undefined {
    return this.members.get(cluster)?.driver;
  }

  /** Follows the Clusters; resolves once every simulated cluster present reported once. */
  async start(): Promise<void> {
    const clusters = this.o.informers.objects('Cluster', MEMBER_CLUSTER_VIEW);
    const sub = clusters.subscribe((e) => {
      const name = e.ref.name;
      const simulation = e.type === 'upsert' ? e.value.simulation : undefined;
      this.changes = this.changes.then(() => this.update(name, simulation));
    });
    this.unsubscribe = () => sub.unsubscribe();
    await sub.synced;
    await this.changes;
    await Promise.all([...this.members.values()].map((m) => m.started));
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.unsubscribe?.();
    this.rounds.stop();
    await this.changes;
    await Promise.all([...this.members.values()].map((m) => m.driver.stop()));
    this.members.clear();
  }

  /** A Cluster changed: simulated from now on, its simulation changed, or no longer simulated (or gone). */
  private async update(name: string, simulation: unknown): Promise<void> {
    if (this.stopped) return;
    const have = this.members.get(name);
    if (simulation === undefined) {
      if (!have) return;
      this.members.delete(name);
      await have.driver.stop();
      return;
    }
    const json = JSON.stringify(simulation);
    if (have?.simulation === json) return;
    let spec: ReturnType<typeof parseSimulation> | SimulationSpecError;
    try {
      spec = parseSimulation(simulation);
    } catch (err) {
      if (!(err instanceof SimulationSpecError)) throw err;
      this.o.logger.warn({ cluster: name, err: err.message }, 'simulation cannot run: the cluster is not Ready');
      spec = err;
    }
    if (have) {
      have.simulation = json;
      have.sim.configure(spec);
      // `cluster fail` and `recover` (the API server going away and coming back), a simulation that cannot run: the
      // driver probes now, not at its next poll.
      have.driver.probeNow();
      return;
    }
    const sim = new SimulatedMember({
      cluster: name,
      clock: this.o.clock,
      ...(this.o.hpaSyncPeriodMs !== undefined ? { hpaSyncPeriodMs: this.o.hpaSyncPeriodMs } : {}),
      ...(this.o.hpa ? { hpa: this.o.hpa } : {}),
    });
    sim.configure(spec);
    const driver = new KubeDriver({
      clusterName: name,
      api: sim,
      bus: this.o.bus,
      informers: this.o.informers,
      clock: this.o.clock,
      logger: this.o.logger,
      // A simulated API server goes away and comes back only when its Cluster says so, and that probes at once
      // (`update`): between, a probe is the lease's heartbeat, twice per renewal. A probe a tick was a thousand
      // reconciles a second at 1,000 clusters.
      pollMs: Math.floor((this.o.leaseRenewMs ?? DEFAULT_CLUSTER_LEASE_RENEW_MS) / 2),
      failureThresholdMs: 0,
      successThresholdMs: 0,
      metricsPeriodMs: this.o.hpaSyncPeriodMs,
      // Time passes inside a simulated cluster (HPAs, loads) without a watch event: a pass each tick sees it.
      resyncMs: Math.max(1000, this.tickMs),
      ...(this.o.leaseRenewMs !== undefined ? { leaseRenewMs: this.o.leaseRenewMs } : {}),
      writes: SIMULATED_FLEET_DEFAULTS.writes,
      registry: this.registry,
      ...(this.o.readiness ? { readiness: this.o.readiness } : {}),
      ...(this.o.usageGauge ? { usageGauge: this.o.usageGauge } : {}),
      ...(this.o.usageRecorder ? { usageRecorder: this.o.usageRecorder(name) } : {}),
      ...(this.o.reservedNamespaces ? { reservedNamespaces: this.o.reservedNamespaces } : {}),
      rounds: this.rounds,
      manifests: this.manifests,
      leaseDriver: 'sim',
    });
    const member: Member = { sim, driver, simulation: json, started: Promise.resolve() };
    this.members.set(name, member);
    member.started = driver.start().catch((err: unknown) => {
      this.o.logger.error({ cluster: name, err }, 'simulated cluster did not start');
    });
  }

  /** The simulated controller-managers' clock: each member's HPAs that are due run. */
  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      for (const m of this.members.values()) m.sim.syncHpas();
      this.schedule();
    }, this.tickMs);
  }
}
