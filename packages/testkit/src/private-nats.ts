import { spawn, type ChildProcess } from 'node:child_process';
import { stopWithThisProcess } from './reaper.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** True when something on the port answers like a NATS server (its INFO line). */
function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = netConnect({ port, host: '127.0.0.1' });
    const done = (ok: boolean) => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(1000, () => done(false));
    sock.once('error', () => done(false));
    sock.once('data', (d: Buffer) => done(d.toString('utf8').startsWith('INFO')));
  });
}

export interface PrivateNatsOptions {
  /** Added inside the `jetstream { }` block, e.g. `max_file_store: 1MB` (a full store). */
  jetstream?: string;
  /** Added at the top level of the configuration, e.g. an `authorization { users: [...] }` block. */
  config?: string;
}

/**
 * A nats-server with JetStream of a test's own, on a fixed port with its store in a temporary folder, so that a test
 * can kill it, wipe its data and start it again (a NATS restarted empty). NATS_SERVER names the binary (default:
 * nats-server on PATH); without it the test fails saying what to install. Limits and users that nats-server takes only
 * from a configuration file (max_file_store, authorization) are given as configuration text.
 */
export class PrivateNats {
  readonly output: string[] = [];
  private child: ChildProcess | undefined;
  private readonly dir = mkdtempSync(join(tmpdir(), 'flotilla-nats-'));
  private readonly bin = process.env.NATS_SERVER ?? 'nats-server';

  constructor(
    readonly port: number,
    private readonly options: PrivateNatsOptions = {},
  ) {}

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  /** True while the server process runs. */
  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  async start(timeoutMs = 15_000): Promise<void> {
    const configFile = join(this.dir, 'nats-server.conf');
    writeFileSync(
      configFile,
      [
        `listen: "127.0.0.1:${this.port}"`,
        `jetstream { store_dir: ${JSON.stringify(join(this.dir, 'store'))}\n${this.options.jetstream ?? ''}\n}`,
        this.options.config ?? '',
      ].join('\n'),
    );
    const child = spawn(this.bin, ['-c', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    // After an exit, its last words (the fatal line) may still be on their way through the pipes.
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    for (const s of [child.stdout, child.stderr]) {
      s?.on('data', (b: Buffer) => this.output.push(...b.toString('utf8').split('\n').filter(Boolean)));
    }
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (err) =>
        reject(new Error(`cannot run ${this.bin} (${err.message}): apt-get install nats-server`)),
      );
    });
    await stopWithThisProcess(child);
    const deadline = Date.now() + timeoutMs;
    while (!(await answers(this.port))) {
      if (child.exitCode !== null) {
        await Promise.race([closed, new Promise((r) => setTimeout(r, 1000))]);
        const fatal = this.output.filter((l) => /\[(FTL|ERR)\]/.test(l));
        throw new Error(`nats-server exited: ${(fatal.length ? fatal : this.output.slice(-5)).join(' | ')}`);
      }
      if (Date.now() > deadline) throw new Error(`nats-server did not answer within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Stops the server (SIGKILL by default: a crash) and waits for it to exit. */
  async stop(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await exited;
  }

  /** Deletes the JetStream store: the next start comes up without any stream, bucket or consumer. */
  wipe(): void {
    rmSync(join(this.dir, 'store'), { recursive: true, force: true });
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
