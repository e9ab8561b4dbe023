// Writes deploy/crds/ and the Helm chart's crds/ from packages/api's schemas (run `pnpm run build` first).
// test/crds.test.ts fails when either folder differs from what this writes.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderCrdFiles } from '../packages/api/dist/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const files = renderCrdFiles();
for (const dir of [join(root, 'deploy', 'crds'), join(root, 'deploy', 'helm', 'flotilla', 'crds')]) {
  mkdirSync(dir, { recursive: true });
  for (const f of readdirSync(dir)) if (f.endsWith('.yaml') && !files.has(f)) rmSync(join(dir, f));
  for (const [name, text] of files) writeFileSync(join(dir, name), text);
  console.log(`wrote ${files.size} CustomResourceDefinitions to ${dir.slice(root.length + 1)}/`);
}
