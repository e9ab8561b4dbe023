/** Some workloads of a rebalancer could not be looked up or written; they stay pending and the pass is retried. */
export class RebalanceRetryError extends Error {
  constructor(
    readonly rebalancer: string,
    readonly failures: ReadonlyArray<{ workload: { kind: string; namespace?: string; name: string }; error: string }>,
  ) {
    const first = failures[0];
    super(
      `WorkloadRebalancer ${rebalancer}: ${failures.length} workload${failures.length === 1 ? '' : 's'} to retry` +
        (first
          ? ` (first: ${first.workload.kind} ${first.workload.namespace ? `${first.workload.namespace}/` : ''}${first.workload.name}: ${first.error})`
          : ''),
    );
    this.name = 'RebalanceRetryError';
  }
}
