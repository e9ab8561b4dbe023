import { Controllers } from '@flotilla/catalogue';
import type { ClusterLease, StatusOfKind } from '@flotilla/api';
import { cloudEvent, EventTypes, getJson, type Bus, type CloudEvent } from '@flotilla/bus';
import { defineController, type Controller, type ReconcileResult } from '@flotilla/controller';
import { refFromKey, type CachedKind, type Informer, type StatusRecord } from '@flotilla/store';
import { EVENT_SOURCE } from '../decision-event.js';
import type { SchedulerKit } from '../kit.js';
import { decideClusterHealth, type ClusterHealthProbe } from './decide.js';

export interface ClusterHealthOptions {
  kit: SchedulerKit;
  bus: Bus;
  publish: (e: CloudEvent) => Promise<unknown>;
  clusters: Informer<CachedKind<'Cluster'>>;
  clusterStatus: Informer<StatusRecord<StatusOfKind<'Cluster'>>>;
  clusterLeases: Informer<ClusterLease>;
  /** How long a cluster's agent may renew no lease before its Ready condition becomes Unknown. */
  clusterMonitorGraceMs: number;
}

/**
 * Cluster health (Karmada's cluster controller): a cluster whose agent stopped renewing its lease is set
 * Ready=Unknown (the taints controller then taints it). A cluster, its status or its lease changed is its own key;
 * between renewals it looks again when the grace period would run out.
 */
export function clusterHealthController(o: ClusterHealthOptions): Controller {
  const { kit } = o;
  const healthProbes = new Map<string, ClusterHealthProbe>();
  /** Leases read from the bucket when the watched one looked expired: a lagging watch must not fail a cluster. */
  const leasesRead = new Map<string, ClusterLease>();
  const checkHealth = async (key: string): Promise<ReconcileResult> => {
    const ref = refFromKey(key);
    if (!o.clusters.get(ref)) {
      healthProbes.delete(key);
      leasesRead.delete(key);
      return;
    }
    const status = o.clusterStatus.cache.get(key);
    const conditions = status?.value.status?.conditions;
    const ready = conditions?.find((c) => c.type === 'Ready');
    const decide = (lease: ClusterLease | undefined) =>
      decideClusterHealth({
        lease,
        ready,
        probe: healthProbes.get(key),
        nowMs: kit.now().getTime(),
        graceMs: o.clusterMonitorGraceMs,
      });
    let lease = laterLease(o.clusterLeases.cache.get(key)?.value, leasesRead.get(key));
    let d = decide(lease);
    if (d.expire) {
      // Expiry is decided on the watched cache; a watch that lags (its consumer moved off a killed NATS node) must
      // not fail clusters whose agents renew. So the bucket is read before any expiry, and a lease that cannot be
      // read expires nothing: the reconcile fails and is retried.
      const stored = (await getJson<ClusterLease>(o.bus.leases, key))?.value;
      if (stored && laterLease(lease, stored) !== lease) {
        kit.controller.logger.warn(
          { cluster: ref.name, watched: lease?.renewTime ?? null, stored: stored.renewTime },
          'the lease watch lags behind the bucket; the stored renewal is the heartbeat',
        );
        leasesRead.set(key, stored);
        lease = stored;
        d = decide(lease);
      }
    }
    healthProbes.set(key, d.probe);
    if (d.expire) {
      const silentFor = `${Math.round(o.clusterMonitorGraceMs / 1000)}s`;
      await o.publish(
        cloudEvent({
          // One expiry per renewal seen and stored status: a repeat of this decision is the same message.
          id: `${key}/${EventTypes.ClusterStatusExpired}/${d.probe.renewTime ?? 'none'}/${status?.revision ?? 0}`,
          source: EVENT_SOURCE,
          type: EventTypes.ClusterStatusExpired,
          kind: 'Cluster',
          name: ref.name,
          time: kit.now(),
          data: {
            statusPatch: { conditions: [d.expire] },
            lease: lease ?? null,
            kubeEvent: {
              type: 'Warning',
              reason: d.expire.reason,
              message: `cluster ${ref.name}: ${d.expire.message} (no lease renewal seen for ${silentFor})`,
            },
          },
        }),
      );
      kit.controller.logger.info(
        { cluster: ref.name, reason: d.expire.reason, lease: lease ?? null },
        'cluster status expired; Ready set to Unknown',
      );
    }
    if (d.recheckAfterMs !== undefined) return { requeueAfterMs: d.recheckAfterMs + 50 };
  };
  return defineController({
    ...kit.controller,
    name: Controllers.clusterHealth,
    watches: [{ source: o.clusters }, { source: o.clusterStatus }, { source: o.clusterLeases }],
    reconcile: kit.owned(checkHealth),
  });
}

/** The lease renewed last of two views of one cluster's lease (renew times are ISO timestamps of one format). */
function laterLease(a: ClusterLease | undefined, b: ClusterLease | undefined): ClusterLease | undefined {
  if (!a || !b) return a ?? b;
  return b.renewTime > a.renewTime ? b : a;
}
