/** Why the replica calculator could not turn a metric into a proposal; Kubernetes then marks the metric invalid. */
export type MetricErrorReason = 'MissingRequest' | 'NoMetrics' | 'NoUsableMetrics' | 'NoPods' | 'InvalidTarget';

/** A metric that yields no replica proposal this round; `field` names the input at fault (`pods[2].requestMilli`). */
export class MetricComputationError extends Error {
  constructor(
    readonly reason: MetricErrorReason,
    message: string,
    readonly field?: string,
  ) {
    super(field ? `${field}: ${message}` : message);
    this.name = 'MetricComputationError';
  }
}

/** Karmada's FederatedHPA found no replicas in any Ready member cluster, so there is nothing to calibrate against. */
export class NoMemberReplicasError extends Error {
  constructor(readonly clusters: readonly string[]) {
    super(
      `failed to get replicas in any of clusters (ready clusters: ${clusters.length ? clusters.join(', ') : 'none'})`,
    );
    this.name = 'NoMemberReplicasError';
  }
}

/** Crane's prediction adapter found no positive forecast inside the prediction window. */
export class OutdatedTimeSeriesError extends Error {
  constructor(
    readonly windowStartSeconds: number,
    readonly windowEndSeconds: number,
  ) {
    super(`TimeSeries is outdated: no positive sample in [${windowStartSeconds}, ${windowEndSeconds}]`);
    this.name = 'OutdatedTimeSeriesError';
  }
}
