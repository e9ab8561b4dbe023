import { resolveKind } from '@flotilla/api';
import { formatTable, replicaTrail } from '@flotilla/presentation';
import { formatTrailField, formatTrailValue, type TrailEntry } from '@flotilla/replica-trail';
import { CliError, type CliIo, type Session } from '../context.js';
import { parseDuration } from '../duration.js';

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
