import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeTcpPort, isAddressInUse } from '@flotilla/ports';
import { stopWithThisProcess } from './reaper.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** True when something on the port answers PING with PONG. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = netConnect({ port, host: '127.0.0.1' });
    let buf = '';
    const done = (ok: boolean) => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(1000, () => done(false));
    sock.once('error', () => done(false));
    sock.once('connect', () => sock.write('PING\r\n'));
    sock.on('data', (d: Buffer) => {
      buf += d.toString('utf8');
      // A server with requirepass answers NOAUTH: it is up all the same.
      if (buf.includes('\r\n')) done(buf.startsWith('+PONG') || buf.startsWith('-NOAUTH'));
    });
  });
}

/**
 * A redis-server of a test's own on a fixed port, without persistence, so that `stop` + `start` is a real Redis
 * restart: every connection drops and every key (queues, delayed jobs, leases, fencing counters) is gone.
 * REDIS_SERVER names the binary (default: redis-server on PATH); without it the tests fail, they do not skip.
 */
export class PrivateRedis {
  readonly output: string[] = [];
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private readonly bin = process.env.REDIS_SERVER ?? 'redis-server';
  private dir: string | undefined;

  constructor(
    readonly port: number,
    private readonly options: PrivateRedisOptions = {},
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** True while the server process runs. */
  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  private argv(): string[] {
    const { sentinel } = this.options;
    // A folder of its own: a replica writes the RDB of every full sync (whatever --save says), a Sentinel rewrites
    // its configuration file; neither may land in the working directory (the repository, under a test).
    this.dir ??= mkdtempSync(join(tmpdir(), sentinel === undefined ? 'flotilla-redis-' : 'flotilla-sentinel-'));
    if (sentinel === undefined)
      return [
        ...['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        ...['--dir', this.dir, '--daemonize', 'no', ...(this.options.args ?? [])],
      ];
    const file = join(this.dir, 'sentinel.conf');
    if (!existsSync(file)) writeFileSync(file, `port ${this.port}\nbind 127.0.0.1\ndaemonize no\n${sentinel}\n`);
    return [file, '--sentinel'];
  }

  async start(timeoutMs = 15_000): Promise<void> {
    const child = spawn(this.bin, this.argv(), { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    let exit: string | undefined;
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        exit = `exited (code ${code}, signal ${signal})`;
        resolve();
      }),
    );
    for (const stream of [child.stdout, child.stderr])
      stream?.on('data', (b: Buffer) => this.output.push(...b.toString('utf8').split('\n').filter(Boolean)));
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.on('error', (err) =>
        reject(
          new Error(
            `cannot run ${this.bin} (${err.message}): this test runs a Redis of its own and needs the redis-server binary ` +
              '(install it, e.g. apt-get install redis-server, or set REDIS_SERVER to its path)',
          ),
        ),
      );
    });
    await stopWithThisProcess(child);
    const deadline = Date.now() + timeoutMs;
    while (!(await ping(this.port))) {
      if (exit)
        throw new Error(
          `${this.bin} on port ${this.port} ${exit} before answering PING:\n${this.output.slice(-20).join('\n')}`,
        );
      if (Date.now() > deadline)
        throw new Error(
          `${this.bin} on port ${this.port} did not answer PING within ${timeoutMs} ms:\n${this.output.slice(-20).join('\n')}`,
        );
      await sleep(25);
    }
  }

  /** Stops the server (SIGKILL: a crash) and waits until it is gone. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    const force = setTimeout(() => child.kill('SIGKILL'), 5000);
    await this.exited;
    clearTimeout(force);
  }

  /** For process exit: no waiting possible. */
  killNow(): void {
    if (this.child && this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }

  /** Stops the server (SIGKILL) and removes its folder. */
  async dispose(): Promise<void> {
    await this.stop('SIGKILL');
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }
}

export interface PrivateRedisOptions {
  /** Further redis-server arguments, e.g. `['--replicaof', '127.0.0.1', '6380']`. */
  args?: string[];
  /**
   * Runs a Sentinel (`redis-server sentinel.conf --sentinel`, which is what Debian's redis-sentinel runs) with these
   * directives (`sentinel monitor ...`) after its port; `url` then names the Sentinel.
   */
  sentinel?: string;
}

/** Starts on a port of its own, once. */
export interface StartableServer {
  start(): Promise<void>;
  dispose(): Promise<void>;
}

/**
 * A server started on a free port (freeTcpPort), on another one when a process running beside the test took the port
 * between the pick and the server's bind ("address already in use"), up to `attempts` times.
 */
export async function startOnFreePort<T extends StartableServer>(make: (port: number) => T, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const server = make(await freeTcpPort());
    try {
      await server.start();
      return server;
    } catch (err) {
      await server.dispose().catch(() => undefined);
      if (attempt >= attempts || !isAddressInUse(err)) throw err;
    }
  }
}
