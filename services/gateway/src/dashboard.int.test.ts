// The dashboard's routes on the HTTP API port, against real NATS: who may read what, paging, bad input named, the
// history and the live stream of events.
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudEvent, publishEvent, type Bus } from '@flotilla/bus';
import { testBus } from '@flotilla/bus/testing';
import { SseParser } from '@flotilla/dashboard';
import { ensureMetricsStream, JetStreamHistory } from '@flotilla/metric-history';
import { forecastError } from '@flotilla/prediction';
import { eventually } from '@flotilla/testkit';
import { Informers, KubeEventStore, ObjectStore, type StoredObject } from '@flotilla/store';
import { ApiTokens } from './api-tokens.js';
import { DashboardViews } from './dashboard.js';
import { GatewayHandler } from './handler.js';
import { serveHttpApi } from './http-api.js';

const READER = 'read-token-0123456789abcdef';
const tokens = ApiTokens.parse(`${READER},read,viewer\n`);
const log = { error: () => undefined };

let bus: Bus & { dispose(): Promise<void> };
let views: DashboardViews;
let informers: Informers;
let http: { port: number; close(): Promise<void> };
/** A GET with the read token, or with none (`anonymous`). */
const get = (path: string, token: string | 'anonymous' = READER, init: RequestInit = {}) =>
  fetch(`http://127.0.0.1:${http.port}${path}`, {
    ...init,
    headers: { ...(token === 'anonymous' ? {} : { authorization: `Bearer ${token}` }), ...(init.headers as object) },
  });

const binding = (i: number): StoredObject =>
  ({
    apiVersion: 'work.karmada.io/v1alpha2',
    kind: 'ResourceBinding',
    metadata: { name: `app-${i}-deployment`, namespace: i % 2 ? 'odd' : 'even' },
    spec: {
      resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: i % 2 ? 'odd' : 'even', name: `app-${i}` },
      clusters: [{ name: 'member1', replicas: i }],
    },
  }) as StoredObject;

beforeAll(async () => {
  bus = await testBus('gwdash');
  const store = new ObjectStore(bus);
  for (let i = 1; i <= 7; i++) await store.apply(binding(i));
  informers = new Informers({ bus });
  views = new DashboardViews({ bus, store, informers });
  const handler = new GatewayHandler({
    store,
    kubeEvents: new KubeEventStore(bus),
    publish: (e) => publishEvent(bus, e),
  });
  http = await serveHttpApi(handler, { host: '127.0.0.1', port: 0, tokens, dashboard: views }, log);
});
afterAll(async () => {
  views?.stop();
  await http?.close();
  await bus?.dispose();
});

describe('the dashboard on the HTTP API port', () => {
  it('serves the page to anyone, its data only with a token', async () => {
    const page = await get('/dashboard/', 'anonymous');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('<main id="main"');
    const anonymous = await get('/dashboard/api/bindings', 'anonymous');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    // An encoded slash reaches the server as it is; decoded, it would leave the folder: refused.
    expect((await get('/dashboard/static/..%2f..%2fpackage.json', 'anonymous')).status).toBe(404);
  });

  it('pages the bindings as get rb -A -o wide, by namespace and name, the same from the store and the cache', async () => {
    const page = async () => {
      const r = await get('/dashboard/api/bindings?page=3&pageSize=3');
      expect(r.status).toBe(200);
      return ((await r.json()) as { result: Record<string, unknown> }).result;
    };
    const want = {
      headers: ['NAMESPACE', 'NAME', 'SCHEDULED', 'CLUSTERS', 'AFFINITY', 'PODSSCHEDULED', 'AGE'],
      rows: [{ namespace: 'odd', name: 'app-7-deployment', cells: expect.arrayContaining(['member1:7']) }],
      page: 3,
      pageSize: 3,
      total: 7,
    };
    // Nothing watched until the first page is asked for: a gateway whose dashboard no one opens decodes no binding.
    expect(informers.all().map((i) => `${i.bucket}/${i.kind}`)).toEqual([]);
    expect(await page()).toMatchObject(want);
    expect(informers.all().map((i) => `${i.bucket}/${i.kind}`)).toEqual([
      'objects/ResourceBinding',
      'status/ResourceBinding',
    ]);
    // A binding added later is in the next page read (the cache follows the store).
    await new ObjectStore(bus).apply(binding(9));
    await eventually(async () => ((await page()).total === 8 ? true : undefined), 10_000, 'the eighth binding');
    const odd = await get('/dashboard/api/bindings?namespace=even');
    expect(((await odd.json()) as { result: { total: number } }).result.total).toBe(3);
  });

  it.each([
    ['/dashboard/api/bindings?pageSize=0', 400, 'pageSize: Invalid value: "0": must be an integer from 1 to 500'],
    ['/dashboard/api/bindings?page=x', 400, 'page: Invalid value: "x"'],
    ['/dashboard/api/workload', 400, 'query parameter "name" is required'],
    ['/dashboard/api/history?kind=Cluster&name=m&hours=0', 400, 'hours: Invalid value: "0"'],
    ['/dashboard/api/nothing', 404, 'no route /dashboard/api/nothing'],
  ])('%s is answered %d naming what is wrong', async (path, status, message) => {
    const r = await get(path);
    expect(r.status).toBe(status);
    expect(((await r.json()) as { error: { message: string } }).error.message).toContain(message);
  });

  it('refuses to be written to', async () => {
    expect((await get('/dashboard/api/bindings', READER, { method: 'POST' })).status).toBe(405);
  });

  it('follows nothing for a reader gone before its stream began', async () => {
    const req = new IncomingMessage(new Socket());
    const res = new ServerResponse(req);
    const streamed = views.stream(new URLSearchParams('kind=Cluster'), req, res);
    // The reader goes away while the stream's position is still being read from NATS.
    res.emit('close');
    await streamed;
    expect(res.headersSent).toBe(false);
  });

  it("tells one object's history, and streams new events as they are stored", async () => {
    const event = (n: number) =>
      cloudEvent({
        source: 'test',
        type: 'ClusterStatusChanged',
        kind: 'Cluster',
        name: 'member1',
        time: new Date(),
        data: { n },
      });
    await publishEvent(bus, event(1));
    const history = await get('/dashboard/api/history?kind=Cluster&name=member1');
    expect(((await history.json()) as { result: { items: unknown[] } }).result.items).toEqual([
      expect.objectContaining({ type: 'ClusterStatusChanged', data: { n: 1 } }),
    ]);

    const abort = new AbortController();
    const res = await get('/dashboard/api/stream?kind=Cluster', READER, { signal: abort.signal });
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    const parser = new SseParser();
    const seen: Array<{ name: string; type: string }> = [];
    await publishEvent(bus, event(2));
    while (seen.length < 2) {
      const { value } = await reader.read();
      for (const m of parser.push(value ?? '')) seen.push(JSON.parse(m.data) as { name: string; type: string });
    }
    expect(seen.map((e) => [e.type, e.name])).toEqual([
      ['ClusterStatusChanged', 'member1'],
      ['ClusterStatusChanged', 'member1'],
    ]);
    // Stopping the views (as the gateway does on SIGTERM) ends an open stream, so the HTTP server can close.
    views.stop();
    for (;;) if ((await reader.read()).done) break;
    abort.abort();
    // A stopping gateway refuses a new stream with a retryable answer.
    const late = await get('/dashboard/api/stream');
    expect(late.status).toBe(503);
    expect(late.headers.get('retry-after')).toBe('1');
  });

  it("serves an EffectiveHPA's usage history and its forecast replayed over the last day, from the metrics stream", async () => {
    const store = new ObjectStore(bus);
    const nowS = Math.floor(Date.now() / 60_000) * 60;
    // 4 days of a daily sine (3 ± 2 cores), one sample a minute: 3 days for the first fit, 1 for the chart
    const usage = (t: number) => 3 + 2 * Math.sin((2 * Math.PI * t) / 86_400);
    await ensureMetricsStream(bus.jsm, bus, 5 * 86_400_000);
    const history = new JetStreamHistory(bus);
    const web = { namespace: 'default', kind: 'Deployment', name: 'web' };
    const seeded: Array<Promise<void>> = [];
    for (let t = nowS - 4 * 86_400; t <= nowS; t += 60)
      seeded.push(history.record(web, [t, Math.round(usage(t) * 1000) / 1000]));
    await Promise.all(seeded);
    await store.apply({
      apiVersion: 'autoscaling.crane.io/v1alpha1',
      kind: 'EffectiveHorizontalPodAutoscaler',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        maxReplicas: 10,
        prediction: {
          predictionWindowSeconds: 1800,
          predictionAlgorithm: { algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '3d' } },
        },
      },
    } as StoredObject);
    const r = await get('/dashboard/api/forecast?namespace=default&name=web');
    expect(r.status).toBe(200);
    const { actual, forecast } = ((await r.json()) as { result: Record<string, Array<[number, number]>> }).result;
    const nowAsked = Math.floor(Date.now() / 1000);
    expect(actual![0]![0]).toBeGreaterThanOrEqual(nowS - 86_400);
    expect(actual!.length).toBeGreaterThanOrEqual(1440);
    expect(forecast![0]![0]).toBeLessThanOrEqual(nowS - 86_400 + 60);
    expect(forecast!.at(-1)![0]).toBeGreaterThanOrEqual(nowAsked - 60 + 1800);
    const e = forecastError({ forecast: forecast!, actual: actual!, now: nowS, windowSeconds: 86_400 });
    expect(e!.samples).toBeGreaterThanOrEqual(1400);
    expect(e!.mape).toBeLessThan(0.05);
    // an EffectiveHPA without prediction has no curves, and a name is required
    const missing = await get('/dashboard/api/forecast?namespace=default&name=absent');
    expect(((await missing.json()) as { result: unknown }).result).toEqual({ actual: [], forecast: [] });
    expect((await get('/dashboard/api/forecast?namespace=default')).status).toBe(400);
  }, 60_000);
});
