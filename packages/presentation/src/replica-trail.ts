import type { Bus } from '@flotilla/bus';
import type { GatewayClient } from '@flotilla/client';
import { TRAIL_AUTOSCALER_KINDS, trailAddresses, type TrailEntry, type WorkloadRef } from '@flotilla/replica-trail';
import { readReplicaTrail } from '@flotilla/store';

/**
 * A workload's replica trail: the autoscalers aimed at it now say which subjects hold its decisions, and the status
 * writer's projection of those subjects (packages/store's trail projection) gives the entries folded so far, so the
 * answer reads the events after it only; without a projection that fits, the subjects are folded from the stream.
 * `since` keeps the entries from then on (their old values still come from the whole history).
 */
export async function replicaTrail(
  bus: Bus,
  client: Pick<GatewayClient, 'list'>,
  workload: WorkloadRef,
  since?: Date,
): Promise<TrailEntry[]> {
  const autoscalers = (
    await Promise.all(TRAIL_AUTOSCALER_KINDS.map((k) => client.list(k, workload.namespace)))
  ).flatMap((r) => r.items);
  const { entries } = await readReplicaTrail(bus, workload, trailAddresses(workload, autoscalers));
  if (!since) return entries;
  const from = since.getTime();
  return entries.filter((e) => Date.parse(e.time) >= from);
}
