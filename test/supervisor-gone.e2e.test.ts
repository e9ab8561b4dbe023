// A test, bench or `scripts/up` that crashes or is killed -9 must not leave its services running: each service that
// packages/launcher's Suite started stops by itself once its supervisor is gone (the IPC channel closes).
import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { busNames, connectBus, destroyBus } from '@flotilla/bus';
import { NATS_URL, REDIS_URL, scaled, uniquePrefix } from '@flotilla/testkit';
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

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('a supervisor that is killed -9', () => {
  it('leaves no service running: each stops cleanly by itself', async () => {
    const parent = spawn(process.execPath, ['--input-type=module', '-e', supervisor], {
      cwd: ROOT,
      env: { ...process.env, ROOT, NATS_URL, REDIS_URL, FLOTILLA_PREFIX: prefix },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const pids = await new Promise<number[]>((resolve, reject) => {
      let out = '';
      parent.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /PIDS ([\d ]+)\n/.exec(out);
        if (m) resolve(m[1]!.trim().split(' ').map(Number));
      });
      parent.on('exit', (code) => reject(new Error(`the supervisor exited ${code} before its services were ready`)));
    });
    expect(pids).toHaveLength(2);
    expect(pids.every(alive)).toBe(true);
    parent.kill('SIGKILL');
    // Stopping takes well under a second; log lines that nobody reads any more may hold an exit for
    // STALLED_OUTPUT_GIVE_UP_MS (packages/runtime/src/logger.ts) before they are dropped.
    const deadline = Date.now() + scaled(20_000);
    while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(pids.filter(alive)).toEqual([]);
  }, 90_000);
});
