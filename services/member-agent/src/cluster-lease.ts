import { hostname } from 'node:os';
import type { ClusterLease } from '@flotilla/api';
import { encodeJson, type Bus } from '@flotilla/bus';
import type { Clock } from '@flotilla/runtime';
import { objectKey } from '@flotilla/store';

/** Karmada's cluster lease renew interval (a quarter of its 40 s lease): a few renewals fit in the grace period. */
export const DEFAULT_CLUSTER_LEASE_RENEW_MS = 10_000;

export interface ClusterLeasesOptions {
  bus: Bus;
  clock: Clock;
  /** Which driver renews: part of the holder identity, with the host and process. */
  driver: 'sim' | 'kube';
  /** How often each cluster's lease is renewed at most (CLUSTER_LEASE_RENEW_MS). */
  renewIntervalMs?: number;
}

/**
 * The agent's heartbeat per cluster: a key `Cluster._.<name>` in the bus's `leases` bucket with a holder and a renew
 * time. The drivers renew only from the loop that posts the cluster's status, once a pass got through, so an agent
 * that cannot reach NATS, or crashes before it reports anything, renews nothing and the scheduler's cluster-health
 * controller sets the cluster Ready=Unknown after its grace period. Renewals go to their own bucket: nothing mirrors
 * it to a host API server, so a quiet system writes no status.
 */
export class ClusterLeases {
  private readonly renewedAt = new Map<string, number>();
  private readonly renewIntervalMs: number;
  readonly holderIdentity: string;

  constructor(private readonly o: ClusterLeasesOptions) {
    this.renewIntervalMs = o.renewIntervalMs ?? DEFAULT_CLUSTER_LEASE_RENEW_MS;
    if (!Number.isInteger(this.renewIntervalMs) || this.renewIntervalMs <= 0)
      throw new RangeError(`renewIntervalMs: expected a positive integer, got ${o.renewIntervalMs}`);
    this.holderIdentity = `member-agent/${o.driver}@${hostname()}/${process.pid}`;
  }

  /** Renews the leases of `clusters` that are due; forgets the others. Returns how many were written. */
  async renew(clusters: Iterable<string>): Promise<number> {
    const now = this.o.clock.now();
    const nowMs = now.getTime();
    const owned = new Set(clusters);
    for (const c of this.renewedAt.keys()) if (!owned.has(c)) this.renewedAt.delete(c);
    let written = 0;
    for (const cluster of owned) {
      const last = this.renewedAt.get(cluster);
      if (last !== undefined && nowMs - last < this.renewIntervalMs) continue;
      const lease: ClusterLease = { holderIdentity: this.holderIdentity, renewTime: now.toISOString() };
      await this.o.bus.leases.put(objectKey({ kind: 'Cluster', name: cluster }), encodeJson(lease));
      this.renewedAt.set(cluster, nowMs);
      written++;
    }
    return written;
  }
}
