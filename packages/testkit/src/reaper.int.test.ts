// A test process killed -9 runs no exit hook: what it started must still stop (the brief's "a killed test run
// leaves its API servers and etcds").
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { isAlive } from './kube/processes.js';
import { startPidReporter, stillRunningAfter } from './orphans.js';
import { scaled } from './time-scale.js';

const dist = (file: string) => fileURLToPath(new URL(`../dist/${file}`, import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'flotilla-reaper-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A test process in miniature: starts a program the way kube clusters do and a Redis of its own, then waits. */
const testProcess = `
const { ManagedProcess } = await import(process.env.KUBE_DIST);
const { PrivateRedis, freeTcpPort } = await import(process.env.TESTKIT_DIST);
const program = new ManagedProcess({ name: 'sleeper', program: 'sleep', args: ['300'], dir: process.env.DIR });
await program.start();
const redis = new PrivateRedis(await freeTcpPort());
await redis.start();
console.log('PIDS ' + program.pid + ' ' + redis.child.pid);
setInterval(() => undefined, 60_000);
`;

describe('a test process killed -9', () => {
  it('leaves none of the programs and servers it started running', async () => {
    const { reporter, pids } = await startPidReporter(testProcess, {
      env: { ...process.env, KUBE_DIST: dist('kube/index.js'), TESTKIT_DIST: dist('index.js'), DIR: dir },
    });
    expect(pids.every(isAlive)).toBe(true);
    reporter.kill('SIGKILL');
    // SIGTERM at once, SIGKILL 2 s later for whatever ignores it.
    expect(await stillRunningAfter(pids, scaled(10_000))).toEqual([]);
  }, 60_000);
});
