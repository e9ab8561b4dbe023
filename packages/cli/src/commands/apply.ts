import { MAX_OBJECT_BYTES } from '@flotilla/api';
import type { CliIo, Session } from '../context.js';
import { readManifests } from '../context.js';
import { errorText } from '../errors.js';

/** `apply -f`: every document is parsed before any is sent, so a malformed file stores nothing. */
export async function applyCommand(
  io: CliIo,
  session: () => Promise<Session>,
  files: string[],
  dryRun: boolean,
): Promise<number> {
  const docs = await readManifests(io, files);
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
      const r = await s.client.apply(doc, dryRun);
      io.out(`${r.object.kind.toLowerCase()}/${r.object.metadata.name} ${r.outcome}${dryRun ? ' (dry run)' : ''}`);
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
