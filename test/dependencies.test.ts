// The direct dependencies of every workspace package, each with its major: a dependency's new major (or a new
// dependency) is a visible diff of the list below, reviewed with docs/dependencies.md (why any is not on its current
// major). No registry is asked: `pnpm outdated -r` says what is newer.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/suite.js';

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const KINDS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'] as const;

/** The root and every package under packages/ and services/ (pnpm-workspace.yaml's globs). */
function workspaceDirs(): string[] {
  const dirs = ['packages', 'services'].flatMap((d) => readdirSync(join(ROOT, d)).map((n) => join(d, n)));
  return ['.', ...dirs.filter((d) => existsSync(join(ROOT, d, 'package.json')))];
}

/** The major of a version or range: 2 of ^2.0.1, 5 of ~5.9.3; below 1.0 the minor breaks, so 0.28 of 0.28.2. */
function majorOf(version: string): string {
  const m = /(\d+)\.(\d+)/.exec(version);
  if (!m) throw new Error(`not a version or range: ${version}`);
  return m[1] === '0' ? `0.${m[2]}` : m[1]!;
}

interface Dependency {
  dir: string;
  pkg: string;
  dep: string;
  range: string;
  dev: boolean;
}

function directDependencies(): Dependency[] {
  const out: Dependency[] = [];
  for (const dir of workspaceDirs()) {
    const manifest = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as Manifest;
    for (const kind of KINDS) {
      for (const [dep, range] of Object.entries(manifest[kind] ?? {})) {
        if (range.startsWith('workspace:')) continue;
        out.push({ dir, pkg: manifest.name, dep, range, dev: kind === 'devDependencies' });
      }
    }
  }
  return out;
}

describe('direct dependencies', () => {
  const deps = directDependencies();

  it('are these, at these majors', () => {
    const lines = deps.map((d) => `${d.pkg}: ${d.dep} ${majorOf(d.range)}${d.dev ? ' (dev)' : ''}`).sort();
    expect(lines).toEqual([
      '@flotilla/affinity-scheduler: prom-client 15',
      '@flotilla/api: yaml 2',
      '@flotilla/api: zod 4',
      '@flotilla/bus: @nats-io/jetstream 3',
      '@flotilla/bus: @nats-io/kv 3',
      '@flotilla/bus: @nats-io/transport-node 3',
      '@flotilla/cli: commander 15',
      '@flotilla/client: @nats-io/transport-node 3',
      '@flotilla/controller: bullmq 6',
      '@flotilla/controller: ioredis 6',
      '@flotilla/controller: prom-client 15',
      '@flotilla/cron-scheduler: ioredis 6',
      '@flotilla/cron-scheduler: prom-client 15',
      '@flotilla/cron: cron-parser 5 (dev)',
      '@flotilla/dashboard: uplot 1',
      '@flotilla/dashboard: yaml 2',
      '@flotilla/gateway: prom-client 15',
      '@flotilla/hpa-assigner: ioredis 6',
      '@flotilla/hpa-assigner: prom-client 15',
      '@flotilla/kube-bridge: @kubernetes/client-node 2',
      '@flotilla/kube-bridge: ioredis 6',
      '@flotilla/kube-bridge: pino 10',
      '@flotilla/kube-bridge: prom-client 15',
      '@flotilla/kube-client: @kubernetes/client-node 2',
      '@flotilla/kube-client: prom-client 15',
      '@flotilla/launcher: yaml 2',
      '@flotilla/member-agent: @kubernetes/client-node 2',
      '@flotilla/member-agent: prom-client 15',
      '@flotilla/member-agent: zod 4',
      '@flotilla/metric-history: @nats-io/jetstream 3',
      '@flotilla/metric-history: p-map 7',
      '@flotilla/prediction: fft.js 4',
      '@flotilla/prediction: quickselect 3',
      '@flotilla/rebalancer: ioredis 6',
      '@flotilla/rebalancer: p-map 7',
      '@flotilla/rebalancer: prom-client 15',
      '@flotilla/runtime: bullmq 6',
      '@flotilla/runtime: ioredis 6',
      '@flotilla/runtime: p-retry 9',
      '@flotilla/runtime: pino 10',
      '@flotilla/runtime: prom-client 15',
      '@flotilla/runtime: zod 4',
      '@flotilla/scheduling: fast-check 4 (dev)',
      '@flotilla/status-writer: prom-client 15',
      '@flotilla/store: pino 10 (dev)',
      '@flotilla/store: prom-client 15',
      '@flotilla/testkit: prom-client 15',
      'flotilla: @biomejs/biome 2 (dev)',
      'flotilla: @kubernetes/client-node 2 (dev)',
      'flotilla: @types/node 24 (dev)',
      'flotilla: esbuild 0.28 (dev)',
      'flotilla: ioredis 6 (dev)',
      'flotilla: p-map 7 (dev)',
      'flotilla: playwright-core 1 (dev)',
      'flotilla: testcontainers 12 (dev)',
      'flotilla: tsx 4 (dev)',
      'flotilla: typescript 5 (dev)',
      'flotilla: vitest 5 (dev)',
      'flotilla: yaml 2 (dev)',
    ]);
  });

  it('are installed at the major each package declares', () => {
    const installed = deps.map((d) => {
      const manifest = join(ROOT, d.dir, 'node_modules', d.dep, 'package.json');
      const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
      return `${d.pkg}: ${d.dep} ${majorOf(version)}`;
    });
    expect(installed).toEqual(deps.map((d) => `${d.pkg}: ${d.dep} ${majorOf(d.range)}`));
  });

  it('name their majors as a range does', () => {
    expect([majorOf('^2.0.1'), majorOf('~5.9.3'), majorOf('0.28.2'), majorOf('1.6.32')]).toEqual([
      '2',
      '5',
      '0.28',
      '1',
    ]);
    expect(() => majorOf('latest')).toThrow('not a version or range: latest');
  });
});
