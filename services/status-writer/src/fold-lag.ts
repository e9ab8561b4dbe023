import { isConsumerNotFound, type Bus } from '@flotilla/bus';
import { Counter, Gauge, type Registry } from 'prom-client';

/** Scrapes within this long share one look at the consumer. */
const READ_TTL_MS = 1000;

interface Backlog {
  /** Events not acknowledged yet. */
  events: number;
  /** When the oldest of them reached the log (undefined when there are none, or it is gone from the stream). */
  oldestStoredAt: number | undefined;
}

/**
 * How far the status writer is behind the event log, for the "status fold lag growing" alert. Both gauges come from
 * JetStream's view of the writer's durable consumer, so every replica reports the same, leader or not:
 * `flotilla_status_fold_lag_events` is what the consumer has not had acknowledged, `flotilla_status_fold_lag_seconds`
 * how long the oldest of those has been in the log (0 once caught up). Before a leader has created the consumer
 * both are NaN, unknown rather than zero (an unlabelled gauge always has a sample); the no-leader alert covers that.
 */
export class FoldLag {
  private backlogRead: { at: number; value: Promise<Backlog | undefined> } | undefined;
  private readonly folded: Counter;
  private readonly undecodable: Counter;

  constructor(
    registry: Registry,
    private readonly bus: Bus,
    private readonly durable: string,
    private readonly now: () => number = Date.now,
  ) {
    const backlog = () => this.backlog();
    const clock = this.now;
    this.folded = new Counter({
      name: 'flotilla_status_events_folded_total',
      help: 'Events folded into status records',
      registers: [registry],
    });
    this.undecodable = new Counter({
      name: 'flotilla_status_events_undecodable_total',
      help: 'Events set aside (terminated, not folded) because they, or the status record they fold into, cannot be decoded',
      registers: [registry],
    });
    new Gauge({
      name: 'flotilla_status_fold_lag_events',
      help: 'Events in the log the status writer has not folded yet',
      registers: [registry],
      async collect() {
        this.set((await backlog())?.events ?? NaN);
      },
    });
    new Gauge({
      name: 'flotilla_status_fold_lag_seconds',
      help: 'How long the oldest event the status writer has not folded has been in the log; 0 once caught up',
      registers: [registry],
      async collect() {
        const b = await backlog();
        if (b === undefined) this.set(NaN);
        else if (b.events === 0) this.set(0);
        else this.set(b.oldestStoredAt === undefined ? NaN : Math.max(0, clock() - b.oldestStoredAt) / 1000);
      },
    });
  }

  /** Called after each event is folded. */
  foldedEvent(): void {
    this.folded.inc();
  }

  /** Called for each event set aside because it cannot be decoded. */
  setAsideEvent(): void {
    this.undecodable.inc();
  }

  private backlog(): Promise<Backlog | undefined> {
    const at = this.now();
    if (!this.backlogRead || at - this.backlogRead.at > READ_TTL_MS)
      this.backlogRead = { at, value: this.readBacklog() };
    return this.backlogRead.value;
  }

  private async readBacklog(): Promise<Backlog | undefined> {
    const stream = this.bus.names.eventsStream;
    const info = await this.bus.jsm.consumers.info(stream, this.durable).catch((err: unknown) => {
      if (isConsumerNotFound(err)) return undefined;
      throw err;
    });
    if (!info) return undefined; // no leader has consumed yet
    const events = info.num_pending + info.num_ack_pending;
    if (events === 0) return { events, oldestStoredAt: undefined };
    // The writer reads the whole log, so the first event after the acknowledgement floor is the oldest unfolded one.
    const oldest = await this.bus.jsm.streams
      .getMessage(stream, { seq: info.ack_floor.stream_seq + 1 })
      .catch(() => null);
    return { events, oldestStoredAt: oldest?.time.getTime() };
  }
}
