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

  /** Replaces every series: a workload that left a cluster stops being reported there. */
  update(usage: readonly WorkloadUsage[]): void {
    this.gauge.reset();
    for (const u of usage) {
      this.gauge.set({ cluster: u.cluster, namespace: u.namespace, kind: u.kind, workload: u.workload }, u.cores);
    }
  }
}
