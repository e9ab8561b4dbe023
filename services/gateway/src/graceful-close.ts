import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * Closes an HTTP server the way a stopping replica should: it takes no new connections, answers every request in
 * flight, and ends each connection after its current response. Node's own `close()` ends only the keep-alive
 * connections idle at that moment; one that was busy stays open and serves its client's next request, and so on.
 * A dashboard tab whose event stream the stop had ended retries each second on such a connection, so the gateway
 * never finished closing until it was killed (test/dashboard.e2e saw its exit code null on a busy machine).
 */
export class GracefulClose {
  private closing = false;
  private readonly inFlight = new Map<ServerResponse, IncomingMessage>();

  constructor(private readonly server: Server) {}

  /** Call first in the request listener: marks a request that comes in after `close` as its connection's last. */
  track(req: IncomingMessage, res: ServerResponse): void {
    if (this.closing) {
      res.setHeader('connection', 'close');
      return;
    }
    this.inFlight.set(res, req);
    res.once('close', () => this.inFlight.delete(res));
  }

  /** Resolves once every connection has ended. */
  close(): Promise<void> {
    this.closing = true;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const [res, req] of this.inFlight) {
      // A response that has not begun says it is the last; one already under way ends its connection when done.
      if (!res.headersSent) res.setHeader('connection', 'close');
      else res.once('finish', () => req.socket.end());
    }
    return closed;
  }
}
