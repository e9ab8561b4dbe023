import { toYaml } from '@flotilla/api';
import type { StoredLike } from '@flotilla/client';
import { formatTable, objectRows } from '@flotilla/presentation';

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
