import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * What a test process starts (API servers, etcds, kubelets, private NATS and Redis servers) must not outlive it, also
 * when it is killed -9 and no exit hook runs. A reaper, one small process per test process started on first use,
 * holds an IPC channel to it; the channel closes when the test process is gone, however it went, and the reaper then
 * stops every process it was told of (the way packages/launcher's Suite lets a service learn its supervisor is gone).
 *
 * The reaper runs in a process group of its own, so a Ctrl-C that reaches the test's group does not take it first.
 *
 * A pid names a process only while it runs: once the process has gone, the kernel hands its number to a later one,
 * and with Linux's default pid space (32,768) a suite that starts thousands of processes wraps it within minutes. So
 * each watch carries the process's start time (see `processStartTime`), and the reaper signals the pid only while
 * the start time still matches. It signals a process group by that number while no other process has the number:
 * the kernel does not hand out a number still in use as a group id, so such a group is still the one we started.
 */
export const REAPER_SCRIPT = `
const { readFileSync } = require('node:fs');
const startTime = (pid) => {
  try { const stat = readFileSync('/proc/' + pid + '/stat', 'utf8'); return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]; }
  catch { return undefined; }
};
const watched = new Map();
process.on('message', (m) => {
  if (m && typeof m.watch === 'number') watched.set(m.watch, m.start);
  if (m && typeof m.forget === 'number') watched.delete(m.forget);
});
const signal = (pid, start, sig) => {
  const now = startTime(pid);
  if (start !== undefined && now !== undefined && now !== start) return; // the number is another process's now
  try { process.kill(-pid, sig); return; } catch {}
  if (start === undefined || now === start) { try { process.kill(pid, sig); } catch {} }
};
process.on('disconnect', () => {
  for (const [pid, start] of watched) signal(pid, start, 'SIGTERM');
  setTimeout(() => {
    for (const [pid, start] of watched) signal(pid, start, 'SIGKILL');
    process.exit(0);
  }, ${2_000});
});
`;

/**
 * When process `pid` started, in clock ticks since boot (field 22 of `/proc/<pid>/stat`): with the pid it names one
 * process for good. Undefined when the process is gone or the system has no /proc (the reaper then trusts the pid).
 */
export function processStartTime(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may itself hold spaces and ')': fields 3 on follow the last ')'.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

/** The reaper of this process, started on first use. */
let reaper: ChildProcess | undefined;

function theReaper(): ChildProcess {
  if (reaper?.connected) return reaper;
  const child = spawn(process.execPath, ['-e', REAPER_SCRIPT], {
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    detached: true,
  });
  // Neither the reaper nor its channel may keep this process alive: it is there for when this process is gone.
  child.unref();
  child.channel?.unref();
  reaper = child;
  return child;
}

/** What the reaper is told: watch a process (its pid and start time) or forget one. */
export type ReaperMessage = { watch: number; start: string | undefined } | { forget: number };

function tell(message: ReaperMessage): Promise<void> {
  const child = theReaper();
  return new Promise((resolve) => {
    // A message that cannot be sent (the reaper died) loses only the guarantee this module adds.
    if (!child.send(message, () => resolve())) resolve();
  });
}

/**
 * Stops `child` (its process group when it leads one: SIGTERM, SIGKILL 2 s later) if this process dies while the
 * child still runs. Call it once the child has spawned; resolves when the reaper knows.
 */
export async function stopWithThisProcess(child: ChildProcess): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  // Read now, while the child certainly holds its pid.
  const start = processStartTime(pid);
  // Once the child is gone the reaper must not signal its number, whatever the start time says.
  child.once('exit', () => {
    if (reaper?.connected) void tell({ forget: pid });
  });
  await tell({ watch: pid, start });
}
