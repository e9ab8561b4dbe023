import type { ReadinessGates } from '@flotilla/runtime';
import type { Logger } from 'pino';

/** Told when a part (a kind's list-and-watch) loses the host API server and when it has it again. */
export interface HostConnectionListener {
  lost(part: string, error: string): void;
  restored(part: string): void;
}

/** The readiness gate the host API server's reachability holds: /readyz names it, with the last error, while closed. */
export const HOST_GATE = 'kube-api';

/**
 * The host API server's reachability from every part that talks to it (each kind's list-and-watch, the writes), as
 * one readiness gate: closed while any part cannot reach it, with the last error; one warn line when it is lost and
 * one info line, with the outage's length, when every part has it again.
 */
export class HostConnection implements HostConnectionListener {
  private readonly down = new Map<string, string>();
  private downSince: number | undefined;

  constructor(
    private readonly gates: ReadinessGates,
    private readonly logger: Logger,
    private readonly server: string,
    private readonly now: () => number = Date.now,
  ) {}

  lost(part: string, error: string): void {
    this.down.set(part, error);
    this.gates.set(HOST_GATE, false, `cannot reach the host API server ${this.server} (${part}: ${error})`);
    if (this.downSince !== undefined) return;
    this.downSince = this.now();
    this.logger.warn({ server: this.server, part, error }, 'host API server unreachable');
  }

  restored(part: string): void {
    if (!this.down.delete(part) || this.down.size > 0) return;
    this.gates.set(HOST_GATE, true);
    const outageMs = this.downSince === undefined ? undefined : this.now() - this.downSince;
    this.downSince = undefined;
    this.logger.info({ server: this.server, outageMs }, 'host API server reachable again');
  }

  get reachable(): boolean {
    return this.down.size === 0;
  }
}
