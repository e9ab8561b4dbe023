import { toYaml, type FailoverBehavior } from '@flotilla/api';
import { formatAge, formatTable } from '@flotilla/presentation';
import { FAIL_BACK_BUDGET_DEFAULTS, failBackQueue, type QueuedFailBack } from '@flotilla/rebalance';
import { policyClaim, type Cluster, type ResourceBinding } from '@flotilla/scheduling';
import type { CliIo, Session } from '../context.js';
import { parseOutput } from '../output/format.js';

/** `get failbacks` (or `failback`, `fb`): the kind-like name `get` answers with the fail-back queue. */
export const FAIL_BACKS_NAMES: ReadonlySet<string> = new Set(['failbacks', 'failback', 'fb']);

type Policy = { metadata: { annotations?: Record<string, string> }; spec?: { failover?: FailoverBehavior } };

/**
 * `flotilla get failbacks`: the bindings waiting to fail back (their hold recorded in status.failBack), since
 * when, when each would move and to which group, planned as the rebalancer plans them (failBackQueue) with the
 * default fleet budget.
 */
export async function getFailBacksCommand(io: CliIo, s: Session, o: { output?: string }): Promise<number> {
  const format = parseOutput(o.output);
  const [rbs, crbs, pps, cpps, clusters] = await Promise.all(
    ['ResourceBinding', 'ClusterResourceBinding', 'PropagationPolicy', 'ClusterPropagationPolicy', 'Cluster'].map(
      async (kind) => (await s.client.list(kind, undefined)).items,
    ),
  );
  const policies = new Map<string, Policy>();
  for (const p of [...pps!, ...cpps!])
    policies.set(`${p.kind}/${p.metadata.namespace ?? ''}/${p.metadata.name}`, p as unknown as Policy);
  const queue = failBackQueue({
    bindings: [...rbs!, ...crbs!] as unknown as ResourceBinding[],
    policyOf: (b) => {
      const c = policyClaim(b.metadata.annotations);
      const key = c && `${c.kind}/${c.namespace ?? ''}/${c.name}`;
      const p = key ? policies.get(key) : undefined;
      return p && { key: key!, policy: { annotations: p.metadata.annotations, failback: p.spec?.failover?.failback } };
    },
    clusters: clusters as unknown as Cluster[],
    budget: FAIL_BACK_BUDGET_DEFAULTS,
    now: io.now(),
  });
  if (format === 'json' || format === 'yaml') {
    const items = queue.map((q) => ({
      kind: q.binding.kind,
      namespace: q.binding.metadata.namespace,
      name: q.binding.metadata.name,
      fromGroup: q.fromGroup,
      toGroup: q.toGroup,
      holdingSince: q.holdingSince,
      readyAt: q.readyAt,
      ...(q.moveAt ? { moveAt: q.moveAt, turn: q.turn } : {}),
      waitingFor: q.waitingFor,
    }));
    io.out(format === 'json' ? JSON.stringify({ items }, null, 2) : toYaml({ items }).trimEnd());
    return 0;
  }
  if (queue.length === 0) {
    io.err('No fail-backs waiting.');
    return 0;
  }
  io.out(
    formatTable(
      ['NAMESPACE', 'NAME', 'FROM', 'TO', 'WAITING', 'MOVES', 'TURN', 'REASON'],
      queue.map((q) => row(q, io.now())),
    ),
  );
  return 0;
}

function row(q: QueuedFailBack, now: Date): string[] {
  const moves = !q.moveAt
    ? '<after one under way>'
    : Date.parse(q.moveAt) <= now.getTime()
      ? 'now'
      : `in ${formatAge(now.toISOString(), new Date(Date.parse(q.moveAt)))} (${q.moveAt.replace(/\.\d+Z$/, 'Z')})`;
  return [
    q.binding.metadata.namespace ?? '',
    q.binding.metadata.name ?? '',
    q.fromGroup,
    q.toGroup,
    formatAge(q.holdingSince, now),
    moves,
    q.turn === undefined ? '-' : String(q.turn),
    q.waitingFor,
  ];
}
