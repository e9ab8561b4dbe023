import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICE_CATALOGUE, SERVICE_NAMES } from '@flotilla/catalogue';
import { freeTcpPort } from '@flotilla/ports';

/** The deployables a Suite starts by default, in start order (the catalogue's, less the optional ones). */
export const SERVICES = SERVICE_NAMES.filter((s) => !SERVICE_CATALOGUE[s].optional);

/**
 * Deployables a Suite starts only when they are named in `services`: the kube-bridge needs a host API server
 * (KUBE_BRIDGE_KUBECONFIG), which the local suite does not have unless you give it one.
 */
export const OPTIONAL_SERVICES = SERVICE_NAMES.filter((s) => SERVICE_CATALOGUE[s].optional);

/**
 * A service's start-up is mostly loading its modules (about 1.5 s of CPU); on a 2-core machine running other work
 * (load average 30 was seen) that took over 20 s of wall time, so the wait is generous: it only bounds a start that
 * hangs.
 */
export const DEFAULT_READY_TIMEOUT_MS = 60_000;

/** How long `stop` waits for a replica to exit after SIGTERM before it SIGKILLs it. */
export const DEFAULT_STOP_GRACE_MS = 10_000;

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
  /** How long a replica may take to answer /readyz 200 after it was spawned; default `DEFAULT_READY_TIMEOUT_MS`. */
  readyTimeoutMs?: number;
  /** How long `stop` waits for each replica after SIGTERM before it SIGKILLs it; default `DEFAULT_STOP_GRACE_MS`. */
  stopGraceMs?: number;
  /**
   * Restart a service that exits while the suite runs (a crash, or a fatal start-up error), waiting
   * `initialDelayMs`, doubled after each exit up to `maxDelayMs`; the delay starts over once a replica has stayed up
   * for `resetAfterMs`. Off by default: tests that kill a replica want it to stay dead.
   */
  restart?: RestartPolicy;
  /** Told about exits and restarts (scripts/up prints them). */
  onLifecycle?: (event: LifecycleEvent) => void;
  /**
   * The `/metrics` (HTTP) port of the first replica of each service, by name; others get a free port. scripts/up fixes
   * them so a Prometheus scrape configuration stays valid across restarts.
   */
  httpPorts?: Record<string, number>;
}

export interface RestartPolicy {
  initialDelayMs: number;
  maxDelayMs: number;
  resetAfterMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  initialDelayMs: 1_000,
  maxDelayMs: 30_000,
  resetAfterMs: 60_000,
};

export type LifecycleEvent =
  | { type: 'exited'; service: string; code: number | null; signal: NodeJS.Signals | null; restartInMs?: number }
  | { type: 'restarted'; service: string; httpPort: number }
  | { type: 'restart-failed'; service: string; error: string; restartInMs: number };

/** The next wait after an exit: doubled from the last one, capped, and back to the start after a long enough run. */
export function nextRestartDelay(policy: RestartPolicy, lastDelayMs: number | undefined, upForMs: number): number {
  if (lastDelayMs === undefined || upForMs >= policy.resetAfterMs) return policy.initialDelayMs;
  return Math.min(policy.maxDelayMs, lastDelayMs * 2);
}

/**
 * Node flags every service runs with (the Dockerfile sets the same in NODE_OPTIONS): a young generation of 4 MiB
 * semi-spaces instead of 16 keeps a busy controller's resident memory about 30 MiB lower for a little more scavenging.
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4'];

/**
 * More node flags for every service the launcher starts, from `FLOTILLA_SERVICE_NODE_FLAGS` (space-separated): how a
 * bench profiles the services under load (`--cpu-prof --cpu-prof-dir=DIR`, which NODE_OPTIONS does not allow).
 */
export function extraServiceNodeFlags(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env.FLOTILLA_SERVICE_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
}

export interface ServiceProcess {
  name: string;
  replica: number;
  child: ChildProcess;
  httpPort: number;
  exited: Promise<number | null>;
  startedAt: number;
  /** This replica's own environment on top of the suite's (e.g. the member cluster a kube member-agent serves). */
  env?: Record<string, string>;
}

/**
 * Starts built services (`node services/<name>/dist/main.js`) as separate processes and waits until each
 * answers `/readyz`. Used by `pnpm run up` and by the end-to-end tests.
 */
export class Suite {
  readonly processes: ServiceProcess[] = [];
  private stopping = false;
  private readonly restartDelays = new Map<string, number>();
  private readonly restartTimers = new Set<NodeJS.Timeout>();
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

  /**
   * Starts one more replica of a service and waits for it to be ready; `env` is this replica's own (kept across its
   * restarts), e.g. one kube member-agent per member cluster.
   */
  async startService(name: string, env?: Record<string, string>): Promise<ServiceProcess> {
    const replica = this.processes.filter((p) => p.name === name).length;
    const p = await this.spawnReplica(name, replica, undefined, env);
    this.processes.push(p);
    this.superviseExit(p);
    await this.waitReady(p);
    return p;
  }

  private async spawnReplica(
    name: string,
    replica: number,
    port?: number,
    replicaEnv?: Record<string, string>,
  ): Promise<ServiceProcess> {
    const fixed = port ?? (replica === 0 ? this.opts.httpPorts?.[name] : undefined);
    const httpPort = fixed ?? (await freeTcpPort());
    const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, ...extraServiceNodeFlags(), this.mainOf(name)], {
      env: {
        ...process.env,
        ...this.opts.env,
        ...this.opts.serviceEnv?.[name],
        ...replicaEnv,
        HTTP_PORT: String(httpPort),
        HTTP_HOST: '127.0.0.1',
        ...(name === 'gateway' && !this.opts.serviceEnv?.gateway?.GATEWAY_API_PORT ? { GATEWAY_API_PORT: '0' } : {}),
      },
      // The IPC channel is how the service learns that this process is gone (runService stops on its disconnect), so
      // a test or bench that crashes or is killed leaves no service behind.
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    child.channel?.unref();
    const label = replica ? `${name}#${replica}` : name;
    for (const stream of [child.stdout, child.stderr]) {
      let buf = '';
      stream?.on('data', (chunk: Buffer) => {
        buf += chunk.toString('utf8');
        for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
          this.opts.onOutput?.(label, buf.slice(0, i));
          buf = buf.slice(i + 1);
        }
      });
    }
    const exited = once(child, 'exit').then(([code]) => code as number | null);
    return {
      name,
      replica,
      child,
      httpPort,
      exited,
      startedAt: Date.now(),
      ...(replicaEnv ? { env: replicaEnv } : {}),
    };
  }

  /** With a restart policy, an exit outside `stop()` schedules a new process in the replica's place. */
  private superviseExit(p: ServiceProcess): void {
    const policy = this.opts.restart;
    void p.exited.then((code) => {
      if (this.stopping || !this.processes.includes(p)) return;
      const label = p.replica ? `${p.name}#${p.replica}` : p.name;
      if (!policy) {
        this.opts.onLifecycle?.({ type: 'exited', service: label, code, signal: p.child.signalCode });
        return;
      }
      const delay = nextRestartDelay(policy, this.restartDelays.get(label), Date.now() - p.startedAt);
      this.restartDelays.set(label, delay);
      this.opts.onLifecycle?.({ type: 'exited', service: label, code, signal: p.child.signalCode, restartInMs: delay });
      this.scheduleRestart(p, label, delay);
    });
  }

  private scheduleRestart(p: ServiceProcess, label: string, delayMs: number): void {
    const timer = setTimeout(() => {
      this.restartTimers.delete(timer);
      if (this.stopping) return;
      void this.replace(p).then(
        (np) => this.opts.onLifecycle?.({ type: 'restarted', service: label, httpPort: np.httpPort }),
        (err: Error) => {
          const next = nextRestartDelay(this.opts.restart!, delayMs, 0);
          this.restartDelays.set(label, next);
          this.opts.onLifecycle?.({ type: 'restart-failed', service: label, error: err.message, restartInMs: next });
          this.scheduleRestart(p, label, next);
        },
      );
    }, delayMs);
    this.restartTimers.add(timer);
  }

  /**
   * Spawns a process in `old`'s slot (same name, replica and HTTP port) and waits for it to be ready; one that is
   * not ready in time is killed and the caller tries again later.
   */
  private async replace(old: ServiceProcess): Promise<ServiceProcess> {
    const np = await this.spawnReplica(old.name, old.replica, old.httpPort, old.env);
    this.processes[this.processes.findIndex((x) => x.name === old.name && x.replica === old.replica)] = np;
    try {
      await this.waitReady(np);
    } catch (err) {
      if (np.child.exitCode === null && np.child.signalCode === null) np.child.kill('SIGKILL');
      await np.exited;
      throw err;
    }
    this.superviseExit(np);
    return np;
  }

  private async waitReady(p: ServiceProcess): Promise<void> {
    const deadline = Date.now() + (this.opts.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS);
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
      if (Date.now() > deadline)
        throw new Error(`${p.name} was not ready within ${this.opts.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Restarts scheduled and not yet begun: none without a restart policy, none once `stop()` began. */
  get pendingRestarts(): number {
    return this.restartTimers.size;
  }

  /** SIGKILLs a replica: a crash, with no chance to release leases or finish work. */
  async kill(p: ServiceProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    p.child.kill(signal);
    await p.exited;
  }

  /** SIGTERM to every process, newest first; returns the exit codes by label. */
  async stop(): Promise<Record<string, number | null>> {
    this.stopping = true;
    for (const t of this.restartTimers) clearTimeout(t);
    this.restartTimers.clear();
    const codes: Record<string, number | null> = {};
    for (const p of [...this.processes].reverse()) {
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
      const code = await Promise.race([
        p.exited,
        new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), this.opts.stopGraceMs ?? DEFAULT_STOP_GRACE_MS)),
      ]);
      if (code === 'timeout') {
        p.child.kill('SIGKILL');
        codes[`${p.name}#${p.replica}`] = await p.exited;
      } else codes[`${p.name}#${p.replica}`] = code;
    }
    return codes;
  }
}
