// The dashboard's Workloads page with many bindings stored (default 10,000): how long a fresh tab of headless
// Chromium takes from navigation to the first page of `get rb -o wide` painted (target: <= 1 s), and how long the
// gateway takes to answer that page (the list is paged in the gateway from a cache of the rows' fields, so the
// browser receives 50 rows), and what the cache costs the gateway in resident memory.
import { freeTcpPort, NATS_URL } from '@flotilla/testkit';
import { connectBus } from '@flotilla/bus';
import { ObjectStore, type StoredObject } from '@flotilla/store';
import { launchChromium } from '../test/support/browser.js';
import { startSuite } from '../test/support/suite.js';
import { boundedRun, fmt, percentile, report, rssOfPidMb } from './support.js';

const BINDINGS = Number(process.env.BENCH_BINDINGS ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const TARGET_MS = 1000;

function binding(i: number): StoredObject {
  const name = `app-${String(i).padStart(5, '0')}`;
  return {
    apiVersion: 'work.karmada.io/v1alpha2',
    kind: 'ResourceBinding',
    metadata: { name: `${name}-deployment`, namespace: `team-${i % 20}` },
    spec: {
      resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: `team-${i % 20}`, name },
      replicas: 3,
      clusters: [
        { name: `member${(i % 5) + 1}`, replicas: 2 },
        { name: `member${((i + 1) % 5) + 1}`, replicas: 1 },
      ],
    },
  } as StoredObject;
}

const port = await freeTcpPort();
const s = await startSuite(['gateway'], { LOG_LEVEL: 'warn' }, { gateway: { GATEWAY_API_PORT: String(port) } });
const bus = await connectBus({ url: NATS_URL, prefix: s.env.FLOTILLA_PREFIX, name: 'bench-dashboard' });
const browser = await launchChromium();
try {
  const store = new ObjectStore(bus);
  const gatewayPid = s.suite.processes.find((p) => p.name === 'gateway')?.child.pid;
  const idleRss = rssOfPidMb(gatewayPid);
  const loadStart = performance.now();
  await boundedRun(BINDINGS, 64, async (i) => {
    await store.apply(binding(i));
  });
  const loadS = (performance.now() - loadStart) / 1000;
  const base = `http://127.0.0.1:${port}`;

  const apiMs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    const res = await fetch(`${base}/dashboard/api/bindings?page=${1 + (i % 3)}`);
    const body = (await res.json()) as { result: { total: number; rows: unknown[] } };
    apiMs.push(performance.now() - t);
    if (body.result.total !== BINDINGS)
      throw new Error(`the page counts ${body.result.total} bindings, not ${BINDINGS}`);
  }

  const paintMs: number[] = [];
  const fcpMs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    // A fresh context each time: nothing cached, as a person opening the dashboard for the first time.
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/dashboard/#/workloads`);
    // Milliseconds since navigation started, taken in the page the moment the first row is in the document.
    const painted = await page.waitForFunction(
      // A function, not a string: the page's CSP forbids eval, and a string predicate is evaluated by it on each poll.
      // It runs in the page, where the DOM is (this file is compiled for Node, without the DOM's types).
      () => {
        const doc = (globalThis as unknown as { document: { querySelector(s: string): unknown } }).document;
        return doc.querySelector('[data-testid="bindings"] tbody tr') ? performance.now() : false;
      },
      undefined,
      { polling: 'raf', timeout: 30_000 },
    );
    paintMs.push((await painted.jsonValue()) as number);
    fcpMs.push(
      await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN),
    );
    await context.close();
  }
  const sorted = (a: number[]) => [...a].sort((x, y) => x - y);
  const paint = sorted(paintMs);
  report(
    `dashboard Workloads page with ${BINDINGS.toLocaleString('en-US')} ResourceBindings stored, ${RUNS} fresh tabs`,
    [
      ['bindings stored in', `${fmt(loadS)} s`],
      [
        'first page of rows painted p50',
        `${fmt(percentile(paint, 50))} ms  (target <= ${TARGET_MS.toLocaleString('en-US')} ms)`,
      ],
      ['first page of rows painted max', `${fmt(paint.at(-1)!)} ms`],
      ['first contentful paint p50', `${fmt(percentile(sorted(fcpMs), 50))} ms`],
      ['GET /dashboard/api/bindings first', `${fmt(apiMs[0]!)} ms`],
      ['GET /dashboard/api/bindings p50', `${fmt(percentile(sorted(apiMs), 50))} ms (50 of ${BINDINGS} rows)`],
      ['gateway VmRSS', `${fmt(rssOfPidMb(gatewayPid))} MiB (before the bindings: ${fmt(idleRss)} MiB)`],
    ],
  );
} finally {
  await browser.close();
  await bus.close();
  await s.stop();
}
