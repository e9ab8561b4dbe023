import { resolveKind } from '@flotilla/api';
import type { CliIo, Session } from '../context.js';
import { readManifests } from '../context.js';
import { errorText } from '../errors.js';

export interface DeleteOptions {
  /** With `names`: what to delete; not used with `filename`. */
  kind?: string;
  names: string[];
  /** `-f`: delete the objects these files name. */
  filename?: string[];
  namespace?: string;
}

export async function deleteCommand(io: CliIo, session: () => Promise<Session>, args: DeleteOptions): Promise<number> {
  const targets: Array<{ kind: string; name: string; namespace?: string }> = [];
  if (args.filename?.length) {
    for (const { doc } of await readManifests(io, args.filename)) {
      const o = doc as { kind?: string; metadata?: { name?: string; namespace?: string } };
      if (!o?.kind || !o.metadata?.name) {
        io.err('error: a document without kind or metadata.name cannot be deleted');
        return 1;
      }
      targets.push({ kind: o.kind, name: o.metadata.name, namespace: o.metadata.namespace ?? args.namespace });
    }
  } else {
    if (!args.kind || args.names.length === 0) {
      io.err('error: you must specify KIND NAME or -f FILE');
      return 1;
    }
    for (const name of args.names) targets.push({ kind: args.kind, name, namespace: args.namespace });
  }
  const s = await session();
  let failed = 0;
  for (const t of targets) {
    try {
      const info = resolveKind(t.kind);
      await s.client.delete(info.kind, t.name, info.namespaced ? (t.namespace ?? 'default') : undefined);
      io.out(`${info.kind.toLowerCase()} "${t.name}" deleted`);
    } catch (err) {
      failed++;
      io.err(errorText(err));
    }
  }
  return failed ? 1 : 0;
}
