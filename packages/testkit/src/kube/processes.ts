import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { processStartTime, stopWithThisProcess } from '../reaper.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Processes this node process started and has not stopped: killed when it exits, whatever the way. */
const live = new Set<ManagedProcess>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const p of live) p.killNow();
  });
}

/** True while a process with this pid exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Signals the process group `pid` leads (every program runs in one of its own), else the process alone. */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

/**
 * A process as a record written by another process names it: its pid and, where it was known, its start time (see
 * `processStartTime`). A pid alone names a process only while it runs; once it has gone, the kernel hands the number
 * to a later process, and a record read after that (`scripts/kube-env down` an hour on) would name a stranger.
 */
export interface RecordedProcess {
  pid: number;
  start?: string;
}

/** True while the recorded process runs: its pid is alive and, when the record has a start time, still has it. */
export function isRecordedAlive({ pid, start }: RecordedProcess): boolean {
  if (!isAlive(pid)) return false;
  if (start === undefined) return true;
  const now = processStartTime(pid);
  // Gone between the two reads, or no /proc to ask: the pid is all there is to go by.
  return now === undefined || now === start;
}

/**
 * Stops a process group started by ManagedProcess from its record (what `scripts/kube-env down` has): SIGTERM, then
 * SIGKILL after `graceMs`. A pid that another process holds now (its start time is not the recorded one) is spared.
 */
export async function stopPid(recorded: RecordedProcess, { graceMs = 5000 }: { graceMs?: number } = {}): Promise<void> {
  const running = () => isRecordedAlive(recorded);
  if (!running()) return;
  signalGroup(recorded.pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (running() && Date.now() < deadline) await sleep(50);
  if (running()) {
    signalGroup(recorded.pid, 'SIGKILL');
    while (running()) await sleep(20);
  }
}

export interface ManagedProcessOptions {
  /** Short name (etcd, kube-apiserver, …): names the log file `<name>.log` and the pid file `<name>.pid`. */
  name: string;
  program: string;
  args: string[];
  /** Folder for the log and pid files. */
  dir: string;
  /** The environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /**
   * Keep running after this node process exits (scripts/kube-env up). Otherwise the process is killed when this node
   * process exits, so a crashed test leaves nothing behind.
   */
  outliveParent?: boolean;
}

/** One program of a cluster: started in a process group of its own, output to a log file, pid in a pid file. */
export class ManagedProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private exit: string | undefined;

  constructor(private readonly opts: ManagedProcessOptions) {}

  get name(): string {
    return this.opts.name;
  }

  get program(): string {
    return this.opts.program;
  }

  get args(): readonly string[] {
    return this.opts.args;
  }

  get logPath(): string {
    return join(this.opts.dir, `${this.opts.name}.log`);
  }

  get pidPath(): string {
    return join(this.opts.dir, `${this.opts.name}.pid`);
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Set once the process has exited: how (code / signal). */
  get exitDescription(): string | undefined {
    return this.exit;
  }

  get running(): boolean {
    return this.child !== undefined && this.exit === undefined;
  }

  async start(): Promise<void> {
    if (this.running) throw new Error(`${this.opts.name} is already running (pid ${this.child?.pid})`);
    const log = openSync(this.logPath, 'a');
    this.exit = undefined;
    let child: ChildProcess;
    try {
      child = spawn(this.opts.program, this.opts.args, {
        stdio: ['ignore', log, log],
        detached: true,
        env: this.opts.env ?? process.env,
      });
    } finally {
      closeSync(log);
    }
    this.child = child;
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        this.exit = `exited (code ${code}, signal ${signal})`;
        live.delete(this);
        resolve();
      }),
    );
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (err) => reject(new Error(`cannot run ${this.opts.program}: ${err.message}`)));
    });
    if (this.opts.outliveParent) child.unref();
    else {
      // The exit hook covers an orderly exit; the reaper a test process killed -9.
      installExitHook();
      live.add(this);
      await stopWithThisProcess(child);
    }
    await writeFile(this.pidPath, `${child.pid}\n`);
  }

  /** SIGTERM, SIGKILL after `graceMs`, and wait until it is gone. */
  async stop(graceMs = 5000): Promise<void> {
    const child = this.child;
    if (!child?.pid || this.exit !== undefined) return;
    signalGroup(child.pid, 'SIGTERM');
    const force = setTimeout(() => this.killNow(), graceMs);
    await this.exited;
    clearTimeout(force);
    await rm(this.pidPath, { force: true });
  }

  /** For process exit: no waiting possible. */
  killNow(): void {
    const child = this.child;
    if (!child?.pid || this.exit !== undefined) return;
    signalGroup(child.pid, 'SIGKILL');
  }

  /** The last lines of its log, for error messages. */
  logTail(lines = 25): string {
    try {
      return readFileSync(this.logPath, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  }
}
