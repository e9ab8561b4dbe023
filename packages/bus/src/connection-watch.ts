import type { NatsConnection } from '@nats-io/transport-node';

/** Told when the connection drops and when it is back (the runtime's connectionGate has this shape). */
export interface BusConnectionListener {
  down(info: { server: string }): void;
  up(info: { server: string }): void;
}

/**
 * Follows a connection's status events: `disconnect` closes it, `reconnect` opens it again. nats.js reconnects by
 * itself (forever, as connectBus configures it); this only makes the outage visible. Ends when the connection closes.
 */
export function watchConnection(nc: NatsConnection, listener: BusConnectionListener): void {
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect') listener.down({ server: s.server });
      else if (s.type === 'reconnect') listener.up({ server: s.server });
    }
  })();
}
