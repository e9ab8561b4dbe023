import { resolveKind, toYaml } from '@flotilla/api';
import type { CliIo, Session } from '../context.js';
import { formatAge, formatTable } from '../output/table.js';

/** kubectl-like description: identity, spec and status as YAML, then the object's events. */
export async function describeCommand(io: CliIo, s: Session, kindToken: string, name: string, namespace?: string): Promise<number> {
  const info = resolveKind(kindToken);
  const ns = info.namespaced ? namespace ?? 'default' : undefined;
  const o = await s.client.get(info.kind, name, ns);
  const { items: events } = await s.client.events({ kind: info.kind, namespace: ns, name });
  const m = o.metadata as Record<string, unknown>;
  const lines = [
    `Name:         ${o.metadata.name}`,
    ...(ns ? [`Namespace:    ${ns}`] : []),
    `Labels:       ${fmtMap(m.labels)}`,
    `Annotations:  ${fmtMap(m.annotations)}`,
    `API Version:  ${o.apiVersion}`,
    `Kind:         ${o.kind}`,
    `UID:          ${String(m.uid ?? '')}`,
    `Generation:   ${String(m.generation ?? '')}`,
  ];
  if (o.spec !== undefined) lines.push('Spec:', indent(toYaml(o.spec)));
  if (o.status !== undefined) lines.push('Status:', indent(toYaml(o.status)));
  lines.push(
    events.length === 0
      ? 'Events:       <none>'
      : `Events:\n${indent(
          formatTable(
            ['Type', 'Reason', 'Age', 'From', 'Message'],
            events.map((e) => [
              e.type,
              e.reason,
              e.count > 1 ? `${formatAge(e.lastTimestamp, io.now())} (x${e.count} over ${formatAge(e.firstTimestamp, io.now())})` : formatAge(e.lastTimestamp, io.now()),
              e.source.component,
              e.message,
            ]),
          ),
        )}`,
  );
  io.out(lines.join('\n'));
  return 0;
}

const fmtMap = (v: unknown) =>
  v && typeof v === 'object' && Object.keys(v).length
    ? Object.entries(v as Record<string, string>)
        .map(([k, x]) => `${k}=${x}`)
        .join('\n              ')
    : '<none>';
const indent = (t: string) =>
  t
    .trimEnd()
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
