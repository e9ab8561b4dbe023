/**
 * The conditions a replica's readiness depends on besides its own "started" flag: its NATS connection, its Redis
 * connection where it needs one, the provisioning of its streams and buckets. Each is a named gate; /readyz answers
 * 200 only while every gate is open, and names the closed ones otherwise.
 */
export class ReadinessGates {
  private readonly closed = new Map<string, string>();

  set(gate: string, open: boolean, reason = `${gate} unavailable`): void {
    if (open) this.closed.delete(gate);
    else this.closed.set(gate, reason);
  }

  get open(): boolean {
    return this.closed.size === 0;
  }

  /** The reasons of the closed gates, by gate name. */
  reasons(): string[] {
    return [...this.closed].map(([gate, reason]) => `${gate}: ${reason}`);
  }
}
