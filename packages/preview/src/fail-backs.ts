import { type FailoverBehavior, formatTime } from '@flotilla/api';
import { type FailBackBudget, failBackQueue, type FailBackWait } from '@flotilla/rebalance';
import { policyClaim, type ResourceBinding, type TargetCluster } from '@flotilla/scheduling';
import { type LiveState, previewChange } from './preview.js';

/** One binding waiting to fail back, and where it would go. */
export interface FailBackPreview {
  kind: string;
  namespace?: string;
  name: string;
  /** The template it propagates: `Deployment/web`. */
  resource: string;
  /** The clusterAffinities group it is in now, and the earlier one it returns to. */
  fromGroup: string;
  toGroup: string;
  /** Since when the earlier group could hold it (the hold in its status.failBack). */
  holdingSince: string;
  /** When its stabilization window has passed. */
  readyAt: string;
  /** When it would move, by the fleet's budget; absent while its policy's maxConcurrent are under way. */
  moveAt?: string;
  /** Its turn, from 1 (moves first). */
  turn?: number;
  waitingFor: FailBackWait;
  /** Where it runs now. */
  clusters: TargetCluster[];
  /**
   * Where its Fresh rescheduling would place it if it ran now (the scheduler's decideBinding, through
   * previewChange); absent when the preview finds it would stay where it is.
   */
  targetClusters?: TargetCluster[];
  /** The group that placement comes from. */
  targetGroup?: string;
  /** The scheduler's message when no group could take it now. */
  unschedulable?: string;
}

export interface FailBackQueuePreview {
  kind: 'FailBackQueue';
  now: string;
  /** The fleet budget the plan was made with: the rebalancer's settings. */
  budget: FailBackBudget;
  /** In turn order; the ones waiting on maxConcurrent last. */
  items: FailBackPreview[];
  /** What the preview cannot know (previewChange's notes). */
  unknowns: string[];
}

type Policy = LiveState['policies'][number] & { spec?: { failover?: FailoverBehavior } };
const policyKey = (kind: string, namespace: string | undefined, name: string) => `${kind}/${namespace ?? ''}/${name}`;

/**
 * The fail-back queue on the live state (`flotilla get failbacks`, the gateway's `failbacks` operation, the
 * dashboard): the rebalancer's own plan (failBackQueue: decideFailBack, then planFailBacks with the fleet's
 * `budget`), and where each would land, previewed as the Fresh rescheduling a fail-back triggers: the same change a
 * WorkloadRebalancer of those workloads makes, run through previewChange, on the clusters as they are now. Pure:
 * nothing is written.
 */
export function previewFailBacks(
  state: LiveState,
  options: { budget: FailBackBudget; now: Date },
): FailBackQueuePreview {
  const { now, budget } = options;
  const policies = new Map<string, Policy>();
  for (const p of state.policies as readonly Policy[])
    policies.set(policyKey(p.kind ?? 'PropagationPolicy', p.metadata.namespace, p.metadata.name ?? ''), p);
  const queue = failBackQueue({
    bindings: state.bindings,
    policyOf: (b) => {
      const c = policyClaim(b.metadata.annotations);
      const key = c && policyKey(c.kind, c.namespace, c.name);
      const p = key ? policies.get(key) : undefined;
      return p && { key: key!, policy: { annotations: p.metadata.annotations, failback: p.spec?.failover?.failback } };
    },
    clusters: state.clusters,
    budget,
    now,
  });
  const preview = queue.length
    ? previewChange(
        state,
        {
          objects: [
            {
              apiVersion: 'apps.karmada.io/v1alpha1',
              kind: 'WorkloadRebalancer',
              metadata: { name: 'fail-back-preview' },
              spec: { workloads: queue.map((q) => q.binding.spec.resource) },
            },
          ],
        },
        // At the time the last of them moves: a fail-back is triggered at its turn, past its window, so after the
        // scheduling it fails back from (a trigger in the same second as that would ask nothing of the scheduler).
        { now: lastMove(queue, now) },
      )
    : undefined;
  const moves = new Map((preview?.bindings ?? []).map((b) => [policyKey(b.kind, b.namespace, b.name), b]));
  const items = queue.map((q): FailBackPreview => {
    const b: ResourceBinding = q.binding;
    const kind = b.kind ?? 'ResourceBinding';
    const move = moves.get(policyKey(kind, b.metadata.namespace, b.metadata.name ?? ''));
    return {
      kind,
      ...(b.metadata.namespace ? { namespace: b.metadata.namespace } : {}),
      name: b.metadata.name ?? '',
      resource: `${b.spec.resource.kind}/${b.spec.resource.name}`,
      fromGroup: q.fromGroup,
      toGroup: q.toGroup,
      holdingSince: q.holdingSince,
      readyAt: q.readyAt,
      ...(q.moveAt ? { moveAt: q.moveAt, turn: q.turn } : {}),
      waitingFor: q.waitingFor,
      clusters: b.spec.clusters ?? [],
      ...(move?.outcome === 'Moved'
        ? { targetClusters: move.after, ...(move.groupAfter ? { targetGroup: move.groupAfter } : {}) }
        : {}),
      ...(move?.outcome === 'Unschedulable' ? { unschedulable: move.message ?? '' } : {}),
    };
  });
  return {
    kind: 'FailBackQueue',
    now: formatTime(now),
    budget: { ...budget },
    items,
    unknowns: preview?.unknowns ?? [],
  };
}

/** The latest time one of the queue moves (or, waiting on maxConcurrent, is ready), and never before now. */
function lastMove(queue: ReturnType<typeof failBackQueue>, now: Date): Date {
  return new Date(Math.max(now.getTime(), ...queue.map((q) => Date.parse(q.moveAt ?? q.readyAt))));
}
