import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './free-port.js';

/** The deployables `startSuite` knows, in start order. */
export const SERVICES = ['gateway', 'status-writer', 'member-agent', 'affinity-scheduler', 'cron-scheduler', 'rebalancer'] as const;
export type ServiceName = (typeof SERVICES)[number];

export interface SuiteOptions {
  /** Repository root (the folder holding services/). */
  root: string;
  services?: readonly string[];
  /** Extra environment for every service (NATS_URL, REDIS_URL, FLOTILLA_PREFIX, ...). */
  env?: Record<string, string>;
  /** Per-service extra environment. */
  serviceEnv?: Record<string, Record<string, string>>;
  /** Where each service's output goes; default: discarded. */
  onOutput?: (service: string, line: string) => void;
  readyTimeoutMs?: number;
}

/**
 * Node flags every service runs with (the Dockerfile sets the same in NODE_OPTIONS): a young generation of 4 MiB
 * semi-spaces instead of 16 keeps a busy controller's resident memory about 30 MiB lower for a little more scavenging.
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4'];

export interface ServiceProcess {
  name: string;
  replica: number;
  child: ChildProcess;
  httpPort: number;
  exited: Promise<number | null>;
}

/**
 * Starts built services (`node services/<name>/dist/main.js`) as separate processes and waits until each
 * answers `/readyz`. Used by `pnpm run up` and by the end-to-end tests.
 */
export class Suite {
  readonly processes: ServiceProcess[] = [];
  constructor(private readonly opts: SuiteOptions) {}

  /** Starts the given services, or every built one of SERVICES. */
  async start(): Promise<this> {
    const names = this.opts.services ?? SERVICES.filter((s) => existsSync(this.mainOf(s)));
    for (const name of names) await this.startService(name);
    return this;
  }

  private mainOf(name: string): string {
    return join(this.opts.root, 'services', name, 'dist', 'main.js');
  }

  /** Starts one more replica of a service and waits for it to be ready. */
  async startService(name: string): Promise<ServiceProcess> {
    const httpPort = await freePort();
    const replica = this.processes.filter((p) => p.name === name).length;
    const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, this.mainOf(name)], {
      env: {
        ...process.env,
        ...this.opts.env,
        ...this.opts.serviceEnv?.[name],
        HTTP_PORT: String(httpPort),
        HTTP_HOST: '127.0.0.1',
        ...(name === 'gateway' && !this.opts.serviceEnv?.gateway?.GATEWAY_API_PORT ? { GATEWAY_API_PORT: '0' } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const label = replica ? `${name}#${replica}` : name;
    for (const stream of [child.stdout, child.stderr]) {
      let buf = '';
      stream?.on('data', (chunk: Buffer) => {
        buf += chunk.toString('utf8');
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          this.opts.onOutput?.(label, buf.slice(0, i));
          buf = buf.slice(i + 1);
        }
      });
    }
    const exited = once(child, 'exit').then(([code]) => code as number | null);
    const p: ServiceProcess = { name, replica, child, httpPort, exited };
    this.processes.push(p);
    await this.waitReady(p);
    return p;
  }

  private async waitReady(p: ServiceProcess): Promise<void> {
    const deadline = Date.now() + (this.opts.readyTimeoutMs ?? 20_000);
    let exitCode: number | null | undefined;
    void p.exited.then((c) => (exitCode = c));
    for (;;) {
      if (exitCode !== undefined) throw new Error(`${p.name} exited with code ${exitCode} before it was ready`);
      try {
        const res = await fetch(`http://127.0.0.1:${p.httpPort}/readyz`);
        if (res.ok) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`${p.name} was not ready within ${this.opts.readyTimeoutMs ?? 20_000} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** SIGKILLs a replica: a crash, with no chance to release leases or finish work. */
  async kill(p: ServiceProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    p.child.kill(signal);
    await p.exited;
  }

  /** SIGTERM to every process, newest first; returns the exit codes by label. */
  async stop(): Promise<Record<string, number | null>> {
    const codes: Record<string, number | null> = {};
    for (const p of [...this.processes].reverse()) {
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
      const code = await Promise.race([p.exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 10_000))]);
      if (code === 'timeout') {
        p.child.kill('SIGKILL');
        codes[`${p.name}#${p.replica}`] = await p.exited;
      } else codes[`${p.name}#${p.replica}`] = code;
    }
    return codes;
  }
}
