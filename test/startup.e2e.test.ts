// Bad start-up conditions: each service stops at once with a message that says what is wrong.
import { afterAll, describe, expect, it } from 'vitest';
import { busNames, connectBus, destroyBus } from '@flotilla/bus';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { eventually, freeTcpPort, NATS_URL, PrivateNats, REDIS_URL, uniquePrefix } from '@flotilla/testkit';
import { ROOT } from './support/suite.js';

const prefixes: string[] = [];
afterAll(async () => {
  // A service that got as far as NATS before failing created its streams: remove them.
  const bus = await connectBus({ url: NATS_URL, prefix: 'boot-cleanup' });
  for (const prefix of [...prefixes, 'boot-cleanup']) await destroyBus({ ...bus, names: busNames(prefix) });
  await bus.close();
});

/** Starts a service; `exited` settles with its exit code and everything it wrote. */
function start(service: string, env: Record<string, string>) {
  const prefix = uniquePrefix('boot');
  prefixes.push(prefix);
  const child = spawn(process.execPath, [join(ROOT, 'services', service, 'dist', 'main.js')], {
    env: { ...process.env, NATS_URL, REDIS_URL, FLOTILLA_PREFIX: prefix, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<{ code: number | null; output: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, output })),
  );
  return { child, output: () => output, exited };
}

function run(service: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return start(service, env).exited;
}

describe('start-up failures', () => {
  it('NATS unreachable for STARTUP_CONNECT_MS: exits 1 naming the server, never its password', async () => {
    const r = await run('gateway', { NATS_URL: 'nats://flotilla:s3cret@127.0.0.1:1', STARTUP_CONNECT_MS: '1000' });
    expect(r.code).toBe(1);
    expect(r.output).toMatch(/nats not reachable/);
    expect(r.output).toMatch(/cannot reach NATS at nats:\/\/127\.0\.0\.1:1/);
    expect(r.output).not.toMatch(/s3cret/);
  });

  it('Redis unreachable for STARTUP_CONNECT_MS: exits 1 naming the server, never its password', async () => {
    const r = await run('status-writer', { REDIS_URL: 'redis://:s3cret@127.0.0.1:1', STARTUP_CONNECT_MS: '1000' });
    expect(r.code).toBe(1);
    expect(r.output).toMatch(/redis(-timers)? not reachable/);
    expect(r.output).toMatch(/cannot reach Redis at redis:\/\/.*127\.0\.0\.1:1/);
    expect(r.output).not.toMatch(/s3cret/);
  });

  it('SIGTERM while it waits for NATS: stops trying and exits 0', async () => {
    const service = start('affinity-scheduler', { NATS_URL: 'nats://127.0.0.1:1' });
    await eventually(() => (/nats not reachable/.test(service.output()) ? true : undefined), 30_000, 'a retry');
    service.child.kill('SIGTERM');
    const r = await service.exited;
    expect(r.code).toBe(0);
    expect(r.output).toMatch(/"msg":"start-up cancelled"/);
    expect(r.output).not.toMatch(/start-up failed/);
  });

  it('NATS that answers only after the service started: the service waits for it, not-ready meanwhile, and starts', async () => {
    const nats = new PrivateNats(await freeTcpPort());
    const service = start('gateway', { NATS_URL: nats.url, HTTP_PORT: String(await freeTcpPort()) });
    try {
      await eventually(() => (/nats not reachable/.test(service.output()) ? true : undefined), 30_000, 'a retry');
      const port = Number(/"httpPort":(\d+)/.exec(service.output())![1]);
      const readyz = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(readyz.status).toBe(503);
      expect(await readyz.text()).toMatch(/nats: connecting: cannot reach NATS at/);
      await nats.start();
      await eventually(() => (/"msg":"started"/.test(service.output()) ? true : undefined), 60_000, 'started');
      await eventually(
        async () => ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200 ? true : undefined),
        30_000,
        'ready',
      );
    } finally {
      service.child.kill('SIGTERM');
      await service.exited;
      await nats.stop();
    }
  });

  it('a bad configuration value: exits 1 naming the variable', async () => {
    const r = await run('affinity-scheduler', { LEADER_LEASE_MS: 'soon' });
    expect(r.code).toBe(1);
    expect(r.output).toMatch(/LEADER_LEASE_MS/);
  });
});
