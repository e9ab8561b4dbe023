import { isQuantity, parseQuantity } from '@flotilla/api';
import { perRegistry } from '@flotilla/runtime';
import { Gauge, type Registry } from 'prom-client';

/** One cluster's samples: readiness (1 or 0) and its resource summary in base units (cores, bytes, pods). */
export interface ClusterSamples {
  ready: number;
  allocatable: Record<string, number>;
  allocated: Record<string, number>;
}

const numeric = (list: Record<string, unknown> | undefined): Record<string, number> =>
  Object.fromEntries(
    Object.entries(list ?? {}).flatMap(([resource, q]) => (isQuantity(q) ? [[resource, parseQuantity(q)]] : [])),
  );

/** The parts of a Cluster status (as reported, or as stored after folding) the metrics read. */
export interface ReportedStatus {
  conditions?: ReadonlyArray<{ type: string; status: string }>;
  resourceSummary?: { allocatable?: Record<string, unknown>; allocated?: Record<string, unknown> };
}

/** What a reported Cluster status says, as numbers: Karmada's Ready condition and resourceSummary. */
export function clusterSamples(status: ReportedStatus | undefined): ClusterSamples {
  const ready = status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True' ? 1 : 0;
  return {
    ready,
    allocatable: numeric(status?.resourceSummary?.allocatable),
    allocated: numeric(status?.resourceSummary?.allocated),
  };
}

/** The clusters an agent speaks for, by name, with the status it last reported (or that is stored for them). */
export type ReportedClusters = () => Iterable<[name: string, status: ReportedStatus | undefined]>;

/**
 * What Karmada's users alert on about member clusters (karmada's cluster_ready_state and
 * cluster_*_allocatable / _allocated), under Flotilla's prefix: `flotilla_cluster_ready{cluster}`,
 * `flotilla_cluster_allocatable{cluster,resource}` and `flotilla_cluster_allocated{cluster,resource}`. Read at scrape
 * time from the running driver; a replica that is not the leader reports none.
 */
export class ClusterMetrics {
  /** One per driver that reports (one kube driver per cluster in a process that serves many). */
  private readonly sources = new Set<ReportedClusters>();

  static readonly of = perRegistry((registry) => new ClusterMetrics(registry));

  private constructor(registry: Registry) {
    const samples = () =>
      [...this.sources]
        .flatMap((source) => [...source()])
        .map(([cluster, status]) => ({ cluster, ...clusterSamples(status) }));
    new Gauge({
      name: 'flotilla_cluster_ready',
      help: '1 while the member cluster reports Ready, 0 otherwise',
      labelNames: ['cluster'],
      registers: [registry],
      collect() {
        this.reset();
        for (const s of samples()) this.set({ cluster: s.cluster }, s.ready);
      },
    });
    const summaries = [
      ['flotilla_cluster_allocatable', 'allocatable'],
      ['flotilla_cluster_allocated', 'allocated'],
    ] as const;
    for (const [name, part] of summaries) {
      new Gauge({
        name,
        help: `The member cluster's ${part} resources in base units (cpu in cores, memory in bytes, pods)`,
        labelNames: ['cluster', 'resource'],
        registers: [registry],
        collect() {
          this.reset();
          for (const s of samples())
            for (const [resource, v] of Object.entries(s[part])) this.set({ cluster: s.cluster, resource }, v);
        },
      });
    }
  }

  /** Reports these clusters from now on (a driver's start), beside those of the process's other drivers. */
  report(source: ReportedClusters): void {
    this.sources.add(source);
  }

  /** The driver stopped (leadership ended): another replica reports now. Every source when none is named. */
  forget(source?: ReportedClusters): void {
    if (source) this.sources.delete(source);
    else this.sources.clear();
  }
}
