import { INFORMER_DEFAULTS } from '@flotilla/kube-client';
import { GracefulGate, type ReadinessGates } from '@flotilla/runtime';
import type { Logger } from 'pino';

/** Told when a part (a kind's list-and-watch) loses the host API server and when it has it again. */
export interface HostConnectionListener {
  lost(part: string, error: string): void;
  restored(part: string): void;
}

/** The readiness gate the host API server's reachability holds: /readyz names it, with the last error, while closed. */
export const HOST_GATE = 'kube-api';

export interface HostConnectionOptions {
  gates: ReadinessGates;
  logger: Logger;
  /** The host API server's URL, for the gate's reason and the logs. */
  server: string;
  /** How long the host may stay unreachable before the gate closes (one failed request does not flap readiness). */
  graceMs?: number;
  now?: () => number;
}

/**
 * The host API server's reachability from every part that talks to it (each kind's list-and-watch, the writes), as
 * one readiness gate: closed once any part has been unable to reach it for the grace, with the last error; one warn
 * line when it is lost and one info line, with the outage's length, when every part has it again.
 */
export class HostConnection implements HostConnectionListener {
  private readonly down = new Map<string, string>();
  private downSince: number | undefined;
  private readonly gate: GracefulGate;
  private readonly now: () => number;

  constructor(private readonly o: HostConnectionOptions) {
    this.now = o.now ?? Date.now;
    // Until a part says otherwise the host counts as reachable: each kind's own informer gate holds readiness until
    // its first list.
    this.gate = new GracefulGate({
      sink: o.gates,
      gate: HOST_GATE,
      graceMs: o.graceMs ?? INFORMER_DEFAULTS.readinessGraceMs,
      startingReason: `host API server ${o.server} not reached yet`,
      startsOk: true,
      now: this.now,
    });
  }

  lost(part: string, error: string): void {
    this.down.set(part, error);
    this.gate.failed(`cannot reach the host API server ${this.o.server} (${part}: ${error})`);
    if (this.downSince !== undefined) return;
    this.downSince = this.now();
    this.o.logger.warn({ server: this.o.server, part, error }, 'host API server unreachable');
  }

  restored(part: string): void {
    if (!this.down.delete(part) || this.down.size > 0) return;
    this.gate.ok();
    const outageMs = this.downSince === undefined ? undefined : this.now() - this.downSince;
    this.downSince = undefined;
    this.o.logger.info({ server: this.o.server, outageMs }, 'host API server reachable again');
  }

  get reachable(): boolean {
    return this.down.size === 0;
  }
}
