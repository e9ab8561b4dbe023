import { toYaml } from '@flotilla/api';
import type { StoredLike } from '@flotilla/client';
import { COLUMNS } from './columns.js';
import { formatAge, formatTable } from './table.js';

export type OutputFormat = 'table' | 'wide' | 'json' | 'yaml';

export function parseOutput(o: string | undefined): OutputFormat {
  if (o === undefined) return 'table';
  if (o === 'json' || o === 'yaml' || o === 'wide') return o;
  throw new Error(
    `unable to match a printer suitable for the output format "${o}", allowed formats are: json,yaml,wide`,
  );
}

/** A kubectl-style List, as `get -o json` of several objects prints it. */
export function asList(items: StoredLike[]): object {
  return { apiVersion: 'v1', kind: 'List', items, metadata: { resourceVersion: '' } };
}

export function printObjects(
  items: StoredLike[],
  single: boolean,
  format: OutputFormat,
  allNamespaces: boolean,
  now: Date,
): string {
  if (format === 'json') return JSON.stringify(single ? items[0] : asList(items), null, 2);
  if (format === 'yaml') return toYaml(single ? items[0] : asList(items)).trimEnd();
  if (items.length === 0) return '';
  const { headers, rows } = objectRows(items, { wide: format === 'wide', allNamespaces, now });
  return formatTable(headers, rows);
}

/** The cells of `get`'s table (`-o wide` with `wide`): the kind's columns, as the CLI prints them and the dashboard
 * shows them. */
export function objectRows(
  items: readonly StoredLike[],
  o: { wide: boolean; allNamespaces: boolean; now: Date /** For the headers of an empty list. */; kind?: string },
): { headers: string[]; rows: string[][] } {
  const kind = items[0]?.kind ?? o.kind ?? '';
  const cols = (COLUMNS[kind] ?? []).filter((c) => o.wide || !c.wide);
  const headers = [...(o.allNamespaces ? ['NAMESPACE'] : []), 'NAME', ...cols.map((c) => c.header), 'AGE'];
  const rows = items.map((item) => [
    ...(o.allNamespaces ? [item.metadata.namespace ?? ''] : []),
    item.metadata.name,
    ...cols.map((c) => c.value(item)),
    formatAge(item.metadata.creationTimestamp as string | undefined, o.now),
  ]);
  return { headers, rows };
}
