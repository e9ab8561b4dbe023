import { eventTypeOf, readEvents, type Bus } from '@flotilla/bus';
import { isNotFound } from '@flotilla/client';
import {
  bindingRefOf,
  foldRebalancerStatus,
  workloadKey,
  type ObservedWorkload,
  type RebalanceEvent,
  type TriggeredWorkload,
  type WorkloadRebalancerStatus,
} from '@flotilla/rebalance';
import type { Session } from '../context.js';
import { formatTable } from '@flotilla/presentation';

type Clusters = Array<{ name: string; replicas?: number }>;

/** One workload of a rebalancer: its result, and its placement before the trigger and after the scheduler acted. */
export interface WorkloadReport {
  workload: string;
  result: string;
  before?: Clusters;
  /** Undefined until the scheduler has rescheduled the binding since the trigger. */
  after?: Clusters;
}

/**
 * A rebalancer's status and what its events say about each workload, read from the event log (so it is there after
 * the TTL deleted the object): the events of this rebalancer (by uid) folded as the status writer folds them, the
 * placement recorded at the trigger, and for the placement after, each binding as it is now, once its
 * lastScheduledTime is at or after the trigger.
 */
export async function rebalanceReport(
  s: Session,
  name: string,
  uid: string | undefined,
  opts: { placements?: boolean } = {},
): Promise<{ status?: WorkloadRebalancerStatus; workloads: WorkloadReport[] }> {
  const { events } = await rebalancerEvents(s.bus, name, uid);
  const status = foldRebalancerStatus(undefined, events);
  const triggered = new Map<string, TriggeredWorkload>();
  for (const e of events)
    if (e.type === 'RebalanceTriggered') for (const t of e.data.workloads) triggered.set(workloadKey(t.workload), t);
  const workloads: WorkloadReport[] = [];
  for (const o of (status?.observedWorkloads ?? []) as ObservedWorkload[]) {
    const w = o.workload;
    const t = triggered.get(workloadKey(w));
    const row: WorkloadReport = {
      workload: `${w.kind}/${w.namespace ? `${w.namespace}/` : ''}${w.name}`,
      result: o.result ? `${o.result}${o.reason ? ` (${o.reason})` : ''}` : '<pending>',
      ...(t?.clustersBefore ? { before: t.clustersBefore } : {}),
    };
    if (t && opts.placements !== false) {
      const ref = bindingRefOf(w);
      const b = await s.client.get(ref.kind, ref.name, ref.namespace).catch((err: unknown) => {
        if (isNotFound(err)) return undefined;
        throw err;
      });
      const last = (b?.status as { lastScheduledTime?: string } | undefined)?.lastScheduledTime;
      if (b && last && Date.parse(last) >= Date.parse(t.rescheduleTriggeredAt))
        row.after = (b.spec as { clusters?: Clusters }).clusters ?? [];
    }
    workloads.push(row);
  }
  return { ...(status ? { status } : {}), workloads };
}

/** The rebalancer's domain events (of the given uid, when known: a name can be reused). */
export async function rebalancerEvents(
  bus: Bus,
  name: string,
  uid: string | undefined,
): Promise<{ events: RebalanceEvent[] }> {
  const events: RebalanceEvent[] = [];
  for await (const d of readEvents(bus, { filter: { kind: 'WorkloadRebalancer', namespace: '', name } })) {
    const data = d.event.data as { rebalancerUid?: string };
    if (uid && data.rebalancerUid !== uid) continue;
    events.push({ type: eventTypeOf(d.event), data: d.event.data } as RebalanceEvent);
  }
  return { events };
}

const placement = (c: Clusters | undefined, missing: string) =>
  c === undefined
    ? missing
    : c.map((x) => (x.replicas === undefined ? x.name : `${x.name}:${x.replicas}`)).join(', ') || '<none>';

/** WORKLOAD RESULT BEFORE AFTER. */
export function reportTable(rows: readonly WorkloadReport[]): string {
  return formatTable(
    ['WORKLOAD', 'RESULT', 'BEFORE', 'AFTER'],
    rows.map((r) => [
      r.workload,
      r.result,
      placement(r.before, '-'),
      r.result.startsWith('Successful') ? placement(r.after, '<not rescheduled yet>') : '-',
    ]),
  );
}
