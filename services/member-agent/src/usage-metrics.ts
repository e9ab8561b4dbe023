import { Gauge, type Registry } from 'prom-client';
import type { WorkloadUsage } from './report-model.js';

/** The gauge's name and labels are what `SIM_WORKLOAD_CPU_QUERY` (@flotilla/metric-history) queries. */
export const WORKLOAD_CPU_GAUGE = 'flotilla_sim_workload_cpu_usage_cores';

/**
 * The simulated clusters' workload usage on the agent's /metrics, one series per cluster and workload, so that a
 * Prometheus scraping the agent serves EffectiveHPA history the way cAdvisor does for a real cluster.
 */
export class WorkloadUsageGauge {
  private readonly gauge: Gauge<'cluster' | 'namespace' | 'kind' | 'workload'>;

  constructor(registry: Registry) {
    this.gauge = new Gauge({
      name: WORKLOAD_CPU_GAUGE,
      help: 'CPU used by a workload in a simulated member cluster, in cores',
      labelNames: ['cluster', 'namespace', 'kind', 'workload'],
      registers: [registry],
    });
  }

  /** The series set per cluster, so that one cluster's update leaves the others' as they are. */
  private readonly series = new Map<string, Array<Record<'cluster' | 'namespace' | 'kind' | 'workload', string>>>();

  /**
   * Replaces the series of `cluster` (every series when unset): a workload that left a cluster stops being reported
   * there. A process serving many clusters updates each cluster's on its own.
   */
  update(usage: readonly WorkloadUsage[], cluster?: string): void {
    if (cluster === undefined) {
      this.gauge.reset();
      this.series.clear();
    } else for (const labels of this.series.get(cluster) ?? []) this.gauge.remove(labels);
    if (cluster !== undefined) this.series.delete(cluster);
    for (const u of usage) {
      const labels = { cluster: u.cluster, namespace: u.namespace, kind: u.kind, workload: u.workload };
      this.gauge.set(labels, u.cores);
      const list = this.series.get(u.cluster) ?? [];
      list.push(labels);
      this.series.set(u.cluster, list);
    }
  }
}
