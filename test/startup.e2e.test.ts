// Bad start-up conditions: each service stops at once with a message that says what is wrong.
import { afterAll, describe, expect, it } from 'vitest';
import { busNames, connectBus, destroyBus } from '@flotilla/bus';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { NATS_URL, REDIS_URL, uniquePrefix } from '@flotilla/testkit';
import { ROOT } from './support/suite.js';

const prefixes: string[] = [];
afterAll(async () => {
  // A service that got as far as NATS before failing created its streams: remove them.
  const bus = await connectBus({ url: NATS_URL, prefix: 'boot-cleanup' });
  for (const prefix of [...prefixes, 'boot-cleanup']) await destroyBus({ ...bus, names: busNames(prefix) });
  await bus.close();
});

function run(service: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const prefix = uniquePrefix('boot');
  prefixes.push(prefix);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'services', service, 'dist', 'main.js')], {
      env: { ...process.env, NATS_URL, REDIS_URL, FLOTILLA_PREFIX: prefix, LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('start-up failures', () => {
  it('NATS unreachable: exits 1 naming the server, never its password', async () => {
    const r = await run('gateway', { NATS_URL: 'nats://flotilla:s3cret@127.0.0.1:1' });
    expect(r.code).toBe(1);
    expect(r.output).toMatch(/cannot reach NATS at nats:\/\/127\.0\.0\.1:1/);
    expect(r.output).not.toMatch(/s3cret/);
  });

  it('Redis unreachable: exits 1 naming the server, never its password', async () => {
    const r = await run('status-writer', { REDIS_URL: 'redis://:s3cret@127.0.0.1:1' });
    expect(r.code).toBe(1);
    expect(r.output).toMatch(/cannot reach Redis at redis:\/\/.*127\.0\.0\.1:1/);
    expect(r.output).not.toMatch(/s3cret/);
  });

  it('a bad configuration value: exits 1 naming the variable', async () => {
    const r = await run('affinity-scheduler', { LEADER_LEASE_MS: 'soon' });
    expect(r.code).toBe(1);
    expect(r.output).toMatch(/LEADER_LEASE_MS/);
  });
});
