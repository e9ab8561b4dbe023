import { resolveKind } from '@flotilla/api';
import type { StoredLike } from '@flotilla/client';
import type { CliIo, Session } from '../context.js';
import { parseOutput, printObjects } from '../output/format.js';
import { FAIL_BACKS_NAMES, getFailBacksCommand } from './get-failbacks.js';

export interface GetOptions {
  /** A kind, plural or short name. */
  kind: string;
  /** Objects to show; all of the kind when empty. */
  names: string[];
  namespace?: string;
  allNamespaces?: boolean;
  output?: string;
}

export async function getCommand(io: CliIo, s: Session, o: GetOptions): Promise<number> {
  if (FAIL_BACKS_NAMES.has(o.kind)) return getFailBacksCommand(io, s, o);
  const format = parseOutput(o.output);
  const { names } = o;
  const info = resolveKind(o.kind);
  const namespace = info.namespaced && !o.allNamespaces ? (o.namespace ?? 'default') : undefined;
  let items: StoredLike[];
  if (names.length) {
    items = [];
    for (const name of names) items.push(await s.client.get(info.kind, name, namespace));
  } else {
    items = (await s.client.list(info.kind, namespace)).items;
  }
  if (items.length === 0 && (format === 'table' || format === 'wide')) {
    io.err(namespace ? `No resources found in ${namespace} namespace.` : 'No resources found');
    return 0;
  }
  io.out(printObjects(items, names.length === 1, format, Boolean(info.namespaced && o.allNamespaces), io.now()));
  return 0;
}
