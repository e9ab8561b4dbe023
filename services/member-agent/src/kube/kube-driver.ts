import { createHash } from 'node:crypto';
import { cloudEvent, EventTypes, publishEvent, type Bus } from '@flotilla/bus';
import type { Clock } from '@flotilla/runtime';
import { Registry } from 'prom-client';
import type { AgentLogger } from '../agent.js';
import { ClusterMetrics } from '../cluster-metrics.js';
import type { ClusterStatusPatch, ClusterStatusReportedData } from '../sim/cluster-sim.js';
import { kubeClusterStatus, unreachableClusterStatus } from './cluster-status.js';
import type { KubeClusterApi } from './kube-api.js';

export interface KubeDriverOptions {
  /** The Cluster object (cluster.karmada.io/v1alpha1) this agent speaks for. */
  clusterName: string;
  api: KubeClusterApi;
  bus: Bus;
  clock: Clock;
  logger: AgentLogger;
  /** How often the API server is polled (KUBE_POLL_MS). */
  pollMs: number;
  /** The service's registry: the cluster's readiness and capacity are reported there. */
  registry?: Registry;
}

const sha = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 24);

/**
 * The `kube` driver, scope of this version: it reports one real member cluster's status the way Karmada's cluster
 * status controller does (Ready from whether the API server answers, kubernetesVersion, resourceSummary from nodes
 * and pods), publishing `ClusterStatusReported` only when it changed. Applying bindings to the cluster is not part
 * of this driver; that stays with the simulated clusters.
 */
export class KubeDriver {
  private last: { json: string; link: string; ready: boolean; patch: ClusterStatusPatch } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;

  private readonly metrics: ClusterMetrics;

  constructor(private readonly opts: KubeDriverOptions) {
    this.metrics = ClusterMetrics.of(opts.registry ?? new Registry());
  }

  async start(): Promise<void> {
    this.metrics.report(() => (this.last ? [[this.opts.clusterName, this.last.patch]] : []));
    await this.poll();
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.metrics.forget();
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** Reads the cluster once and publishes its status if it changed; returns whether it published. */
  async poll(): Promise<boolean> {
    let patch: ClusterStatusPatch;
    try {
      const [version, nodes, pods] = await Promise.all([
        this.opts.api.version(),
        this.opts.api.listNodes(),
        this.opts.api.listPods(),
      ]);
      patch = kubeClusterStatus(version, nodes, pods);
    } catch (err) {
      this.opts.logger.warn({ err, cluster: this.opts.clusterName }, 'member cluster did not answer');
      patch = unreachableClusterStatus();
    }
    const json = JSON.stringify(patch);
    if (this.last?.json === json) return false;
    const ready = patch.conditions[0]!.status === 'True';
    const link = sha(`${this.last?.link ?? 'none'}\n${json}`);
    const name = this.opts.clusterName;
    const data: ClusterStatusReportedData = { statusPatch: patch };
    if (this.last?.ready !== ready) {
      data.kubeEvent = ready
        ? {
            type: 'Normal',
            reason: 'ClusterReady',
            message: `cluster ${name} is ready: ${patch.conditions[0]!.message}`,
          }
        : {
            type: 'Warning',
            reason: 'ClusterNotReady',
            message: `cluster ${name} is not ready: ${patch.conditions[0]!.message}`,
          };
    }
    await publishEvent(
      this.opts.bus,
      cloudEvent({
        id: `Cluster//${name}/${EventTypes.ClusterStatusReported}/${link}`,
        source: 'flotilla/member-agent/kube',
        type: EventTypes.ClusterStatusReported,
        kind: 'Cluster',
        name,
        time: this.opts.clock.now(),
        data,
      }),
    );
    this.last = { json, link, ready, patch };
    return true;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.poll()
        .catch((err: unknown) =>
          this.opts.logger.error({ err }, 'publishing the cluster status failed; retrying on the next poll'),
        )
        .finally(() => this.schedule());
    }, this.opts.pollMs);
  }
}
