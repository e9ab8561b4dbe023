import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';

export interface StartHttpServerOptions {
  host: string;
  /** 0 takes an ephemeral port; the bound port is returned. */
  port: number;
  registry: Registry;
  /**
   * Decides /readyz: true, or no reasons, is ready; false or the reasons why not (printed in the 503 body) is not. A
   * throw or rejection counts as not ready.
   */
  readiness: () => boolean | string[] | Promise<boolean | string[]>;
  logger: Logger;
}

export interface HttpServerHandle {
  port: number;
  close(): Promise<void>;
}

/** Serves /healthz (alive while the process runs), /readyz (from `readiness`) and /metrics. */
export async function startHttpServer(opts: StartHttpServerOptions): Promise<HttpServerHandle> {
  const server = createServer((req, res) => {
    void handle(req, res, opts).catch((err: unknown) => {
      opts.logger.error({ err, url: req.url }, 'health/metrics request failed');
      if (!res.headersSent) send(res, 500, 'internal error\n');
      else res.destroy();
    });
  });
  // Probes and scrapers open short connections; keep-alive would only delay close().
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => opts.logger.error({ err }, 'health/metrics server error'));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, opts: StartHttpServerOptions): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD');
    send(res, 405, 'method not allowed\n');
    return;
  }
  switch (path) {
    case '/healthz':
      send(res, 200, 'ok\n');
      return;
    case '/readyz': {
      let answer: boolean | string[] = false;
      try {
        answer = await opts.readiness();
      } catch (err) {
        opts.logger.warn({ err }, 'readiness check threw');
      }
      const reasons = Array.isArray(answer) ? answer : answer ? [] : ['not ready'];
      if (reasons.length === 0) send(res, 200, 'ready\n');
      else send(res, 503, `not ready: ${reasons.join('; ')}\n`);
      return;
    }
    case '/metrics': {
      const body = await opts.registry.metrics();
      send(res, 200, body, opts.registry.contentType);
      return;
    }
    default:
      send(res, 404, 'not found\n');
  }
}

function send(res: ServerResponse, status: number, body: string, contentType = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}
