import { toYaml } from '@flotilla/api';
import type { FailBacksReply } from '@flotilla/client';
import { formatAge, formatTable } from '@flotilla/presentation';
import type { CliIo, Session } from '../context.js';
import { parseOutput } from '../output/format.js';

/** `get failbacks` (or `failback`, `fb`): the kind-like name `get` answers with the fail-back queue. */
export const FAIL_BACKS_NAMES: ReadonlySet<string> = new Set(['failbacks', 'failback', 'fb']);

type Item = FailBacksReply['items'][number];

/**
 * `flotilla get failbacks`: the bindings waiting to fail back (their hold recorded in status.failBack), since when,
 * when each would move and where, as the gateway's `failbacks` operation answers it: the rebalancer's own plan with
 * the fleet budget in force, and each landing previewed by the scheduler's functions (the dashboard shows the same).
 */
export async function getFailBacksCommand(io: CliIo, s: Session, o: { output?: string }): Promise<number> {
  const format = parseOutput(o.output);
  const queue = await s.client.failBacks();
  if (format === 'json' || format === 'yaml') {
    io.out(format === 'json' ? JSON.stringify(queue, null, 2) : toYaml(queue).trimEnd());
    return 0;
  }
  if (queue.items.length === 0) {
    io.err('No fail-backs waiting.');
    return 0;
  }
  const now = new Date(Date.parse(queue.now));
  io.out(
    formatTable(
      ['NAMESPACE', 'NAME', 'FROM', 'TO', 'WAITING', 'MOVES', 'TURN', 'REASON', 'TARGET'],
      queue.items.map((q) => row(q, now)),
    ),
  );
  return 0;
}

const placement = (c: Item['clusters']) => c.map((t) => `${t.name}:${t.replicas ?? 0}`).join(',');

function row(q: Item, now: Date): string[] {
  const moves = !q.moveAt
    ? '<after one under way>'
    : Date.parse(q.moveAt) <= now.getTime()
      ? 'now'
      : `in ${formatAge(now.toISOString(), new Date(Date.parse(q.moveAt)))} (${q.moveAt.replace(/\.\d+Z$/, 'Z')})`;
  const target = q.targetClusters
    ? `${placement(q.clusters)} → ${placement(q.targetClusters)}`
    : q.unschedulable !== undefined
      ? '<no room now>'
      : '<stays>';
  return [
    q.namespace ?? '',
    q.name,
    q.fromGroup,
    q.toGroup,
    formatAge(q.holdingSince, now),
    moves,
    q.turn === undefined ? '-' : String(q.turn),
    q.waitingFor,
    target,
  ];
}
