import type { CliIo, Session } from '../context.js';
import { readManifests } from '../context.js';
import { errorText } from '../errors.js';

/** `apply -f`: every document is parsed before any is sent, so a malformed file stores nothing. */
export async function applyCommand(io: CliIo, session: () => Promise<Session>, files: string[], dryRun: boolean): Promise<number> {
  const docs = await readManifests(io, files);
  const s = await session();
  let failed = 0;
  for (const { doc } of docs) {
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
