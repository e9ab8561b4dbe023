// What a fresh clone runs after `pnpm run build`: the entry points of scripts/up and `pnpm exec flotilla` are the
// built files, not the sources the other tests import. scripts/test builds before it runs the tests.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('built artefacts', () => {
  it('the root build references every package and service that has a tsconfig', () => {
    const referenced = new Set(
      (
        JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8')) as { references: Array<{ path: string }> }
      ).references.map((r) => r.path),
    );
    const projects = ['packages', 'services'].flatMap((dir) =>
      readdirSync(join(root, dir))
        .filter((name) => existsSync(join(root, dir, name, 'tsconfig.json')))
        .map((name) => `${dir}/${name}`),
    );
    expect(projects.filter((p) => !referenced.has(p))).toEqual([]);
  });

  it('the built CLI runs offline: what-if cron on an example', () => {
    const out = execFileSync(
      process.execPath,
      [
        join(root, 'packages/cli/bin/flotilla.mjs'),
        'what-if',
        'cron',
        '-f',
        join(root, 'examples/30-web-cron.yaml'),
        '--now',
        '2026-03-06T09:04:00Z',
        '-o',
        'json',
      ],
      { encoding: 'utf8' },
    );
    const list = JSON.parse(out) as {
      kind: string;
      items: Array<{ status: { executionHistories: Array<{ ruleName: string; nextExecutionTime: string }> } }>;
    };
    expect(list.kind).toBe('List');
    // 09:04 UTC on a Friday is 17:04 in Shanghai: scale-down at 20:00 local today, scale-up at 08:00 local on Monday.
    expect(list.items[0]!.status.executionHistories).toEqual([
      { ruleName: 'scale-up', nextExecutionTime: '2026-03-09T00:00:00Z' },
      { ruleName: 'scale-down', nextExecutionTime: '2026-03-06T12:00:00Z' },
    ]);
  });
});
