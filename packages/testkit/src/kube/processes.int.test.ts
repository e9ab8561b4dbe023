// `scripts/kube-env down` stops programs by the pids a record holds, maybe long after `up` wrote it: by then a pid
// may name a process that took over the number of one that had gone.
import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { processStartTime } from '../reaper.js';
import { isAlive, isRecordedAlive, stopPid } from './processes.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** A `sleep 300` leading a process group of its own, the way ManagedProcess runs each program. */
async function sleeper(): Promise<ChildProcess & { pid: number }> {
  const child = spawn('sleep', ['300'], { stdio: 'ignore', detached: true });
  children.push(child);
  await new Promise((resolve, reject) => child.once('spawn', resolve).once('error', reject));
  return child as ChildProcess & { pid: number };
}

describe('stopPid and isRecordedAlive, given a record', () => {
  it('stop the recorded process when its start time is the recorded one', async () => {
    const ours = await sleeper();
    const recorded = { pid: ours.pid, start: processStartTime(ours.pid) };
    expect(isRecordedAlive(recorded)).toBe(true);
    await stopPid(recorded);
    expect(isAlive(ours.pid)).toBe(false);
    expect(isRecordedAlive(recorded)).toBe(false);
  });

  it('spare a process that holds the number with another start time, and call the recorded one gone', async () => {
    const newcomer = await sleeper();
    const stale = { pid: newcomer.pid, start: '1' };
    expect(isRecordedAlive(stale)).toBe(false);
    await stopPid(stale, { graceMs: 100 });
    expect(isAlive(newcomer.pid)).toBe(true);
  });

  it('trust the pid alone for a record written without start times', async () => {
    const old = await sleeper();
    expect(isRecordedAlive({ pid: old.pid })).toBe(true);
    await stopPid({ pid: old.pid });
    expect(isAlive(old.pid)).toBe(false);
  });
});
