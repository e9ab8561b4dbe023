import { createHash } from 'node:crypto';
import type { KubeEventData } from '@flotilla/api';
import { cloudEvent, EventTypes, type CloudEvent } from '@flotilla/bus';
import {
  statusPatchFor,
  type BindingDecision,
  type KeptDecision,
  type ResourceBinding,
  type ScheduledDecision,
  type TargetCluster,
} from '@flotilla/scheduling';

/** The source of every event the scheduler publishes. */
export const EVENT_SOURCE = 'affinity-scheduler';

/**
 * The domain event of a decision. Its id is derived from the binding's uid, generation, the result and what the
 * decision followed (its basis), so a replica that repeats the same decision (after a crash, or a hand-over)
 * publishes it once, while the same result after a different one (a recovery) is published again.
 */
export function decisionEvent(binding: ResourceBinding, d: BindingDecision, generation: number, now: Date): CloudEvent {
  const statusPatch = statusPatchFor(d, binding.status, generation, now);
  const e = d.kind === 'Kept' ? keptEvent(d) : scheduledEvent(binding, d);
  const digest = createHash('sha256')
    .update(JSON.stringify([...e.digestOf, d.basis]))
    .digest('hex')
    .slice(0, 16);
  return cloudEvent({
    id: `${binding.metadata.uid ?? binding.metadata.name}/${generation}/${e.type}/${digest}`,
    source: EVENT_SOURCE,
    type: e.type,
    kind: binding.kind ?? 'ResourceBinding',
    namespace: binding.metadata.namespace,
    name: binding.metadata.name ?? '',
    time: now,
    data: {
      ...e.data,
      ...(binding.metadata.uid ? { bindingUid: binding.metadata.uid } : {}),
      statusPatch,
      ...(e.kubeEvent ? { kubeEvent: e.kubeEvent } : {}),
    },
  });
}

interface EventParts {
  type: string;
  digestOf: unknown[];
  data: Record<string, unknown>;
  kubeEvent?: KubeEventData;
}

function scheduledEvent(binding: ResourceBinding, d: ScheduledDecision): EventParts {
  const r = d.result;
  const groups = r.attempts.map((a) => ({
    affinityName: a.affinityName,
    ok: a.ok,
    message: a.message,
    filtered: a.filtered,
  }));
  if (!r.ok) {
    return {
      type: EventTypes.BindingScheduleFailed,
      digestOf: [r.reason, r.message],
      data: {
        reason: r.reason,
        keptClusters: r.keptClusters,
        mode: r.mode,
        trigger: d.trigger,
        filtered: r.filtered,
        groups,
      },
      kubeEvent: { type: 'Warning', reason: 'ScheduleBindingFailed', message: r.message },
    };
  }
  const summary = `${r.mode} scheduling${r.affinityName ? ` with group ${r.affinityName}` : ''}: ${targetsText(r.clusters)}`;
  return {
    type: EventTypes.BindingScheduled,
    digestOf: [r.clusters, r.affinityName, r.mode, r.mode === 'Fresh' ? binding.spec.rescheduleTriggeredAt : ''],
    data: {
      clusters: r.clusters,
      affinityName: r.affinityName,
      // With overflowAffinities: which tier (the term's own name or an overflow entry's) each cluster came from.
      ...(r.tiers && { tiers: r.tiers }),
      mode: r.mode,
      trigger: d.trigger,
      filtered: r.filtered,
      groups,
    },
    kubeEvent: { type: 'Normal', reason: 'ScheduleBindingSucceed', message: summary },
  };
}

function keptEvent(d: KeptDecision): EventParts {
  return {
    type: EventTypes.BindingScheduled,
    digestOf: [d.kept, d.affinityName, 'Steady', ''],
    data: { clusters: d.kept, affinityName: d.affinityName, mode: 'Steady', kept: true, filtered: [], groups: [] },
    // Only a recovery is news: a kept assignment at a new generation (a template edit) is not a scheduling event.
    ...(d.recovered
      ? {
          kubeEvent: {
            type: 'Normal' as const,
            reason: 'ScheduleBindingSucceed',
            message: `assignment kept, no rescheduling needed: ${targetsText(d.kept)}`,
          },
        }
      : {}),
  };
}

function targetsText(targets: readonly TargetCluster[]): string {
  return (
    targets.map((c) => (c.replicas === undefined ? c.name : `${c.name}:${c.replicas}`)).join(', ') || 'no clusters'
  );
}
