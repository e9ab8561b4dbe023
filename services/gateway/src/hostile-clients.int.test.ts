// The gateway's HTTP API under hostile clients, against real NATS: a page of another site acting through an
// anonymous gateway, bodies that are not JSON or too large for their operation, a caller past its share, an event
// stream reader that stops reading, and a replay from far back.
import { type IncomingHttpHeaders, type IncomingMessage, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudEvent, publishEvent, type Bus } from '@flotilla/bus';
import { testBus } from '@flotilla/bus/testing';
import { SseParser } from '@flotilla/dashboard';
import { eventually } from '@flotilla/testkit';
import { KubeEventStore, ObjectStore } from '@flotilla/store';
import { ApiTokens } from './api-tokens.js';
import type { CallerLimitsOptions } from './caller-limits.js';
import { DashboardViews, type StreamLimits } from './dashboard.js';
import { GatewayHandler } from './handler.js';
import { READ_BODY_BYTES, serveHttpApi } from './http-api.js';

const ADMIN = 'admin-token-0123456789abcdef';
const READER = 'read-token-0123456789abcdef';
const tokens = ApiTokens.parse(`${ADMIN},admin,ci\n${READER},read,viewer\n`);
const log = { error: () => undefined };
const JSON_BODY = { 'content-type': 'application/json' };

let bus: Bus & { dispose(): Promise<void> };
let handler: GatewayHandler;
const toClose: Array<{ close(): unknown }> = [];

beforeAll(async () => {
  bus = await testBus('gwhostile');
  handler = new GatewayHandler({
    store: new ObjectStore(bus),
    kubeEvents: new KubeEventStore(bus),
    publish: (e) => publishEvent(bus, e),
  });
});
afterAll(async () => {
  for (const c of toClose.reverse()) await c.close();
  await bus?.dispose();
});

/** A gateway on loopback, anonymous unless given tokens, with the dashboard's views. */
async function gateway(
  opts: { tokens?: ApiTokens; limits?: Partial<CallerLimitsOptions>; stream?: Partial<StreamLimits> } = {},
) {
  const views = new DashboardViews({ bus, store: new ObjectStore(bus), stream: opts.stream });
  const http = await serveHttpApi(
    handler,
    { host: '127.0.0.1', port: 0, tokens: opts.tokens, limits: opts.limits, dashboard: views },
    log,
  );
  toClose.push({ close: () => views.stop() }, http);
  return { views, port: http.port };
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: { ok: boolean; result?: unknown; error?: { reason: string; message: string } };
}

/** A request with exactly these headers (fetch would not send a Host or an Origin of the test's choosing). */
function send(port: number, path: string, o: { method?: string; headers?: object; body?: string } = {}) {
  return new Promise<Answer>((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: o.method ?? 'POST', headers: { ...o.headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : {} }),
        );
      },
    );
    req.on('error', reject);
    req.end(o.body);
  });
}

const cluster = (name: string) =>
  JSON.stringify({
    object: { apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name }, spec: {} },
  });

describe('an anonymous gateway and the pages a developer opens', () => {
  it('refuses a POST from another origin and stores nothing; its own page and the CLI (no Origin) may apply', async () => {
    const { port } = await gateway();
    const host = `127.0.0.1:${port}`;
    const apply = (name: string, headers: object) =>
      send(port, '/api/apply', { headers: { ...JSON_BODY, host, ...headers }, body: cluster(name) });

    const evil = await apply('from-evil', { origin: 'https://evil.example' });
    expect(evil.status).toBe(403);
    expect(evil.body.error).toEqual({
      reason: 'Forbidden',
      message: expect.stringContaining(
        `a POST from the origin "https://evil.example", not the gateway's own (http://${host})`,
      ),
    });
    // Another server on this machine is another origin too (same site: ports do not count).
    expect((await apply('from-next-door', { origin: 'http://127.0.0.1:3000' })).status).toBe(403);
    // A browser that sends no Origin still says where the request came from.
    const site = await apply('from-site', { 'sec-fetch-site': 'cross-site' });
    expect([site.status, site.body.error?.message]).toEqual([403, expect.stringMatching(/cross-site page/)]);

    expect(
      (await apply('from-the-dashboard', { origin: `http://${host}`, 'sec-fetch-site': 'same-origin' })).status,
    ).toBe(200);
    expect((await apply('from-the-cli', {})).status).toBe(200);
    const list = await send(port, '/api/list', { headers: { ...JSON_BODY, host }, body: '{"kind":"Cluster"}' });
    const names = (list.body.result as { items: Array<{ metadata: { name: string } }> }).items.map(
      (o) => o.metadata.name,
    );
    expect(names.filter((n) => n.startsWith('from-')).sort()).toEqual(['from-the-cli', 'from-the-dashboard']);
  });

  it('answers only a loopback Host, so a page that rebinds its own name to 127.0.0.1 reads nothing', async () => {
    const { port } = await gateway();
    const rebound = await send(port, '/dashboard/api/bindings', {
      method: 'GET',
      headers: { host: `rebind.evil.example:${port}` },
    });
    expect(rebound.status).toBe(403);
    expect(rebound.body.error?.message).toContain(`Host "rebind.evil.example:${port}" is not a loopback name`);
    const post = await send(port, '/api/list', {
      headers: { ...JSON_BODY, host: `rebind.evil.example:${port}` },
      body: '{"kind":"Cluster"}',
    });
    expect(post.status).toBe(403);
    for (const host of [`localhost:${port}`, `[::1]:${port}`, `127.0.0.1:${port}`, 'localhost'])
      expect((await send(port, '/dashboard/api/bindings', { method: 'GET', headers: { host } })).status).toBe(200);
  });

  it('with tokens, a page of another origin holds no credential to send: no Origin check, the token decides', async () => {
    const { port } = await gateway({ tokens });
    const headers = { ...JSON_BODY, origin: 'https://tools.example', authorization: `Bearer ${ADMIN}` };
    expect((await send(port, '/api/list', { headers, body: '{"kind":"Cluster"}' })).status).toBe(200);
  });
});

describe('request bodies', () => {
  it('a POST whose body is not declared JSON is answered 415 (an HTML form cannot send JSON)', async () => {
    const { port } = await gateway({ tokens });
    for (const type of [
      undefined,
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]) {
      const r = await send(port, '/api/apply', {
        headers: { authorization: `Bearer ${ADMIN}`, ...(type ? { 'content-type': type } : {}) },
        body: cluster('not-json'),
      });
      expect([r.status, r.body.error?.reason]).toEqual([415, 'UnsupportedMediaType']);
      expect(r.body.error?.message).toMatch(/must be sent as "application\/json"/);
    }
    const charset = await send(port, '/api/get', {
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json; charset=utf-8' },
      body: '{"kind":"Cluster","name":"not-json"}',
    });
    expect(charset.body.error?.reason).toBe('NotFound');
  });

  it('the body of a read is capped small, an apply keeps the object-sized limit', async () => {
    const { port } = await gateway({ tokens });
    const headers = { ...JSON_BODY, authorization: `Bearer ${ADMIN}` };
    const pad = 'x'.repeat(READ_BODY_BYTES);
    for (const op of ['get', 'list', 'events', 'delete']) {
      const r = await send(port, `/api/${op}`, { headers, body: JSON.stringify({ kind: 'Cluster', name: 'a', pad }) });
      expect([r.status, r.body.error?.message]).toEqual([
        413,
        expect.stringContaining(`the limit is ${READ_BODY_BYTES}`),
      ]);
    }
    const object = {
      apiVersion: 'cluster.karmada.io/v1alpha1',
      kind: 'Cluster',
      metadata: { name: 'padded' },
      spec: {},
    };
    const applied = await send(port, '/api/apply', {
      headers,
      body: JSON.stringify({ object: { ...object, metadata: { ...object.metadata, annotations: { pad } } } }),
    });
    expect([applied.status, applied.body.error]).toEqual([200, undefined]);
  });

  it('an unknown route or operation is answered without its body being waited for', async () => {
    const { port } = await gateway({ tokens });
    const headers = { ...JSON_BODY, authorization: `Bearer ${ADMIN}`, 'content-length': String(4 * 1024 * 1024) };
    // The bodies are announced but never sent: an answer at all shows the gateway did not wait to read them.
    const answerUnread = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
          req.destroy();
        });
        req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
        req.write('{');
      });
    expect(await answerUnread('/api/nothing')).toBe(400);
    expect(await answerUnread('/nowhere')).toBe(404);
  });
});

describe('each caller its share', () => {
  it('past the rate, 429 with Retry-After and a TooManyRequests status; another caller is still served', async () => {
    const { port } = await gateway({ tokens, limits: { ratePerSecond: 1, burst: 3 } });
    const list = (token: string) =>
      send(port, '/api/list', {
        headers: { ...JSON_BODY, authorization: `Bearer ${token}` },
        body: '{"kind":"Cluster"}',
      });
    for (let i = 0; i < 3; i++) expect((await list(READER)).status).toBe(200);
    const refused = await list(READER);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.body.error).toEqual({
      reason: 'TooManyRequests',
      message: '"viewer" made more than 1 requests a second (a burst of 3 at most)',
      retryAfterSeconds: Number(refused.headers['retry-after']),
    });
    expect((await list(ADMIN)).status).toBe(200);
  });

  it('past the requests in flight (event streams count), 429 until one ends', async () => {
    const { port, views } = await gateway({ tokens, limits: { maxInFlight: 2 } });
    const auth = (token: string) => ({ authorization: `Bearer ${token}` });
    const streams = [openStream(port, auth(READER)), openStream(port, auth(READER))];
    await Promise.all(streams.map((s) => s.opened));
    const third = await send(port, '/dashboard/api/bindings', { method: 'GET', headers: auth(READER) });
    expect([third.status, third.headers['retry-after'], third.body.error?.message]).toEqual([
      429,
      '1',
      '"viewer" has 2 requests in flight, the most one caller may have at once',
    ]);
    expect((await send(port, '/dashboard/api/bindings', { method: 'GET', headers: auth(ADMIN) })).status).toBe(200);
    streams[0]!.close();
    await eventually(() => (views.openStreams().length === 1 ? true : undefined), 5000, 'the first stream closed');
    await eventually(
      async () =>
        (await send(port, '/dashboard/api/bindings', { method: 'GET', headers: auth(READER) })).status === 200
          ? true
          : undefined,
      5000,
      'a request of the reader served again',
    );
    streams[1]!.close();
  });
});

describe('answers carry headers that keep browsers and caches in line', () => {
  it('the page: a same-origin CSP that forbids framing, DENY, nosniff; JSON answers: no-store', async () => {
    const { port } = await gateway();
    const html = await fetch(`http://127.0.0.1:${port}/dashboard/`);
    expect(html.status).toBe(200);
    const csp = html.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(html.headers.get('x-frame-options')).toBe('DENY');
    expect(html.headers.get('x-content-type-options')).toBe('nosniff');
    const json = await send(port, '/api/list', { headers: JSON_BODY, body: '{"kind":"Cluster"}' });
    expect(json.headers).toMatchObject({
      'content-type': 'application/json',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
    });
    const refused = await send(port, '/dashboard/api/nothing', { method: 'GET' });
    expect([refused.status, refused.headers['cache-control']]).toEqual([404, 'no-store']);
  });
});

/** An event stream read with node:http, so that the test decides when (and whether) its socket is read. */
function openStream(port: number, headers: object = {}, query = '') {
  let res: IncomingMessage | undefined;
  const req = request({ host: '127.0.0.1', port, path: `/dashboard/api/stream${query}`, headers: { ...headers } });
  const opened = new Promise<IncomingMessage>((resolve, reject) => {
    req.on('response', (r) => {
      res = r;
      resolve(r);
    });
    req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
  });
  req.end();
  return { opened, close: () => (res ? res.destroy() : req.destroy()) };
}

/** Events of one Cluster, each carrying a message of `bytes` (the feed's `message` field). */
async function publishMany(name: string, count: number, bytes = 0): Promise<number> {
  let last = 0;
  for (let i = 0; i < count; i += 50) {
    const acks = await Promise.all(
      Array.from({ length: Math.min(50, count - i) }, (_, j) =>
        publishEvent(
          bus,
          cloudEvent({
            source: 'test',
            type: 'ClusterStatusChanged',
            kind: 'Cluster',
            name,
            time: new Date(),
            data: { message: `${i + j} ${'x'.repeat(bytes)}` },
          }),
        ),
      ),
    );
    last = Math.max(last, ...acks.map((a) => a.seq));
  }
  return last;
}

describe('the event stream under a reader that does not keep up', () => {
  it('a stalled reader holds the stream: the buffered bytes stay flat while 13 MB are stored, and it gets them all', async () => {
    const { port, views } = await gateway({ stream: { stalledMs: 120_000 } });
    const stream = openStream(port, {}, '?kind=Cluster&name=stalled');
    const res = await stream.opened;
    // The reader takes nothing from its socket from now on.
    res.pause();
    const count = 800;
    const bytes = 16 * 1024;
    const last = await publishMany('stalled', count, bytes);
    // More than the kernel's socket buffers hold (4 MiB to send at most here, 128 KiB to receive without reads):
    // the stream has to wait for its reader, or buffer what the socket does not take.
    const held = await eventually(
      () => {
        const [s] = views.openStreams();
        return s && (s.waitingForReader || s.events === count) ? s : undefined;
      },
      30_000,
      'the stream waiting for its reader, or every event written',
    );
    expect(held.waitingForReader).toBe(true);
    expect(held.events).toBeLessThan(count);
    // What the response holds unsent is bounded by its buffer and one event, not by what is stored.
    expect(held.peakBuffered).toBeLessThan(64 * 1024 + bytes);
    expect(held.buffered).toBeLessThan(64 * 1024 + bytes);

    // The reader reads again: every event arrives, in order, none skipped.
    const parser = new SseParser();
    const seqs: number[] = [];
    res.setEncoding('utf8');
    await new Promise<void>((resolve, reject) => {
      res.on('data', (chunk: string) => {
        for (const m of parser.push(chunk)) seqs.push(Number(m.id));
        if (seqs.at(-1) === last) resolve();
      });
      res.on('error', reject);
      res.resume();
    });
    expect(seqs.length).toBe(count);
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
    stream.close();
  }, 60_000);

  it('a reader stalled past stalledMs is ended', async () => {
    const { port, views } = await gateway({ stream: { stalledMs: 300 } });
    const stream = openStream(port, {}, '?kind=Cluster&name=gone-quiet');
    (await stream.opened).pause();
    await publishMany('gone-quiet', 600, 16 * 1024);
    await eventually(
      () => (views.endedStalled === 1 && views.openStreams().length === 0 ? true : undefined),
      30_000,
      'the stalled stream ended',
    );
    stream.close();
  }, 60_000);
});

describe('resuming the event stream', () => {
  it('refuses a Last-Event-ID further back than maxReplay, and one from the start of a longer stream', async () => {
    const { port } = await gateway({ stream: { maxReplay: 50 } });
    const last = await publishMany('replayed', 60);
    const resume = (id: string) =>
      send(port, '/dashboard/api/stream', { method: 'GET', headers: { 'last-event-id': id } });
    const far = await resume(String(last - 51));
    expect([far.status, far.body.error?.reason]).toEqual([410, 'Expired']);
    expect(far.body.error?.message).toBe(
      `Last-Event-ID ${last - 51} is 51 events behind the stream's last (${last}); a resume may start at most 50 ` +
        'events back: open the stream again without Last-Event-ID (the newest events, then each new one), and read ' +
        'older ones with `flotilla events`',
    );
    expect((await resume('0')).status).toBe(410);
    const bad = await resume('-1');
    expect([bad.status, bad.body.error?.message]).toEqual([
      400,
      expect.stringMatching(/^Last-Event-ID: Invalid value: "-1"/),
    ]);

    // Within the bound, the stream resumes just after the id.
    const stream = openStream(port, { 'last-event-id': String(last - 50) }, '?kind=Cluster&name=replayed');
    const res = await stream.opened;
    expect(res.statusCode).toBe(200);
    res.setEncoding('utf8');
    const parser = new SseParser();
    const first = await new Promise<string | undefined>((resolve) =>
      res.on('data', (chunk: string) => {
        const [m] = parser.push(chunk);
        if (m) resolve(m.id);
      }),
    );
    expect(first).toBe(String(last - 49));
    stream.close();
  });
});
