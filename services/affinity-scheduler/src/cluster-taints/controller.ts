import { Controllers } from '@flotilla/catalogue';
import type { StatusOfKind } from '@flotilla/api';
import { defineController, type Controller, type ReconcileResult } from '@flotilla/controller';
import {
  refFromKey,
  withStatus,
  type CachedKind,
  type Informer,
  type ObjectStore,
  type StatusRecord,
} from '@flotilla/store';
import type { SchedulerKit } from '../kit.js';
import { decideTaints } from './decide.js';

export interface ClusterTaintsOptions {
  kit: SchedulerKit;
  store: ObjectStore;
  clusters: Informer<CachedKind<'Cluster'>>;
  clusterStatus: Informer<StatusRecord<StatusOfKind<'Cluster'>>>;
  /** How long a cluster stays not Ready before it is tainted NoExecute (its workloads evicted). */
  failoverGraceMs: number;
}

/**
 * Failover taints (Karmada's taint manager): a cluster not Ready past the grace period gets a NoExecute taint, a Ready
 * one loses it. Every change of a cluster or its status is its own key; a cluster still within its grace is looked
 * at again when the grace runs out.
 */
export function clusterTaintsController(o: ClusterTaintsOptions): Controller {
  const { kit } = o;
  const taint = async (key: string): Promise<ReconcileResult> => {
    const ref = refFromKey(key);
    const obj = o.clusters.get(ref);
    if (!obj) return;
    const d = decideTaints(withStatus(obj, key, o.clusterStatus), kit.now(), o.failoverGraceMs);
    if (d.taints) {
      const taints = d.taints;
      await o.store.update(ref, (cur) => {
        const spec = { ...(cur.spec as Record<string, unknown>) };
        if (taints.length) spec.taints = taints;
        else delete spec.taints;
        return { ...cur, spec };
      });
      kit.controller.logger.info({ cluster: ref.name, taints }, 'cluster taints updated');
    }
    if (d.recheckAfterMs !== undefined) return { requeueAfterMs: d.recheckAfterMs + 50 };
  };
  return defineController({
    ...kit.controller,
    name: Controllers.clusterTaints,
    watches: [{ source: o.clusters }, { source: o.clusterStatus }],
    reconcile: kit.owned(taint),
  });
}
