// A test, bench or `scripts/up` that crashes or is killed -9 must not leave its services running: each service that
// packages/launcher's Suite started stops by itself once its supervisor is gone (the IPC channel closes).
import { afterAll, describe, expect, it } from 'vitest';
import { busNames, connectBus, destroyBus } from '@flotilla/bus';
import { NATS_URL, REDIS_URL, scaled, startPidReporter, stillRunningAfter, uniquePrefix } from '@flotilla/testkit';
import { isAlive } from '@flotilla/testkit/kube';
import { ROOT } from './support/suite.js';

const prefix = uniquePrefix('supervisor-gone');
afterAll(async () => {
  const bus = await connectBus({ url: NATS_URL, prefix: 'supervisor-gone-cleanup' });
  await destroyBus({ ...bus, names: busNames(prefix) });
  await destroyBus(bus);
  await bus.close();
});

/** A supervisor as a bench is one: starts the services with a Suite, prints their pids, then waits to be killed. */
const supervisor = `
import { Suite } from '@flotilla/launcher';
const suite = new Suite({ root: process.env.ROOT, services: ['gateway', 'status-writer'], env: {
  NATS_URL: process.env.NATS_URL, REDIS_URL: process.env.REDIS_URL, FLOTILLA_PREFIX: process.env.FLOTILLA_PREFIX,
  LOG_LEVEL: 'info', LEADER_LEASE_MS: '2000' } });
await suite.start();
console.log('PIDS ' + suite.processes.map((p) => p.child.pid).join(' '));
setInterval(() => undefined, 60_000);
`;

describe('a supervisor that is killed -9', () => {
  it('leaves no service running: each stops cleanly by itself', async () => {
    const { reporter, pids } = await startPidReporter(supervisor, {
      cwd: ROOT,
      env: { ...process.env, ROOT, NATS_URL, REDIS_URL, FLOTILLA_PREFIX: prefix },
    });
    expect(pids).toHaveLength(2);
    expect(pids.every(isAlive)).toBe(true);
    reporter.kill('SIGKILL');
    // Stopping takes well under a second; log lines that nobody reads any more may hold an exit for
    // STALLED_OUTPUT_GIVE_UP_MS (packages/runtime/src/logger.ts) before they are dropped.
    expect(await stillRunningAfter(pids, scaled(20_000))).toEqual([]);
  }, 90_000);
});
