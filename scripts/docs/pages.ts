/** The pages of docs/ with generated blocks, and how a page is rendered: blocks replaced, then formatted by Biome. */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { renderCliReference } from './cli-reference.js';
import { renderConfigReference } from './config-reference.js';
import { replaceGeneratedBlock } from './generated-block.js';

export interface GeneratedPage {
  /** Relative to the repository root. */
  file: string;
  blocks: ReadonlyArray<{ name: string; render: (root: string) => string }>;
}

export const GENERATED_PAGES: readonly GeneratedPage[] = [
  { file: 'docs/configuration.md', blocks: [{ name: 'configuration', render: renderConfigReference }] },
  { file: 'docs/cli.md', blocks: [{ name: 'cli-help', render: renderCliReference }] },
];

/** Biome's formatting of a Markdown text (the repository's formatter: `pnpm run lint` checks docs/ with it). */
export function formatMarkdown(root: string, file: string, text: string): string {
  const run = spawnSync(join(root, 'node_modules/.bin/biome'), ['format', `--stdin-file-path=${file}`], {
    cwd: root,
    input: text,
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`biome format ${file}: exit ${run.status}: ${run.stderr.trim()}`);
  return run.stdout;
}

/** The page as the generator writes it: every block rendered afresh into `text`, then formatted. */
export function renderPage(root: string, page: GeneratedPage, text: string): string {
  let out = text;
  for (const block of page.blocks) out = replaceGeneratedBlock(page.file, out, block.name, block.render(root));
  return formatMarkdown(root, page.file, out);
}
