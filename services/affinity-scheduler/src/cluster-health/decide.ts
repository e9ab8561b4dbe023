import { CLUSTER_STATUS_NEVER_UPDATED, CLUSTER_STATUS_UNKNOWN, isClusterHealthExpiryReason } from '@flotilla/api/core';
import type { ClusterLease, Condition } from '@flotilla/api';

/** Karmada's `--cluster-monitor-grace-period`: how long a cluster's agent may stay silent before Ready=Unknown. */
export const DEFAULT_CLUSTER_MONITOR_GRACE_MS = 40_000;

/**
 * What the controller remembers of one cluster (Karmada's clusterHealthData): the last heartbeat it saw and when it
 * saw it, by its own clock. Kept in memory only, so a new leader starts every cluster with a full grace period.
 */
export interface ClusterHealthProbe {
  /** The lease's renewTime as last seen; undefined while the cluster has no lease. */
  renewTime?: string;
  /** The last Ready condition an agent posted (status, reason, lastTransitionTime), as a heartbeat of its own. */
  posted?: string;
  /** When this controller first saw that renewTime (or the cluster without a lease), in ms of its own clock. */
  probedAtMs: number;
}

export interface ClusterHealthInput {
  /** The cluster's lease as stored now; undefined when its agent never renewed one. */
  lease?: ClusterLease;
  /** The cluster's Ready condition as stored now. */
  ready?: Pick<Condition, 'status' | 'reason' | 'lastTransitionTime'>;
  /** What was remembered from the last look; undefined the first time this controller sees the cluster. */
  probe?: ClusterHealthProbe;
  nowMs: number;
  graceMs: number;
}

export interface ClusterHealthDecision {
  /** What to remember until the next look. */
  probe: ClusterHealthProbe;
  /** The Ready condition to post: the grace period ran out and Ready is not Unknown yet. */
  expire?: Condition;
  /** When to look again: the grace period still runs. */
  recheckAfterMs?: number;
}

/**
 * Karmada's cluster controller (monitorClusterHealth) over leases. Its two heartbeats: any change of the lease's
 * renewTime, and a new Ready condition posted by an agent (not this controller's own Unknown); each is timed by this
 * controller's clock when it sees it, so clocks of agents and controller need not agree. A cluster without a
 * heartbeat for `graceMs` since then gets Ready=Unknown with Karmada's reason and message, once: an Unknown Ready is
 * left alone, so a silent cluster costs no write. Pure: state and time are passed in.
 */
export function decideClusterHealth(input: ClusterHealthInput): ClusterHealthDecision {
  const renewTime = input.lease?.renewTime;
  const ready = input.ready;
  const posted =
    ready && !isClusterHealthExpiryReason(ready.reason)
      ? `${ready.status}/${ready.reason ?? ''}/${ready.lastTransitionTime ?? ''}`
      : input.probe?.posted;
  const heartbeat = !input.probe || input.probe.renewTime !== renewTime || input.probe.posted !== posted;
  const probe: ClusterHealthProbe = heartbeat
    ? {
        ...(renewTime !== undefined && { renewTime }),
        ...(posted !== undefined && { posted }),
        probedAtMs: input.nowMs,
      }
    : input.probe!;
  const remaining = probe.probedAtMs + input.graceMs - input.nowMs;
  if (remaining > 0) return { probe, recheckAfterMs: remaining };
  if (input.ready?.status === 'Unknown') return { probe };
  const why = input.ready ? CLUSTER_STATUS_UNKNOWN : CLUSTER_STATUS_NEVER_UPDATED;
  return { probe, expire: { type: 'Ready', status: 'Unknown', reason: why.reason, message: why.message } };
}
