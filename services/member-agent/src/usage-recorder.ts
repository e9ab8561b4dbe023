import type { RecordOptions, Sample, WorkloadRef } from '@flotilla/metric-history';
import type { WorkloadUsage } from './report-model.js';

/** Where samples go: `JetStreamHistory` in the service. */
export interface HistorySink {
  record(workload: WorkloadRef, sample: Sample, opts?: RecordOptions): Promise<void>;
}

/**
 * Records each workload's usage, summed over its clusters, once per sample interval into the metric history.
 * Samples carry the interval's start as their time, so every agent (a new leader, a restarted one) writes the same
 * timestamp for the same interval and the history's message ids drop the repeat. A kube agent sees one cluster: it
 * records with `source` (its cluster), so that the other clusters' agents' parts of the same instant are kept and
 * added up, not dropped as repeats. A failed write is retried on the next tick of the same interval.
 */
export class UsageRecorder {
  private lastSlot: number | undefined;

  constructor(
    private readonly sink: HistorySink,
    private readonly intervalMs: number,
    private readonly opts: RecordOptions = {},
  ) {
    if (!Number.isInteger(intervalMs) || intervalMs < 1000 || intervalMs % 1000 !== 0) {
      throw new RangeError(`intervalMs: expected whole seconds of at least 1 s, got ${intervalMs}`);
    }
  }

  /** Returns how many samples were written (0 when this interval is already recorded). */
  async maybeRecord(usage: readonly WorkloadUsage[], now: Date): Promise<number> {
    const slot = Math.floor(now.getTime() / this.intervalMs);
    if (slot === this.lastSlot) return 0;
    const sums = new Map<string, { ref: WorkloadRef; cores: number }>();
    for (const u of usage) {
      const key = `${u.namespace}/${u.kind}/${u.workload}`;
      const entry = sums.get(key) ?? { ref: { namespace: u.namespace, kind: u.kind, name: u.workload }, cores: 0 };
      entry.cores += u.cores;
      sums.set(key, entry);
    }
    const t = (slot * this.intervalMs) / 1000;
    for (const { ref, cores } of sums.values())
      await this.sink.record(ref, [t, Math.round(cores * 1e6) / 1e6], this.opts);
    this.lastSlot = slot;
    return sums.size;
  }
}
