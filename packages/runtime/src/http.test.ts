import { pino } from 'pino';
import { Counter, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpServer, type HttpServerHandle } from './http.js';

const logger = pino({ level: 'silent' });

describe('startHttpServer', () => {
  let server: HttpServerHandle | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function start(readiness: () => boolean | Promise<boolean>, registry = new Registry()): Promise<string> {
    server = await startHttpServer({ host: '127.0.0.1', port: 0, registry, readiness, logger });
    return `http://127.0.0.1:${server.port}`;
  }

  it('binds an ephemeral port when asked for port 0', async () => {
    await start(() => true);
    expect(server?.port).toBeGreaterThan(0);
  });

  it('/healthz answers 200 whatever the readiness', async () => {
    const base = await start(() => false);
    const res = await fetch(`${base}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('ok\n');
  });

  it('/readyz follows the readiness function, sync and async', async () => {
    let ready = false;
    const base = await start(async () => ready);
    expect((await fetch(`${base}/readyz`)).status).toBe(503);
    ready = true;
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
  });

  it('/readyz answers 503 when the readiness check throws', async () => {
    const base = await start(() => {
      throw new Error('redis down');
    });
    expect((await fetch(`${base}/readyz`)).status).toBe(503);
  });

  it('/metrics serves the registry in Prometheus text format', async () => {
    const registry = new Registry();
    const counter = new Counter({ name: 'flotilla_test_total', help: 'a test counter', registers: [registry] });
    counter.inc(3);
    const base = await start(() => true, registry);
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(registry.contentType);
    const body = await res.text();
    expect(body).toContain('# TYPE flotilla_test_total counter');
    expect(body).toContain('flotilla_test_total 3');
  });

  it.each([
    ['GET', '/nope', 404],
    ['GET', '/healthz/extra', 404],
    ['POST', '/healthz', 405],
    ['DELETE', '/metrics', 405],
  ])('%s %s -> %i', async (method, path, status) => {
    const base = await start(() => true);
    expect((await fetch(`${base}${path}`, { method })).status).toBe(status);
  });

  it('ignores the query string', async () => {
    const base = await start(() => true);
    expect((await fetch(`${base}/readyz?verbose=1`)).status).toBe(200);
  });

  it('refuses to start on a port already taken', async () => {
    await start(() => true);
    await expect(
      startHttpServer({
        host: '127.0.0.1',
        port: server?.port ?? 0,
        registry: new Registry(),
        readiness: () => true,
        logger,
      }),
    ).rejects.toThrow(/EADDRINUSE/);
  });

  it('close() frees the port', async () => {
    const base = await start(() => true);
    await server?.close();
    server = undefined;
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  });
});
