import { isConsumerNotFound, type Bus } from '@flotilla/bus';
import { Counter, Gauge, type Registry } from 'prom-client';

/** Scrapes within this long share one consumer-info round trip. */
const PENDING_TTL_MS = 1000;

/**
 * How far the status writer is behind the event log, for the "status fold lag growing" alert:
 * `flotilla_status_fold_lag_events` is what the durable consumer has not had acknowledged yet (JetStream's own
 * count, so every replica reports it, leader or not), `flotilla_status_fold_lag_seconds` how old the last folded
 * event was while more wait (0 once caught up).
 */
export class FoldLag {
  private lastFoldedTime: number | undefined;
  private pendingRead: { at: number; value: Promise<number | undefined> } | undefined;
  private readonly folded: Counter;

  constructor(registry: Registry, private readonly bus: Bus, private readonly durable: string, private readonly now: () => number = Date.now) {
    const pending = () => this.pending();
    this.folded = new Counter({ name: 'flotilla_status_events_folded_total', help: 'Events folded into status records', registers: [registry] });
    new Gauge({
      name: 'flotilla_status_fold_lag_events',
      help: 'Events in the log the status writer has not folded yet',
      registers: [registry],
      async collect() {
        const n = await pending();
        if (n === undefined) this.reset();
        else this.set(n);
      },
    });
    const age = () => this.ageSeconds();
    new Gauge({
      name: 'flotilla_status_fold_lag_seconds',
      help: 'How old the last folded event was while more events wait; 0 once the writer has caught up',
      registers: [registry],
      async collect() {
        const n = await pending();
        if (n === undefined) this.reset();
        else this.set(n === 0 ? 0 : age());
      },
    });
  }

  /** Called after each event is folded. */
  foldedEvent(eventTime: string): void {
    this.folded.inc();
    this.lastFoldedTime = Date.parse(eventTime);
  }

  private ageSeconds(): number {
    return this.lastFoldedTime === undefined ? 0 : Math.max(0, this.now() - this.lastFoldedTime) / 1000;
  }

  private pending(): Promise<number | undefined> {
    const at = this.now();
    if (!this.pendingRead || at - this.pendingRead.at > PENDING_TTL_MS) {
      const value = this.bus.jsm.consumers.info(this.bus.names.eventsStream, this.durable).then(
        (info) => info.num_pending + info.num_ack_pending,
        (err: unknown) => {
          if (isConsumerNotFound(err)) return undefined; // no leader has consumed yet
          throw err;
        },
      );
      this.pendingRead = { at, value };
    }
    return this.pendingRead.value;
  }
}
