// The documentation holds to the code: docs/configuration.md's reference is what the services' config schemas say,
// docs/cli.md's is what the built CLI's help prints (both written by scripts/gen-docs), every relative link of
// README.md and docs/ resolves, and the architecture page's layer picture names every package.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { envInt, baseConfigSchema } from '@flotilla/runtime';
import { describe, expect, it } from 'vitest';
import { configVariables, isUndocumentedVariableError } from '../scripts/docs/config-reference.js';
import { isGeneratedBlockError, readGeneratedBlock } from '../scripts/docs/generated-block.js';
import { brokenLinks, headingSlug, markdownLinks, pageAnchors } from '../scripts/docs/links.js';
import { GENERATED_PAGES, renderPage } from '../scripts/docs/pages.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

describe.each(GENERATED_PAGES.map((p) => [p.file, p] as const))('%s', (file, page) => {
  it('holds what scripts/gen-docs generates (run it after changing a config schema or a command)', () => {
    const text = readFileSync(join(root, file), 'utf8');
    const expected = renderPage(root, page, text);
    for (const block of page.blocks)
      expect(readGeneratedBlock(file, text, block.name), `block ${block.name}`).toBe(
        readGeneratedBlock(file, expected, block.name),
      );
    expect(text).toBe(expected);
  });
});

describe('the configuration reference', () => {
  it('lists every variable of every service with its default and what it accepts', () => {
    const text = readFileSync(join(root, 'docs/configuration.md'), 'utf8');
    expect(text).toMatch(/\| `NATS_URL` +\| `nats:\/\/127\.0\.0\.1:4222` +\|/);
    expect(text).toMatch(/\| `FAILOVER_GRACE_MS` +\| `30000 \(30 s\)` +\| expected a non-negative integer +\|/);
    expect(text).toMatch(/\| `SCHEDULER_REPLICAS` +\| `leader` +\| expected one of leader, active +\|/);
  });

  it('refuses a variable without a doc comment, naming it and its file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'flotilla-docs-'));
    writeFileSync(
      join(dir, 'config.ts'),
      'export const s = base.extend({\n  /** Documented. */\n  A_MS: envInt({ default: 1 }),\n  B_COUNT: envInt(),\n});\n',
    );
    const schema = baseConfigSchema.extend({ A_MS: envInt({ default: 1 }), B_COUNT: envInt() });
    let caught: unknown;
    try {
      configVariables(dir, { schema, file: 'config.ts' }, ['A_MS', 'B_COUNT']);
    } catch (err) {
      caught = err;
    }
    expect(isUndocumentedVariableError(caught)).toBe(true);
    expect((caught as Error).message).toContain('B_COUNT (config.ts)');
    expect(configVariables(dir, { schema, file: 'config.ts' }, ['A_MS'])).toEqual([
      { name: 'A_MS', default: '1', accepts: 'expected an integer', doc: 'Documented.' },
    ]);
  });

  it('says which marker a page lacks', () => {
    let caught: unknown;
    try {
      readGeneratedBlock('docs/x.md', '# x\n', 'configuration');
    } catch (err) {
      caught = err;
    }
    expect(isGeneratedBlockError(caught)).toBe(true);
    expect((caught as Error).message).toMatch(/^docs\/x\.md: generated block "configuration": no line "<!-- BEGIN/);
  });
});

/** README.md and every Markdown page under docs/. */
function pages(): string[] {
  const out = ['README.md'];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) out.push(path);
    }
  };
  walk('docs');
  return out;
}

describe('links', () => {
  it('every relative link of README.md and docs/ resolves, to a file and to a heading', () => {
    expect(pages().flatMap((page) => brokenLinks(root, page))).toEqual([]);
  });

  it('every page under docs/ is reachable from docs/README.md or README.md', () => {
    const linked = new Set<string>();
    for (const page of ['README.md', 'docs/README.md'])
      for (const { target } of markdownLinks(readFileSync(join(root, page), 'utf8')))
        linked.add(relative(root, join(root, dirname(page), target.split('#')[0] as string)));
    const orphans = pages().filter((p) => p !== 'README.md' && p !== 'docs/README.md' && !linked.has(p));
    expect(orphans).toEqual([]);
  });

  it('finds a broken file and a broken anchor, and none in code', () => {
    const dir = mkdtempSync(join(tmpdir(), 'flotilla-links-'));
    writeFileSync(
      join(dir, 'a.md'),
      [
        '# A page',
        '## Real member clusters (`MEMBER_DRIVER=kube`)',
        '## A page',
        'See [b](b.md), [the drivers](#real-member-clusters-member_driverkube), [again](#a-page-1),',
        '[gone](missing.md), [no such part](#nowhere) and ![a picture](pic.png).',
        '`[not a link](nowhere.md)`',
        '```',
        '[not a link either](nowhere.md)',
        '## not a heading',
        '```',
        '[not in code](#not-a-heading)',
      ].join('\n'),
    );
    writeFileSync(join(dir, 'b.md'), '# B\n');
    expect(brokenLinks(dir, 'a.md')).toEqual([
      'a.md:5: missing.md: no such file',
      'a.md:5: #nowhere: no heading with this anchor',
      'a.md:5: pic.png: no such file',
      'a.md:11: #not-a-heading: no heading with this anchor',
    ]);
    expect(headingSlug('High availability: no single point of failure')).toBe(
      'high-availability-no-single-point-of-failure',
    );
    expect([...pageAnchors('# X\n# X\n<a id="here"></a>\n')]).toEqual(['x', 'x-1', 'here']);
  });
});

describe('docs/architecture.md', () => {
  it('names every workspace package of docs/design/layers.md in its layer picture', () => {
    const text = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
    const layers = readFileSync(join(root, 'docs/design/layers.md'), 'utf8');
    const packages = [...layers.matchAll(/^\| `(?:packages|services)\/([a-z-]+)`/gm)].map((m) => m[1] as string);
    expect(packages.length).toBeGreaterThan(20);
    const picture = /^```text\n 6 [\s\S]*?^```$/m.exec(text)?.[0] ?? '';
    expect(picture, 'a ```text block of the layers, " 6  services/*" its first line').not.toBe('');
    const missing = packages.filter((p) => !new RegExp(`(^|[\\s,/])${p}($|[\\s,])`, 'm').test(picture));
    expect(missing).toEqual([]);
  });
});
