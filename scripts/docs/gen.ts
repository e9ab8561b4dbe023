/**
 * Writes the generated blocks of docs/ (scripts/gen-docs runs it): the configuration reference from the services'
 * schemas and the CLI reference from the built CLI's help. test/docs.test.ts fails when a page differs from this.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GENERATED_PAGES, renderPage } from './pages.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
for (const page of GENERATED_PAGES) {
  const path = join(root, page.file);
  const before = readFileSync(path, 'utf8');
  const after = renderPage(root, page, before);
  if (after !== before) writeFileSync(path, after);
  console.log(`${page.file}: ${after === before ? 'unchanged' : 'written'}`);
}
