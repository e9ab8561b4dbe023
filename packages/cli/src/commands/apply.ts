import { MAX_OBJECT_BYTES } from '@flotilla/api';
import type { CliIo, Session } from '../context.js';
import { CliError, readManifests } from '../context.js';
import { errorText } from '../errors.js';

/**
 * `apply -f`: every document is parsed before any is sent, so a malformed file stores nothing. Then, as kubectl's
 * apply, each document is applied on its own: the valid ones are stored, each invalid one prints its error, and the
 * exit code is 1 if any failed.
 */
export interface ApplyOptions {
  /** `-f`: files, directories or `-` (stdin). */
  filename: string[];
  /** `--dry-run`: admission only, nothing stored. */
  dryRun?: boolean;
}

export async function applyCommand(io: CliIo, session: () => Promise<Session>, o: ApplyOptions): Promise<number> {
  const dryRun = Boolean(o.dryRun);
  const docs = await readManifests(io, o.filename);
  if (docs.length === 0) throw new CliError('error: no objects passed to apply');
  const s = await session();
  let failed = 0;
  for (const { doc } of docs) {
    // Checked here too: over the bus's payload limit the gateway could not even receive it to say so.
    const size = Buffer.byteLength(JSON.stringify(doc));
    if (size > MAX_OBJECT_BYTES) {
      failed++;
      io.err(
        `error: ${describeDoc(doc)}: object is too large: ${size} bytes of JSON, the limit is ${MAX_OBJECT_BYTES}`,
      );
      continue;
    }
    try {
      const r = await s.client.apply(doc, { dryRun });
      io.out(`${r.object.kind.toLowerCase()}/${r.object.metadata.name} ${r.outcome}${dryRun ? ' (dry run)' : ''}`);
      for (const w of r.warnings ?? [])
        io.err(`warning: ${r.object.kind.toLowerCase()}/${r.object.metadata.name}: ${w}`);
    } catch (err) {
      failed++;
      io.err(errorText(err));
    }
  }
  return failed ? 1 : 0;
}

function describeDoc(doc: unknown): string {
  const o = doc as { kind?: unknown; metadata?: { name?: unknown } } | null;
  return `${typeof o?.kind === 'string' ? o.kind.toLowerCase() : 'object'}/${typeof o?.metadata?.name === 'string' ? o.metadata.name : '<unnamed>'}`;
}
