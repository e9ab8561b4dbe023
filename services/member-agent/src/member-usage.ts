import { encodeJson, type Bus } from '@flotilla/bus';
import type { Clock } from '@flotilla/runtime';
import { memberUsageKey, type MemberUsage } from '@flotilla/store';
import type { BindingRef } from './report-model.js';

/** One member workload's usage: a binding's ready pods in one cluster, in millicores together. */
export interface BindingUsage {
  ref: BindingRef;
  cluster: string;
  cpuUsageMilli: number;
}

/** Usage writes in flight at once. */
const WRITES_IN_FLIGHT = 64;

export interface MemberUsageWriterOptions {
  bus: Bus;
  clock: Clock;
}

/**
 * Keeps each member workload's latest CPU usage in the bus's `usage` bucket, where the hpa-assigner reads it for
 * FederatedHPA and EffectiveHPA. Both drivers hand it every usage they observed in a pass: it writes what moved since
 * it last wrote it and deletes what it wrote that is gone (a workload removed from a cluster, a cluster not ready).
 * Usage stays out of the binding's status, so a moving pod CPU writes nothing that is mirrored to a host.
 */
export class MemberUsageWriter {
  /** usage key → the usage last written under it. */
  private readonly written = new Map<string, number>();

  constructor(private readonly o: MemberUsageWriterOptions) {}

  /** Returns how many keys were written or deleted. A failed write is tried again on the next pass. */
  async publish(usage: readonly BindingUsage[]): Promise<number> {
    const observedAt = this.o.clock.now().toISOString();
    const seen = new Set<string>();
    const writes: Array<() => Promise<void>> = [];
    for (const u of usage) {
      const key = memberUsageKey(u.ref, u.cluster);
      seen.add(key);
      if (this.written.get(key) === u.cpuUsageMilli) continue;
      const value: MemberUsage = { cpuUsageMilli: u.cpuUsageMilli, observedAt };
      writes.push(async () => {
        await this.o.bus.usage.put(key, encodeJson(value));
        this.written.set(key, u.cpuUsageMilli);
      });
    }
    for (const key of this.written.keys())
      if (!seen.has(key))
        writes.push(async () => {
          await this.o.bus.usage.delete(key);
          this.written.delete(key);
        });
    // Keys are independent: a first pass over many workloads goes out WRITES_IN_FLIGHT at a time, not one round trip
    // after another.
    for (let i = 0; i < writes.length; i += WRITES_IN_FLIGHT)
      await Promise.all(writes.slice(i, i + WRITES_IN_FLIGHT).map((write) => write()));
    return writes.length;
  }
}
