// NATS and Redis with credentials, end to end: the services connect with user/password (and a token), and never
// log a secret. Each test starts its own password-protected nats-server / redis-server on a free loopback port.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, Suite } from '@flotilla/launcher';
import { eventually } from '@flotilla/testkit';
import { flotilla } from './support/cli.js';
import { ROOT } from './support/suite.js';

const NATS_PASSWORD = 'n4ts-s3cret';
const NATS_TOKEN = 't0ken-s3cret';
const REDIS_PASSWORD = 'r3dis-s3cret';
const servers: ChildProcess[] = [];
let dir: string;
let natsPort: number;
let natsTokenPort: number;
let redisPort: number;

function start(cmd: string, args: string[]): ChildProcess {
  const child = spawn(cmd, args, { stdio: 'ignore' });
  servers.push(child);
  return child;
}

async function listening(port: number): Promise<void> {
  const net = await import('node:net');
  await eventually(
    () =>
      new Promise<true | undefined>((resolve) => {
        const sock = net.connect(port, '127.0.0.1', () => {
          sock.destroy();
          resolve(true);
        });
        sock.on('error', () => resolve(undefined));
      }),
    10_000,
    `a server on port ${port}`,
  );
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'flotilla-creds-'));
  [natsPort, natsTokenPort, redisPort] = [await freePort(), await freePort(), await freePort()];
  start('nats-server', [
    '-a',
    '127.0.0.1',
    '-p',
    String(natsPort),
    '-js',
    '-sd',
    join(dir, 'nats'),
    '--user',
    'flotilla',
    '--pass',
    NATS_PASSWORD,
  ]);
  start('nats-server', [
    '-a',
    '127.0.0.1',
    '-p',
    String(natsTokenPort),
    '-js',
    '-sd',
    join(dir, 'nats-token'),
    '--auth',
    NATS_TOKEN,
  ]);
  start('redis-server', [
    '--bind',
    '127.0.0.1',
    '--port',
    String(redisPort),
    '--save',
    '',
    '--appendonly',
    'no',
    '--requirepass',
    REDIS_PASSWORD,
    '--dir',
    dir,
  ]);
  await Promise.all([listening(natsPort), listening(natsTokenPort), listening(redisPort)]);
}, 30_000);

afterAll(async () => {
  for (const s of servers) s.kill('SIGTERM');
  await Promise.all(servers.map((s) => new Promise((r) => (s.exitCode !== null ? r(null) : s.once('exit', r)))));
  await rm(dir, { recursive: true, force: true });
});

async function runSuite(env: Record<string, string>) {
  const logs: string[] = [];
  const suite = new Suite({
    root: ROOT,
    services: ['gateway', 'status-writer'],
    env,
    onOutput: (_s, l) => logs.push(l),
  });
  await suite.start();
  return { suite, logs };
}

describe('credentials', () => {
  it('user/password in the URLs: the services work and no secret reaches the logs', async () => {
    const env = {
      FLOTILLA_PREFIX: 'creds',
      NATS_URL: `nats://flotilla:${NATS_PASSWORD}@127.0.0.1:${natsPort}`,
      REDIS_URL: `redis://:${REDIS_PASSWORD}@127.0.0.1:${redisPort}`,
      LOG_LEVEL: 'debug',
    };
    const { suite, logs } = await runSuite(env);
    try {
      const r = await flotilla(env, ['apply', '-f', join(ROOT, 'examples', '00-clusters.yaml')]);
      expect(r.err).toBe('');
      expect(r.out).toMatch(/cluster\/member1 created/);
    } finally {
      await suite.stop();
    }
    const all = logs.join('\n');
    expect(all).toMatch(/elected leader/); // status-writer reached Redis and took its lease
    expect(all).not.toContain(NATS_PASSWORD);
    expect(all).not.toContain(REDIS_PASSWORD);
  });

  it('credentials in their own variables, and a NATS token', async () => {
    const env = {
      FLOTILLA_PREFIX: 'creds',
      NATS_URL: `nats://127.0.0.1:${natsTokenPort}`,
      NATS_TOKEN,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      REDIS_PASSWORD,
      LOG_LEVEL: 'debug',
    };
    const { suite, logs } = await runSuite(env);
    try {
      const r = await flotilla(env, ['get', 'clusters']);
      expect(r.code).toBe(0);
    } finally {
      await suite.stop();
    }
    const all = logs.join('\n');
    expect(all).not.toContain(NATS_TOKEN);
    expect(all).not.toContain(REDIS_PASSWORD);
  });

  it('a wrong password stops start-up with a clear error', async () => {
    const env = {
      FLOTILLA_PREFIX: 'creds',
      NATS_URL: `nats://flotilla:wrong@127.0.0.1:${natsPort}`,
      REDIS_URL: `redis://:${REDIS_PASSWORD}@127.0.0.1:${redisPort}`,
    };
    await expect(runSuite(env)).rejects.toThrow(/exited with code 1/);
  });
});
