// BullMQ costs a service some 14 MB of resident memory: only a controller with delayed jobs loads it (when it starts),
// so the services without them (the gateway, the scheduler, the status writer, the member-agent) never do.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const dist = (pkg: string, file = 'index.js') => fileURLToPath(new URL(`../../${pkg}/dist/${file}`, import.meta.url));

/** A module resolve hook that writes down every module the process resolves, one URL a line. */
const recordResolved = `
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.RESOLVED_LOG, resolved.url + '\\n');
  return resolved;
}`;

const dir = mkdtempSync(join(tmpdir(), 'lazy-bullmq-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The URLs of every module a fresh process resolves while importing `modules`. */
async function resolvedBy(name: string, modules: string[]): Promise<string[]> {
  const log = join(dir, `${name}.log`);
  const script = `
import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(recordResolved)}));
for (const m of JSON.parse(process.env.MODULES)) await import(m);
`;
  await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, RESOLVED_LOG: log, MODULES: JSON.stringify(modules) },
  });
  return readFileSync(log, 'utf8').split('\n').filter(Boolean);
}

const bullmq = (urls: string[]) => urls.filter((u) => u.includes('/bullmq/'));

describe('BullMQ', () => {
  it('is not loaded by the runtime and the controller kit', async () => {
    const urls = await resolvedBy('kit', [dist('runtime'), dist('controller')]);
    expect(urls.some((u) => u.includes('/controller/dist/'))).toBe(true);
    expect(bullmq(urls)).toEqual([]);
  }, 30_000);

  it('is loaded by the delayed jobs module', async () => {
    const urls = await resolvedBy('delayed', [dist('runtime', 'delayed-jobs.js')]);
    expect(bullmq(urls).length).toBeGreaterThan(0);
  }, 30_000);
});
