import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeTcpPort, PrivateNats } from '@flotilla/testkit';
import { CliError, openSession, type CliIo } from './context.js';

const io = (env: Record<string, string | undefined>): CliIo => ({
  out: () => undefined,
  err: () => undefined,
  readStdin: async () => '',
  now: () => new Date(),
  env,
});

let nats: PrivateNats;
beforeAll(async () => {
  nats = new PrivateNats(await freeTcpPort(), {
    config: 'authorization { user: flotilla, password: "right-password" }',
  });
  await nats.start();
});
afterAll(async () => {
  await nats?.dispose();
});

async function failure(env: Record<string, string | undefined>): Promise<CliError> {
  const err = await openSession(io(env)).then(
    async (s) => {
      await s.bus.close();
      throw new Error('expected the session to fail');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CliError);
  return err as CliError;
}

describe('openSession explains why the CLI cannot reach the suite', () => {
  it('says the credentials were refused, naming the variables to check, when NATS refuses them', async () => {
    const err = await failure({ NATS_URL: nats.url, NATS_USER: 'flotilla', NATS_PASSWORD: 'wrong-password' });
    expect(err.message).toMatch(/refused the credentials/);
    expect(err.message).toMatch(/NATS_USER/);
    expect(err.message).toMatch(/NATS_PASSWORD/);
    expect(err.message).toMatch(/NATS_TOKEN/);
    expect(err.message).not.toMatch(/Start it with/);
    expect(err.message).not.toContain('wrong-password');
  });

  it('says the same when NATS asks for credentials and none were given', async () => {
    const err = await failure({ NATS_URL: nats.url });
    expect(err.message).toMatch(/refused the credentials/);
  });

  it('connects with the right credentials', async () => {
    const s = await openSession(io({ NATS_URL: nats.url, NATS_USER: 'flotilla', NATS_PASSWORD: 'right-password' }));
    await s.bus.close();
  });

  it('suggests starting the suite with scripts/up when nothing answers', async () => {
    const err = await failure({ NATS_URL: `nats://127.0.0.1:${await freeTcpPort()}` });
    expect(err.message).toMatch(/Is the suite running\? Start it with: scripts\/up/);
  });
});
