import { type ChildProcess, spawn } from 'node:child_process';

/**
 * What a test process starts (API servers, etcds, kubelets, private NATS and Redis servers) must not outlive it, also
 * when it is killed -9 and no exit hook runs. A reaper, one small process per test process started on first use,
 * holds an IPC channel to it; the channel closes when the test process is gone, however it went, and the reaper then
 * stops every process it was told of (the way packages/launcher's Suite lets a service learn its supervisor is gone).
 *
 * The reaper runs in a process group of its own, so a Ctrl-C that reaches the test's group does not take it first.
 */
const REAPER_SCRIPT = `
const pids = new Set();
process.on('message', (m) => {
  if (m && typeof m.watch === 'number') pids.add(m.watch);
  if (m && typeof m.forget === 'number') pids.delete(m.forget);
});
const signal = (pid, sig) => {
  try { process.kill(-pid, sig); } catch { try { process.kill(pid, sig); } catch {} }
};
process.on('disconnect', () => {
  for (const pid of pids) signal(pid, 'SIGTERM');
  setTimeout(() => {
    for (const pid of pids) signal(pid, 'SIGKILL');
    process.exit(0);
  }, ${2_000});
});
`;

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

function tell(message: { watch: number } | { forget: number }): Promise<void> {
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
  // Once the child is gone its pid may be reused: the reaper must not signal it any more.
  child.once('exit', () => {
    if (reaper?.connected) void tell({ forget: pid });
  });
  await tell({ watch: pid });
}
