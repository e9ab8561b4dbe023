import type { Logger } from 'pino';
import { GracefulGate } from './graceful-gate.js';
import type { ReadinessGates } from './readiness-gates.js';

export interface ProvisioningWatchOptions {
  /** Re-creates what is missing and returns its names (empty: all was there); throws when it cannot. */
  repair: () => Promise<string[]>;
  intervalMs: number;
  /** How long checks may fail before the gate closes (one failed check does not flap readiness); 2 × intervalMs. */
  graceMs?: number;
  gates: ReadinessGates;
  logger: Logger;
  /** After something had to be re-created: what the service must redo (re-arm its watches, say). */
  onRepaired?: (recreated: string[]) => void;
}

/**
 * Checks the service's streams and buckets every `intervalMs`. A NATS server restarted without its data comes back
 * empty: its clients reconnect and see no error until they touch a stream. Found missing, they are re-created (one
 * warn line naming them) and `onRepaired` runs; while they cannot be for longer than the grace, the replica is not
 * ready.
 */
export function watchProvisioning(o: ProvisioningWatchOptions): () => void {
  let stopped = false;
  // Provisioned at start (the service would not have started otherwise): open until checks keep failing.
  const gate = new GracefulGate({
    sink: o.gates,
    gate: 'provisioning',
    graceMs: o.graceMs ?? 2 * o.intervalMs,
    startingReason: 'streams and buckets not checked yet',
    startsOk: true,
  });
  let timer: NodeJS.Timeout | undefined;
  const tick = async () => {
    try {
      const recreated = await o.repair();
      gate.ok();
      if (recreated.length) {
        o.logger.warn(
          { recreated },
          'streams and buckets were missing on NATS (restarted without its data?); re-created them',
        );
        o.onRepaired?.(recreated);
      }
    } catch (err) {
      // On a cluster that lost its quorum the answer is a timeout: the reason names JetStream, where to look.
      gate.failed(`NATS JetStream cannot check or re-create the streams and buckets: ${(err as Error).message}`);
    } finally {
      if (!stopped) timer = setTimeout(() => void tick(), o.intervalMs);
    }
  };
  timer = setTimeout(() => void tick(), o.intervalMs);
  return () => {
    stopped = true;
    clearTimeout(timer);
    gate.release();
  };
}
