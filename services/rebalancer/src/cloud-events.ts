import { Controllers } from '@flotilla/catalogue';
import { createHash } from 'node:crypto';
import type { ObjectMeta } from '@flotilla/api';
import { cloudEvent, type CloudEvent } from '@flotilla/bus';
import {
  workloadKey,
  type BindingRef,
  type RebalanceEvent,
  type TriggeredWorkload,
  type WorkloadRescheduleTriggeredData,
} from '@flotilla/rebalance';

export const CONTROLLER_NAME = Controllers.rebalancer;
export const REBALANCER_KIND = 'WorkloadRebalancer';

const digest = (v: unknown) => createHash('sha256').update(JSON.stringify(v)).digest('hex').slice(0, 16);

/**
 * What identifies a rebalancer event, so that a repeat of the same decision (a retry, a new leader reading a status
 * the status writer has not folded yet) is the same message and JetStream drops it: the workloads it names, never
 * the time. A Finished event is identified by its counts, so a repeat does not move finishTime again.
 */
function identity(e: RebalanceEvent): unknown {
  switch (e.type) {
    case 'RebalanceObserved':
      return [e.data.observedGeneration, e.data.added.map(workloadKey), e.data.dropped.map(workloadKey)];
    case 'RebalanceTriggered':
    case 'RebalanceBindingNotFound':
      return e.data.workloads.map((w) => workloadKey(w.workload));
    case 'RebalanceFinished':
      return [e.data.successful, e.data.failed];
  }
}

/** A rebalancer event as published: on the rebalancer, with an id from its uid, generation and identity. */
export function rebalancerEvent(
  rebalancer: Required<Pick<ObjectMeta, 'name' | 'uid' | 'generation'>>,
  e: RebalanceEvent,
  now: Date,
): CloudEvent {
  return cloudEvent({
    id: `${rebalancer.uid}/${rebalancer.generation}/${e.type}/${digest(identity(e))}`,
    source: CONTROLLER_NAME,
    type: e.type,
    kind: REBALANCER_KIND,
    name: rebalancer.name,
    time: now,
    data: { ...e.data, rebalancerUid: rebalancer.uid },
  });
}

/** The event on a workload whose binding a rebalancer triggered (its Kubernetes-style event for `describe`). */
export function workloadTriggeredEvent(
  rebalancer: { name: string; uid: string },
  t: TriggeredWorkload,
  now: Date,
): CloudEvent<WorkloadRescheduleTriggeredData> {
  const where = (b: BindingRef) => `${b.kind} ${b.namespace ? `${b.namespace}/` : ''}${b.name}`;
  return cloudEvent({
    id: `${rebalancer.uid}/WorkloadRescheduleTriggered/${digest(workloadKey(t.workload))}`,
    source: CONTROLLER_NAME,
    type: 'WorkloadRescheduleTriggered',
    kind: t.workload.kind,
    namespace: t.workload.namespace,
    name: t.workload.name,
    time: now,
    data: {
      rebalancer: rebalancer.name,
      binding: t.binding,
      rescheduleTriggeredAt: t.rescheduleTriggeredAt,
      kubeEvent: {
        type: 'Normal',
        reason: 'RescheduleTriggered',
        message: `WorkloadRebalancer ${rebalancer.name} asked for a Fresh rescheduling (${where(t.binding)}, rescheduleTriggeredAt ${t.rescheduleTriggeredAt})`,
      },
    },
  });
}
