import type { Bus } from '@flotilla/bus';
import { Controllers } from '@flotilla/catalogue';
import { type Controller, defineController, type WatchSource } from '@flotilla/controller';
import { statusOf } from '@flotilla/kube-client';
import type { Clock } from '@flotilla/runtime';
import { objectKey } from '@flotilla/store';
import type { Registry } from 'prom-client';
import type { AgentLogger } from '../agent-projections.js';
import { ClusterLeases } from '../cluster-lease.js';
import { ClusterMetrics } from '../cluster-metrics.js';
import type { ClusterStatusPatch } from '../report-model.js';
import { type ProbeHistory, type ProbeResult, probed, type Readiness, readiness } from './cluster-status.js';
import type { MemberClusterApi } from './kube-api.js';

/** The controller's name: the `controller` label of its metrics (one probe a reconcile). */
export const MEMBER_CLUSTER_STATUS_CONTROLLER = Controllers.memberClusterStatus;

export interface ClusterStatusControllerOptions {
  /** The Cluster object this agent speaks for. */
  clusterName: string;
  api: Pick<MemberClusterApi, 'readyz' | 'version' | 'unhealthyReason'>;
  bus: Bus;
  clock: Clock;
  logger: AgentLogger;
  registry: Registry;
  /** The Cluster objects: a change of this one probes at once (the first watch of the kit's controller). */
  clusters: WatchSource;
  /** How often `/readyz` is probed while the cluster answers (KUBE_POLL_MS; Karmada's status update frequency). */
  pollMs: number;
  /** How long probes must fail before the cluster is reported not Ready (KUBE_FAILURE_THRESHOLD_MS). */
  failureThresholdMs: number;
  /** How long probes must succeed before a cluster reported not Ready is Ready again (KUBE_SUCCESS_THRESHOLD_MS). */
  successThresholdMs: number;
  /** How often the cluster's lease is renewed at most, after a probe (CLUSTER_LEASE_RENEW_MS, default 10 s). */
  leaseRenewMs?: number;
  /** The holder identity's driver in the cluster lease (default `kube`; `sim` for simulated clusters). */
  leaseDriver?: 'sim' | 'kube';
  /** Readiness changed: what is written and reported there is decided anew. */
  onReadinessChange(): void;
  /** The API server answers again after failing: the member informers waiting out their backoff list now. */
  onAnswersAgain(): void;
}

/**
 * Karmada's cluster status controller, the part that does not look at the bindings: a kit controller keyed by the
 * Cluster that probes the member API server's `/readyz` (and its version once per recovery) every `pollMs`, sooner
 * while a threshold runs, turns the probes into readiness by the failure and success thresholds, and renews the
 * cluster's lease after each probe once the agent posted the cluster's status. The capacity summary is observed by
 * the execution pass beside the workloads (a round publishes a cluster's summary ahead of its bindings' reports,
 * which the scheduler's assume cache needs), and handed here (`posted`) for `/metrics`.
 */
export class ClusterStatusController {
  private readonly controller: Controller;
  private readonly leases: ClusterLeases;
  private readonly metrics: ClusterMetrics;
  private readonly key: string;
  private history: ProbeHistory = {};
  /**
   * Readiness as of the last probe. A change is what the driver is told of; it must be compared with the last state
   * seen, not recomputed from the old history at the new time (that hides the pending -> not Ready step, and NotReady
   * then waited for the next resync).
   */
  private ready: Readiness['ready'] = true;
  private versionSeen: string | undefined;
  private lastPatch: ClusterStatusPatch | undefined;
  private leaseError: string | undefined;
  private hasPosted = false;
  private stopped = false;

  constructor(private readonly o: ClusterStatusControllerOptions) {
    for (const [name, v] of [
      ['pollMs', o.pollMs],
      ['failureThresholdMs', o.failureThresholdMs],
      ['successThresholdMs', o.successThresholdMs],
    ] as const)
      if (!Number.isInteger(v) || v < 0) throw new RangeError(`${name}: expected an integer >= 0, got ${v}`);
    this.key = objectKey({ kind: 'Cluster', name: o.clusterName });
    this.metrics = ClusterMetrics.of(o.registry);
    this.leases = new ClusterLeases({
      bus: o.bus,
      clock: o.clock,
      driver: o.leaseDriver ?? 'kube',
      renewIntervalMs: o.leaseRenewMs,
    });
    this.controller = defineController({
      name: MEMBER_CLUSTER_STATUS_CONTROLLER,
      // Its own Cluster only: in a process serving many clusters, another's change is not this one's business.
      watches: [
        {
          source: o.clusters,
          onChange: (e, c) => {
            if (e.key === this.key) c.enqueue(this.key);
          },
        },
      ],
      keys: () => [this.key],
      // A probe never fails (an unanswered one is a result): the next is a requeue.
      reconcile: async () => ({ requeueAfterMs: await this.probe() }),
      logger: o.logger,
      registry: o.registry,
    });
  }

  /** The cluster's readiness now, by the probes so far and the thresholds. */
  readiness(nowMs: number): Readiness {
    return readiness(this.history, nowMs, this.o);
  }

  /** The API server's version, as last read (once per recovery). */
  get version(): string | undefined {
    return this.versionSeen;
  }

  /** Probes once and then every `pollMs`; resolves after the first probe. */
  async start(): Promise<void> {
    this.metrics.report(this.reported);
    await this.controller.start();
    await this.controller.idle();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.metrics.forget(this.reported);
    await this.controller.stop();
  }

  /** Something suggests the API server went away (a broken watch): probe now rather than at the next poll. */
  probeNow(): void {
    this.controller.enqueue(this.key);
  }

  /**
   * The agent posted the cluster's status (`patch`: what it reported, if it had a summary or said not Ready): from
   * now on each probe renews the lease, and `/metrics` shows it.
   */
  posted(patch: ClusterStatusPatch | undefined): void {
    this.hasPosted = true;
    if (patch) this.lastPatch = patch;
  }

  /** This cluster on /metrics (ClusterMetrics), while the controller runs. */
  private readonly reported = (): Iterable<[string, ClusterStatusPatch]> =>
    this.lastPatch ? [[this.o.clusterName, this.lastPatch]] : [];

  /** One probe; returns when to probe next (sooner while a threshold runs, so NotReady or Ready comes on time). */
  private async probe(): Promise<number> {
    let result: ProbeResult;
    let why: string | undefined;
    try {
      result = (await this.o.api.readyz()) ? 'ok' : 'unhealthy';
      if (result === 'unhealthy') why = this.o.api.unhealthyReason?.();
      if (result === 'ok' && (this.versionSeen === undefined || this.history.failingSinceMs !== undefined))
        this.versionSeen = await this.o.api.version();
    } catch (err) {
      this.o.logger.warn({ err: statusOf(err).message, cluster: this.o.clusterName }, 'member cluster did not answer');
      result = 'unreachable';
    }
    const before = this.ready;
    const answersAgain = result === 'ok' && this.history.failingSinceMs !== undefined;
    this.history = probed(this.history, result, this.o.clock.now().getTime(), this.o, why);
    const now = this.readiness(this.o.clock.now().getTime());
    this.ready = now.ready;
    if (answersAgain) this.o.onAnswersAgain();
    if (now.ready !== before) this.o.onReadinessChange();
    if (this.hasPosted && !this.stopped) await this.renewLease();
    const recheckInMs = now.ready === true ? undefined : now.recheckInMs;
    return recheckInMs === undefined ? this.o.pollMs : Math.min(this.o.pollMs, recheckInMs);
  }

  /** The heartbeat: this agent is alive and posting the cluster's status (whether the cluster answers or not). */
  private async renewLease(): Promise<void> {
    try {
      await this.leases.renew([this.o.clusterName]);
      if (this.leaseError !== undefined)
        this.o.logger.info({ cluster: this.o.clusterName }, 'cluster lease renewed again');
      this.leaseError = undefined;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (message !== this.leaseError)
        this.o.logger.warn({ cluster: this.o.clusterName, err: message }, 'cluster lease not renewed; retrying');
      this.leaseError = message;
    }
  }
}
