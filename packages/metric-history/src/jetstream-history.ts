import { escapeToken, newestSeqOn, readUpTo, type Bus } from '@flotilla/bus';
import { DeliverPolicy } from '@nats-io/jetstream';
import pMap from 'p-map';
import type { HistoryRange, MetricHistorySource, Sample, WorkloadRef } from './sample.js';

/** The subject of one workload's samples: `<prefix>.metrics.<namespace>.<kind>.<name>`, each token escaped. */
export function metricSubject(root: string, w: WorkloadRef): string {
  return `${root}.${escapeToken(w.namespace)}.${escapeToken(w.kind)}.${escapeToken(w.name)}`;
}

/** Publishes a `recordAll` keeps in flight when not told: thousands at once outlast their acks' timeout on a busy server. */
export const RECORD_ALL_IN_FLIGHT = 64;

/** Who recorded a sample: one recorder's samples of an instant are one sample; several recorders' add up. */
export interface RecordOptions {
  /**
   * The part of the workload this recorder sees: the member cluster of a kube member-agent (one agent per cluster,
   * each with its cluster's usage). Unset: the whole workload (the sim agent sums its clusters).
   */
  source?: string;
}

/**
 * The embedded metric history: samples appended to a JetStream stream (one subject per workload), read back by
 * start time. The member-agents record their workloads' usage here every sample interval: the sim agent one sum over
 * its clusters, each kube agent its own cluster's part, and a read adds the parts of each instant up.
 */
export class JetStreamHistory implements MetricHistorySource {
  constructor(private readonly bus: Bus) {}

  /**
   * Appends one sample; the message id (subject, instant and source) makes a repeated report of the same instant by
   * the same source a no-op, while other sources' parts of that instant are kept.
   */
  async record(workload: WorkloadRef, sample: Sample, opts: RecordOptions = {}): Promise<void> {
    const subject = metricSubject(this.bus.names.metricsRoot, workload);
    const msgID = opts.source === undefined ? `${subject}@${sample[0]}` : `${subject}@${sample[0]}/${opts.source}`;
    await this.bus.js.publish(subject, JSON.stringify(sample), { msgID });
  }

  /**
   * Appends many samples of one workload (a seeded history), `inFlight` publishes at a time (RECORD_ALL_IN_FLIGHT):
   * days of minutes published at once waited past their acks' timeout on a busy machine.
   */
  async recordAll(
    workload: WorkloadRef,
    samples: readonly Sample[],
    opts: RecordOptions & { inFlight?: number } = {},
  ): Promise<void> {
    const { inFlight = RECORD_ALL_IN_FLIGHT, ...record } = opts;
    await pMap(samples, (s) => this.record(workload, s, record), { concurrency: inFlight });
  }

  async range(workload: WorkloadRef, r: HistoryRange): Promise<Sample[]> {
    const subject = metricSubject(this.bus.names.metricsRoot, workload);
    const last = await this.bus.jsm.streams
      .getMessage(this.bus.names.metricsStream, { last_by_subj: subject })
      .catch(() => null);
    if (!last) return [];
    const stream = this.bus.names.metricsStream;
    const open = (fromSeq?: number) =>
      this.bus.js.consumers.get(stream, {
        filter_subjects: subject,
        ...(fromSeq
          ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: fromSeq }
          : { deliver_policy: DeliverPolicy.StartTime, opt_start_time: r.start.toISOString() }),
      });
    const endS = r.end.getTime() / 1000;
    const startS = r.start.getTime() / 1000;
    const out: Sample[] = [];
    const newestMatching = () => newestSeqOn(this.bus, stream, subject);
    for await (const m of readUpTo({ stream, open, newestMatching, lastSeq: last.seq })) {
      const s = m.json<Sample>();
      if (s[0] >= startS && s[0] <= endS) out.push(s);
    }
    return sumByInstant(out);
  }
}

/**
 * One sample per instant, oldest first: the parts several sources recorded for one instant (each kube member-agent's
 * cluster) add up to the workload's usage. Samples come in time order per source, but a late retry may land out of
 * order.
 */
export function sumByInstant(samples: readonly Sample[]): Sample[] {
  const sums = new Map<number, number>();
  for (const [t, v] of samples) sums.set(t, (sums.get(t) ?? 0) + v);
  return [...sums].sort(([a], [b]) => a - b).map(([t, v]): Sample => [t, Math.round(v * 1e6) / 1e6]);
}
