import { type ChildProcess, spawn } from 'node:child_process';
import { isAlive } from './kube/processes.js';

/**
 * For tests of what survives a killed process: runs `script` (an ES module) in a Node process of its own, which must
 * print `PIDS <pid> <pid>…` once it has started what it starts; resolves with that process and the pids.
 */
export function startPidReporter(
  script: string,
  opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<{ reporter: ChildProcess; pids: number[] }> {
  const reporter = spawn(process.execPath, ['--input-type=module', '-e', script], {
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
    env: opts.env ?? process.env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    reporter.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /PIDS ([\d ]+)\n/.exec(out);
      if (m) resolve({ reporter, pids: m[1]!.trim().split(' ').map(Number) });
    });
    reporter.on('exit', (code) => reject(new Error(`the script exited ${code} before it printed its PIDS line`)));
  });
}

/** Waits until none of `pids` runs or `budgetMs` has passed; returns those still running. */
export async function stillRunningAfter(pids: readonly number[], budgetMs: number): Promise<number[]> {
  const deadline = Date.now() + budgetMs;
  while (pids.some(isAlive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return pids.filter(isAlive);
}
