import { whatIfRebalance } from '@flotilla/rebalance';
import { CliError, type CliIo } from '../context.js';
import { formatTable } from '@flotilla/presentation';
import { admittedDocs, parseInstant, print, type WhatIfOptions } from './what-if.js';

type Item = {
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: { rescheduleTriggeredAt?: string };
  status?: {
    observedWorkloads?: Array<{
      workload: { kind: string; namespace?: string; name: string };
      result?: string;
      reason?: string;
    }>;
    finishTime?: string;
  };
};

/**
 * `what-if rebalance -f FILE --now T`: one pass of the rebalancer over the WorkloadRebalancer and bindings in FILE,
 * by the service's own decision. `-o json|yaml` prints a List (the rebalancer as left, then each binding written)
 * with `deleted` and `requeueAfterSeconds`.
 */
export async function whatIfRebalanceCommand(io: CliIo, o: WhatIfOptions): Promise<number> {
  if (o.output !== undefined && o.output !== 'json' && o.output !== 'yaml')
    throw new CliError(`error: -o must be json or yaml, not "${o.output}"`);
  const now = parseInstant(o.now, '--now', io.now());
  const result = whatIfRebalance(await admittedDocs(io, o.filename), now);
  if (o.output) {
    print(io, o.output, result);
    return 0;
  }
  const [rb, ...written] = result.items as Item[];
  io.out(
    formatTable(
      ['WORKLOAD', 'RESULT', 'REASON'],
      (rb!.status?.observedWorkloads ?? []).map((w) => [
        `${w.workload.kind}/${w.workload.namespace ? `${w.workload.namespace}/` : ''}${w.workload.name}`,
        w.result ?? '<pending>',
        w.reason ?? '',
      ]),
    ),
  );
  io.out('');
  for (const b of written)
    io.out(
      `writes ${b.kind} ${b.metadata.namespace ? `${b.metadata.namespace}/` : ''}${b.metadata.name}: rescheduleTriggeredAt ${b.spec?.rescheduleTriggeredAt}`,
    );
  io.out(`finishTime: ${rb!.status?.finishTime ?? '<none>'}`);
  io.out(
    result.deleted
      ? 'deleted: yes (TTL ran out)'
      : `deleted: no${result.requeueAfterSeconds !== null ? ` (TTL runs out in ${result.requeueAfterSeconds}s)` : ''}`,
  );
  return 0;
}
