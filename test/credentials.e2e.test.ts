// NATS and Redis with credentials, end to end: the services connect with user/password (and a token), and never
// log a secret. Each test starts its own password-protected nats-server / redis-server on a free loopback port.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { Suite } from '@flotilla/launcher';
import { PrivateNats, PrivateRedis, startOnFreePort } from '@flotilla/testkit';
import { flotilla } from './support/cli.js';
import { ROOT } from './support/suite.js';

const NATS_PASSWORD = 'n4ts-s3cret';
const NATS_TOKEN = 't0ken-s3cret';
const REDIS_PASSWORD = 'r3dis-s3cret';
let nats: PrivateNats | undefined;
let natsWithToken: PrivateNats | undefined;
let redis: PrivateRedis | undefined;
let natsPort: number;
let natsTokenPort: number;
let redisPort: number;

// Servers of this file's own, on free ports (another, when a file running beside it took one first).
beforeAll(async () => {
  nats = await startOnFreePort(
    (port) => new PrivateNats(port, { config: `authorization { user: flotilla, password: "${NATS_PASSWORD}" }` }),
  );
  natsWithToken = await startOnFreePort(
    (port) => new PrivateNats(port, { config: `authorization { token: "${NATS_TOKEN}" }` }),
  );
  redis = await startOnFreePort((port) => new PrivateRedis(port, { args: ['--requirepass', REDIS_PASSWORD] }));
  [natsPort, natsTokenPort, redisPort] = [nats.port, natsWithToken.port, redis.port];
}, 60_000);

afterAll(async () => {
  await Promise.all([nats?.dispose(), natsWithToken?.dispose(), redis?.dispose()]);
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
