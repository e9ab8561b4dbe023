import { admit, toYaml } from '@flotilla/api';
import { whatIfFederatedHpa } from '@flotilla/assignment';
import { scheduleChecks, whatIfCron } from '@flotilla/cron';
import { bindingClusterTiers, whatIfSchedule, type Cluster, type ResourceBinding } from '@flotilla/scheduling';
import { CliError, readManifests, type CliIo } from '../context.js';
import { asList } from '../output/format.js';
import { formatTable } from '@flotilla/presentation';

/** What every offline command reads: `-f` files, directories or `-`, and `-o`. */
export interface WhatIfOptions {
  filename: string[];
  /** `-o json|yaml`. */
  output?: string;
  /** `--now`: an RFC 3339 time; the clock's now by default. */
  now?: string;
}

/** The controller zone of rules and crons that name none (`--time-zone`). */
export const WHAT_IF_DEFAULTS = { timeZone: 'UTC' } as const;

export function parseInstant(text: string | undefined, flag: string, fallback: Date): Date {
  if (text === undefined) return fallback;
  const t = Date.parse(text);
  if (Number.isNaN(t) || !/^\d{4}-\d{2}-\d{2}T/.test(text))
    throw new CliError(`error: ${flag} "${text}" is not an RFC 3339 time such as 2026-03-08T09:04:00Z`);
  return new Date(t);
}

/** Offline input goes through the same admission as the gateway, so a bad file fails with the same field path. */
export async function admittedDocs(io: CliIo, files: string[]): Promise<unknown[]> {
  const docs = await readManifests(io, files);
  return docs.map(({ doc }) => admit(doc, { schedules: scheduleChecks }));
}

export function print(io: CliIo, output: string | undefined, value: object): void {
  if (output === 'yaml') io.out(toYaml(value).trimEnd());
  else io.out(JSON.stringify(value, null, 2));
}

type ClusterDoc = { kind?: string; metadata?: { name?: string }; status?: unknown };

/**
 * Offline, a Cluster has only the status written in the file: `spec.simulation` is what a running member agent
 * plays, so a simulated cluster (the examples') is not Ready here and nothing can land on it. Say so rather than
 * print bindings with nothing scheduled: an error when no cluster has a status, a warning naming the others.
 */
function checkClusterStatus(io: CliIo, docs: unknown[]): void {
  const clusters = (docs as ClusterDoc[]).filter((d) => d.kind === 'Cluster');
  const bare = clusters.filter((c) => c.status === undefined).map((c) => c.metadata?.name ?? '?');
  if (bare.length === 0) return;
  const which = bare.length === 1 ? `cluster ${bare[0]} has` : `clusters ${bare.join(', ')} have`;
  const why =
    `${which} no status: offline a Cluster has only the status in the file, and spec.simulation is played by ` +
    'the member agent of a running suite, so the scheduler takes such a cluster as not Ready. Give each Cluster a status filled ' +
    'in by hand (conditions Ready=True, resourceSummary.allocatable/allocated, and allocatableModelings for the ' +
    'resource models), as in README\'s "Planning ' +
    'offline" (packages/scheduling/src/testdata/ordered-groups.yaml), or run the suite and use apply.';
  if (bare.length === clusters.length) throw new CliError(`error: ${why}`);
  io.err(`warning: ${why}`);
}

/**
 * `what-if schedule`: the bindings the scheduler would write, by the scheduler's own functions, offline. When a
 * binding is placed under a clusterAffinities term with overflowAffinities, the List also carries `tiers`: per such
 * binding, which tier (the term's own name or an overflow entry's) each of its clusters came from.
 */
export async function whatIfScheduleCommand(io: CliIo, o: WhatIfOptions): Promise<number> {
  if (o.output !== undefined && o.output !== 'json' && o.output !== 'yaml')
    throw new CliError(`error: -o must be json or yaml, not "${o.output}"`);
  const now = parseInstant(o.now, '--now', io.now());
  const docs = await admittedDocs(io, o.filename);
  checkClusterStatus(io, docs);
  const bindings = whatIfSchedule(docs, now);
  const clusters = (docs as ClusterDoc[]).filter((d) => d.kind === 'Cluster') as Cluster[];
  const tiers = bindings.flatMap((b) => {
    const byCluster = bindingClusterTiers(b, clusters);
    return byCluster ? [{ binding: bindingRef(b), clusters: byCluster }] : [];
  });
  print(io, o.output ?? 'yaml', { ...asList(bindings as never), ...(tiers.length > 0 && { tiers }) });
  return 0;
}

const bindingRef = (b: ResourceBinding) =>
  `${b.kind ?? 'ResourceBinding'} ${b.metadata.namespace ? `${b.metadata.namespace}/` : ''}${b.metadata.name ?? ''}`;

/**
 * `what-if fhpa`: the target's ResourceBinding after the hpa-assigner's update and the member HPAs' limits, by the
 * scheduler's and the hpa-assigner's own functions, offline.
 */
export async function whatIfFhpaCommand(io: CliIo, o: WhatIfOptions): Promise<number> {
  if (o.output !== undefined && o.output !== 'json' && o.output !== 'yaml')
    throw new CliError(`error: -o must be json or yaml, not "${o.output}"`);
  const now = parseInstant(o.now, '--now', io.now());
  const result = whatIfFederatedHpa(await admittedDocs(io, o.filename), now);
  // Exactly this shape (a public interface): the List and the assignments, nothing else.
  print(io, o.output ?? 'yaml', {
    apiVersion: 'v1',
    kind: 'List',
    items: [result.binding],
    assignments: result.assignments,
  });
  return 0;
}

/** `what-if cron`: next execution times at --now and the executions in (now, until]. */
export interface WhatIfCronOptions extends WhatIfOptions {
  /** `--until`: list the executions in (now, until]. */
  until?: string;
  /** WHAT_IF_DEFAULTS.timeZone when not given. */
  timeZone?: string;
}

export async function whatIfCronCommand(io: CliIo, o: WhatIfCronOptions): Promise<number> {
  const now = parseInstant(o.now, '--now', io.now());
  const until = o.until === undefined ? undefined : parseInstant(o.until, '--until', now);
  if (until && until <= now) throw new CliError('error: --until must be later than --now');
  const docs = (await admittedDocs(io, o.filename)).filter((d) => (d as { kind?: string }).kind === 'CronFederatedHPA');
  const result = whatIfCron(docs as never, now, until, o.timeZone ?? WHAT_IF_DEFAULTS.timeZone);
  if (o.output === 'json' || o.output === 'yaml') {
    print(io, o.output, {
      ...asList(result.items as never),
      executions: result.executions,
      ...(result.skipped && { skipped: result.skipped }),
    });
    return 0;
  }
  if (o.output !== undefined) throw new CliError(`error: -o must be json or yaml, not "${o.output}"`);
  const rows: string[][] = [];
  for (const item of result.items as Array<{
    metadata: { name: string };
    status?: { executionHistories?: Array<{ ruleName: string; nextExecutionTime?: string }> };
  }>) {
    for (const h of item.status?.executionHistories ?? [])
      rows.push([item.metadata.name, h.ruleName, h.nextExecutionTime ?? '<suspended>']);
  }
  io.out(formatTable(['NAME', 'RULE', 'NEXT EXECUTION'], rows));
  if (until) {
    // Executions and skips in one time line: a skipped time reads where it would have run.
    const rowsOf = [
      ...result.executions.map((e) => ({
        at: e.scheduleTime,
        row: [
          e.scheduleTime,
          e.ruleName,
          (['targetReplicas', 'targetMinReplicas', 'targetMaxReplicas'] as const)
            .filter((k) => e[k] !== undefined)
            .map((k) => `${k}=${String(e[k])}`)
            .join(' '),
        ],
      })),
      ...(result.skipped ?? []).map((s) => ({ at: s.scheduleTime, row: [s.scheduleTime, s.ruleName, s.message] })),
    ].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
    io.out('');
    io.out(
      rowsOf.length
        ? formatTable(
            ['SCHEDULE TIME', 'RULE', 'APPLIES'],
            rowsOf.map((r) => r.row),
          )
        : 'No executions in that window.',
    );
  }
  return 0;
}
