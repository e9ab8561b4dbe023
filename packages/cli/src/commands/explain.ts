import { resolveKind } from '@flotilla/api';
import type { Bus } from '@flotilla/bus';
import type { GatewayClient } from '@flotilla/client';
import {
  formatTrailField,
  formatTrailValue,
  TRAIL_AUTOSCALER_KINDS,
  trailAddresses,
  type TrailEntry,
  type WorkloadRef,
} from '@flotilla/replica-trail';
import { readReplicaTrail } from '@flotilla/store';
import { CliError, type CliIo, type Session } from '../context.js';
import { parseDuration } from '../duration.js';
import { formatTable } from '../output/table.js';

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

/** One table of trail entries (TIME, FIELD, FROM, TO, BY, WHY). */
export function trailTable(entries: readonly TrailEntry[]): string {
  return formatTable(
    ['TIME', 'FIELD', 'FROM', 'TO', 'BY', 'WHY'],
    entries.map((e) => [
      e.time,
      formatTrailField(e.field),
      formatTrailValue(e.from),
      formatTrailValue(e.to),
      e.by,
      e.why,
    ]),
  );
}

/** `flotilla explain replicas KIND/NAME [-n NS] [--since 24h] [-o json]`. */
export interface ExplainReplicasOptions {
  /** KIND/NAME of the workload. */
  target: string;
  namespace?: string;
  /** `--since`: a duration; only changes in this last span. */
  since?: string;
  output?: string;
}

export async function explainReplicasCommand(io: CliIo, s: Session, o: ExplainReplicasOptions): Promise<number> {
  const { target } = o;
  if (o.output !== undefined && o.output !== 'json') throw new CliError(`error: -o must be json, not "${o.output}"`);
  const slash = target.indexOf('/');
  if (slash <= 0 || slash === target.length - 1)
    throw new CliError(`error: explain replicas takes KIND/NAME, such as deploy/web, not "${target}"`);
  const info = resolveKind(target.slice(0, slash));
  const workload = {
    kind: info.kind,
    namespace: info.namespaced ? (o.namespace ?? 'default') : undefined,
    name: target.slice(slash + 1),
  };
  const since = o.since === undefined ? undefined : new Date(io.now().getTime() - parseDuration(o.since, '--since'));
  const entries = await replicaTrail(s.bus, s.client, workload, since);
  if (o.output === 'json') {
    io.out(JSON.stringify({ workload, ...(since ? { since: since.toISOString() } : {}), entries }, null, 2));
    return 0;
  }
  io.out(entries.length ? trailTable(entries) : 'No replica changes recorded.');
  return 0;
}
