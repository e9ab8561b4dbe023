/** One point of a metric's history: `[unix seconds, value]`, the shape of Prometheus' range-query values. */
export type Sample = readonly [unixSeconds: number, value: number];

/** The workload whose usage a history is about (a resource template, as an EffectiveHPA's scaleTargetRef names it). */
export interface WorkloadRef {
  namespace: string;
  kind: string;
  name: string;
}

/** A time range of history at one resolution. */
export interface HistoryRange {
  start: Date;
  end: Date;
  stepSeconds: number;
}

/** Where an EffectiveHPA's metric history comes from: the embedded stream or a Prometheus server. */
export interface MetricHistorySource {
  /** The workload's usage samples in [start, end], oldest first. */
  range(workload: WorkloadRef, range: HistoryRange): Promise<Sample[]>;
}
