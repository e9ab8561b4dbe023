import type { StoredLike } from '@flotilla/client';
import { COLUMNS } from './columns.js';
import { formatAge } from './table.js';

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
