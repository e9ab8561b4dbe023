import { spawn, type ChildProcess } from 'node:child_process';
import { stopWithThisProcess } from './reaper.js';
import { connect as netConnect, createServer } from 'node:net';

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
      if (buf.includes('\r\n')) done(buf.startsWith('+PONG'));
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

  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(timeoutMs = 15_000): Promise<void> {
    const child = spawn(
      this.bin,
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
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
}

/** A TCP port nothing listens on right now, for a server a test starts itself. */
export function freeTcpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}
