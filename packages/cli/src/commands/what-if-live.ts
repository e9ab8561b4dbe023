import type { PreviewReply, PreviewRequest } from '@flotilla/client';
import type { BindingPreview } from '@flotilla/preview';
import { CliError, readManifests, type CliIo, type Session } from '../context.js';
import { formatTable } from '@flotilla/presentation';
import { print } from './what-if.js';

/** `what-if apply -f FILE --live`. */
export interface WhatIfApplyOptions {
  filename: string[];
  /** Required: the live system is asked (through the gateway); nothing is written. */
  live?: boolean;
  /** `-o json|yaml`; a table by default. */
  output?: string;
}

/** `what-if cluster fail|cordon|taint NAME --live`. */
export interface WhatIfClusterOptions {
  action: 'fail' | 'cordon' | 'taint';
  name: string;
  /** For taint: `KEY[=VALUE]:EFFECT`. */
  taint?: string;
  live?: boolean;
  output?: string;
}

function checkFlags(o: { live?: boolean; output?: string }, offline: string): void {
  if (!o.live)
    throw new CliError(`error: --live is required: this asks the running system (offline planning: ${offline})`);
  if (o.output !== undefined && o.output !== 'json' && o.output !== 'yaml')
    throw new CliError(`error: -o must be json or yaml, not "${o.output}"`);
}

/** The files are read before connecting, so a bad file fails without touching the bus. */
export async function whatIfApplyCommand(
  io: CliIo,
  session: () => Promise<Session>,
  o: WhatIfApplyOptions,
): Promise<number> {
  checkFlags(o, 'flotilla what-if schedule -f FILE');
  const objects = (await readManifests(io, o.filename)).map(({ doc }) => doc);
  return show(io, await (await session()).client.preview({ objects }), o.output);
}

export async function whatIfClusterCommand(io: CliIo, s: Session, o: WhatIfClusterOptions): Promise<number> {
  checkFlags(o, 'flotilla what-if schedule with the Cluster edited in the file');
  if (o.action === 'taint' && o.taint === undefined)
    throw new CliError('error: what-if cluster taint NAME KEY[=VALUE]:EFFECT');
  const cluster: NonNullable<PreviewRequest['cluster']> = {
    action: o.action,
    name: o.name,
    ...(o.taint !== undefined ? { taint: o.taint } : {}),
  };
  return show(io, await s.client.preview({ cluster }), o.output);
}

function show(io: CliIo, p: PreviewReply, output: string | undefined): number {
  if (output) {
    print(io, output, p);
    return 0;
  }
  io.out(
    p.bindings.length
      ? formatTable(
          ['BINDING', 'OUTCOME', 'AT', 'BEFORE', 'AFTER', 'GROUP', 'REJECTED'],
          p.bindings.map((b) => [
            `${b.namespace ? `${b.namespace}/` : ''}${b.name}`,
            b.outcome,
            b.at,
            clusters(b.before),
            b.outcome === 'Unschedulable' ? `${clusters(b.after)} (kept)` : clusters(b.after),
            group(b),
            b.rejected.map((r) => `${r.cluster}: ${r.reason}`).join('; ') || '<none>',
          ]),
        )
      : p.autoscalers?.length
        ? 'No binding moves now.'
        : 'Nothing moves.',
  );
  if (p.autoscalers?.length)
    io.out(
      `\n${formatTable(
        ['AUTOSCALER', 'RULE', 'TARGET', 'AT', 'REPLICAS', 'REASON'],
        p.autoscalers.map((a) => [
          `${a.kind}/${a.name}`,
          a.rule ?? '',
          a.minReplicas === undefined ? a.target : `${a.target} min ${a.minReplicas} max ${a.maxReplicas ?? '?'}`,
          a.at,
          a.replicasAfter === undefined ? '<unknown>' : `${a.replicasBefore ?? '<none>'}→${a.replicasAfter}`,
          a.reason,
        ]),
      )}`,
    );
  for (const b of p.bindings)
    if (b.outcome === 'Unschedulable') io.out(`\n${b.name} stays Unschedulable: ${b.message ?? ''}`);
  if (p.truncated) io.out(`\nPreview cut short: ${p.truncated.notPreviewed} bindings not looked at.`);
  const unknowns = [
    ...(p.autoscalers ?? []).flatMap((a) =>
      a.notKnown ? [`${a.kind} ${a.name}${a.rule ? ` rule ${a.rule}` : ''}: ${a.notKnown}`] : [],
    ),
    ...p.unknowns,
  ];
  if (unknowns.length) io.out(`\nWhat the preview cannot know:\n${unknowns.map((u) => `  - ${u}`).join('\n')}`);
  return 0;
}

const clusters = (list: readonly { name: string; replicas?: number }[]) =>
  list.length ? list.map((c) => `${c.name}:${c.replicas ?? 0}`).join(',') : '<none>';
const group = (b: BindingPreview) =>
  b.groupAfter && b.groupAfter !== b.groupBefore
    ? `${b.groupBefore ?? '<none>'}→${b.groupAfter}`
    : (b.groupAfter ?? '');
