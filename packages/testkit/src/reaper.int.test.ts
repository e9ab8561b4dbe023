// A test process killed -9 runs no exit hook: what it started must still stop (the brief's "a killed test run
// leaves its API servers and etcds").
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { isAlive } from './kube/processes.js';
import { startPidReporter, stillRunningAfter } from './orphans.js';
import { processStartTime, REAPER_SCRIPT, type ReaperMessage } from './reaper.js';
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

describe('the reaper, once its test process is gone', () => {
  /** A `sleep 300` leading a process group of its own, the way kube programs run. */
  async function sleeper(program = 'sleep'): Promise<ChildProcess> {
    const child = spawn(program, ['300'], { stdio: 'ignore', detached: true });
    await new Promise((resolve, reject) => child.once('spawn', resolve).once('error', reject));
    return child;
  }

  it('stops what it was told of, but not a process that took over a number it was told of', async () => {
    const ours = await sleeper();
    // The reaper was told of a process that has since gone and whose number a newer process now holds: the start
    // time it was told differs from the one the number now has.
    const newcomer = await sleeper();
    const reaper = spawn(process.execPath, ['-e', REAPER_SCRIPT], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
    const send = (m: ReaperMessage) => new Promise<void>((resolve) => reaper.send(m, () => resolve()));
    try {
      await send({ watch: ours.pid!, start: processStartTime(ours.pid!) });
      await send({ watch: newcomer.pid!, start: '1' });
      const reaperExited = new Promise((resolve) => reaper.once('exit', resolve));
      reaper.disconnect();
      expect(await stillRunningAfter([ours.pid!], scaled(10_000))).toEqual([]);
      // The reaper exits after its SIGKILL round: by then it has done all it will do.
      await reaperExited;
      expect(isAlive(newcomer.pid!)).toBe(true);
    } finally {
      reaper.kill('SIGKILL');
      for (const child of [ours, newcomer]) child.kill('SIGKILL');
    }
  }, 60_000);

  it("reads a process's start time also when its name holds ') '", async () => {
    const odd = join(dir, 'sl ) eep');
    symlinkSync('/bin/sleep', odd);
    const child = await sleeper(odd);
    try {
      const start = processStartTime(child.pid!);
      expect(start).toMatch(/^\d+$/);
      // It started after this test process and before now (ticks since boot: at most 1,000 a second).
      const uptimeTicks = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]) * 1000;
      expect(Number(start)).toBeGreaterThanOrEqual(Number(processStartTime(process.pid)));
      expect(Number(start)).toBeLessThanOrEqual(uptimeTicks);
      expect(processStartTime(child.pid!)).toBe(start);
    } finally {
      child.kill('SIGKILL');
    }
    expect(processStartTime(2 ** 22 + 1)).toBeUndefined();
  });
});
