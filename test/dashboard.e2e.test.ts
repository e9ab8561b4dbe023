// The web dashboard as a person uses it: headless Chromium (Debian's chromium, driven by playwright-core) against the
// real suite with simulated member clusters, served by the gateway on its HTTP API port with tokens.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { seedLoad, seededLoadArgs } from '@flotilla/launcher';
import { eventually, freeTcpPort, scaled } from '@flotilla/testkit';
import { flotilla } from './support/cli.js';
import { launchChromium } from './support/browser.js';
import { ROOT, startSuite, type RunningSuite } from './support/suite.js';

const ADMIN = 'admin-token-0123456789abcdef';
const READER = 'read-token-0123456789abcdef';
/** Screenshots of each page, linked from the README. */
const SHOTS = join(ROOT, 'docs', 'dashboard');
const SCREENSHOTS = process.env.DASHBOARD_SCREENSHOTS === '1';

let s: RunningSuite;
let browser: Browser;
let base: string;
let tmp: string;
const cli = (...args: string[]) => flotilla(s.env, args);

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'dashboard-e2e-'));
  const tokens = join(tmp, 'tokens');
  writeFileSync(tokens, `${ADMIN},admin,alice\n${READER},read,bob\n`);
  const port = await freeTcpPort();
  base = `http://127.0.0.1:${port}`;
  browser = await launchChromium();
  s = await startSuite(
    ['gateway', 'status-writer', 'member-agent', 'affinity-scheduler', 'hpa-assigner'],
    {
      FAILOVER_GRACE_MS: '1000',
      SIM_TICK_MS: '200',
      RESYNC_MS: '2000',
      SIM_HPA_SYNC_MS: '1000',
      EHPA_SYNC_PERIOD_MS: '1000',
    },
    { gateway: { GATEWAY_API_PORT: String(port), GATEWAY_TOKENS_FILE: tokens } },
  );
  const example = (f: string) => join(ROOT, 'examples', f);
  expect((await cli('apply', '-f', example('00-clusters.yaml'))).code).toBe(0);
  for (const c of ['member1', 'member2', 'member3'])
    expect((await cli('wait', '--for=condition=Ready', `cluster/${c}`, '--timeout', '20s')).code).toBe(0);
  expect(
    (await cli('apply', '-f', example('10-nginx-ordered-groups.yaml'), '-f', example('20-web-divided.yaml'))).code,
  ).toBe(0);
  // A binding is made by the scheduler a moment after the apply: waited for to exist first, as `kubectl wait
  // --for=create`, since a condition on a missing object is NotFound at once (a busy CI run found web's not made yet).
  for (const rb of ['rb/nginx-deployment', 'rb/web-deployment'])
    for (const wanted of ['--for=create', '--for=condition=Scheduled']) {
      const waited = await cli('wait', wanted, rb, '--timeout', '20s');
      expect(waited.code, `${rb} ${wanted}: ${waited.err}`).toBe(0);
    }
  // A day of load for the EffectiveHPA to act on and the charts to show, as scripts/up --seed-load starts with:
  // recorded before the EffectiveHPA arrives, whose first fit reads it.
  await seedLoad({ natsUrl: s.env.NATS_URL!, prefix: s.env.FLOTILLA_PREFIX! });
  const more = ['30-web-cron.yaml', '40-shop-federated-hpa.yaml', '50-php-apache-effective-hpa.yaml'];
  const applied = await cli('apply', ...more.flatMap((f) => ['-f', example(f)]));
  expect(applied.code, applied.err).toBe(0);
  const load = await cli(...seededLoadArgs());
  expect(load.code, load.err).toBe(0);
}, scaled(90_000));

afterAll(async () => {
  try {
    if (s && browser) {
      // A tab still following the event stream does not hold the gateway up: every service stops cleanly on SIGTERM.
      const page = await open(READER, '#/events');
      await page.getByTestId('events').waitFor();
      const codes = await s.suite.stop();
      // null is a SIGKILL after the stop's grace: the logs say what the service was still doing.
      expect(codes, s.logs.slice(-40).join('\n')).toEqual(Object.fromEntries(Object.keys(codes).map((k) => [k, 0])));
    }
  } finally {
    await browser?.close();
    await s?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }
}, scaled(60_000));

/** A fresh tab (its own sessionStorage), signed in with `token` unless undefined. */
/** The pages a test opened, for what they showed when it failed. */
const opened: Page[] = [];

/** Each open page's address, notice and main content: what a person would have seen when the test failed. */
async function pagesReport(): Promise<string> {
  const lines: string[] = [];
  for (const page of opened.filter((p) => !p.isClosed())) {
    const [notice, main] = await Promise.all(
      ['#notice', '#main'].map((sel) =>
        page
          .locator(sel)
          .textContent({ timeout: 2000 })
          .catch((err: unknown) => `(unreadable: ${String(err)})`),
      ),
    );
    lines.push(`--- ${page.url()}`, `notice: ${notice ?? ''}`, `main: ${(main ?? '').slice(0, 1500)}`);
  }
  return lines.join('\n');
}

async function open(token: string | undefined, hash: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  opened.push(page);
  // What a person waits for a page, scaled for a busy machine.
  page.setDefaultTimeout(scaled(15_000));
  page.on('pageerror', (e) => console.error('[dashboard page error]', e.message));
  await page.goto(`${base}/dashboard/#/login`);
  if (token) {
    await page.getByLabel('Token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }
  await page.goto(`${base}/dashboard/${hash}`);
  return page;
}

/** The text a person sees in what a locator finds (rendered, as innerText gives it). */
const seen = async (l: Locator) => (await l.allInnerTexts()).join('\n');

/**
 * Each table row's cells, tab-separated, read from the cells themselves: a row's innerText has its tabs only once the
 * page is laid out, and under load it was twice read before (the cells ran together).
 */
const rowTexts = (rows: Locator): Promise<string[]> =>
  rows.evaluateAll((trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim()).join('\t')),
  );

/** The series a chart names in its legend (uPlot's; the time column left out), once it is drawn. */
async function chartLegend(scope: Locator): Promise<string[]> {
  const labels = scope.locator('.u-legend .u-series .u-label');
  await labels.first().waitFor();
  return (await labels.allInnerTexts()).slice(1);
}

/** A series' values as the chart's text alternative (the table under it) lists them. */
async function chartValues(scope: Locator, series: string): Promise<string[]> {
  const rows = await scope
    .locator('table.chart-table tbody tr')
    .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
  return rows.filter((cells) => cells[0] === series).map((cells) => cells[2]!);
}

const shot = async (page: Page, name: string) => {
  if (SCREENSHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
};

describe('the dashboard in a browser', () => {
  beforeEach(() => onTestFailed(async () => console.log(`the pages when it failed:\n${await pagesReport()}`)));
  it('asks for a token: the page loads without one, its data does not, and a bad token is refused', async () => {
    const page = await open(undefined, '#/clusters');
    await expect.poll(() => new URL(page.url()).hash).toBe('#/login');
    await page.getByText('Unauthorized: a valid "Authorization: Bearer <token>" header is required').waitFor();
    await page.getByLabel('Token').fill('not-a-token-of-this-gateway');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText(/^Unauthorized:/).waitFor();
    expect(await page.locator('table.clusters').count()).toBe(0);
    await page.close();
    // The data itself without a token: 401, with the bearer challenge.
    const res = await fetch(`${base}/dashboard/api/bindings`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('Clusters: Ready, mode, taints and capacity against allocated, as text', async () => {
    const page = await open(READER, '#/clusters');
    const table = page.getByTestId('clusters');
    await table.getByText('member3', { exact: true }).waitFor();
    const rows = await rowTexts(table.locator('tbody tr'));
    expect(rows).toHaveLength(3);
    for (const [i, row] of rows.entries()) {
      expect(row).toContain(`member${i + 1}`);
      expect(row).toContain('✔ Ready');
      expect(row).toContain('simulated');
      expect(row).toMatch(/cpu [\d.]+ of \d+ \(\d+%\)/);
      expect(row).toMatch(/pods [\d.]+ of 110 \(\d+%\)/);
    }
    // Each bar is a meter with its figure as its label, so its length is not the only signal.
    expect(await table.getByRole('meter').count()).toBe(9);
    // Its length is drawn too: the gateway's Content-Security-Policy refuses style attributes, not the CSSOM.
    const widths = await table
      .locator('.fill')
      .evaluateAll((els) => els.map((e) => (e as unknown as { style: { width: string } }).style.width));
    expect(widths).toEqual(Array(9).fill(expect.stringMatching(/^\d+%$/)));
    await shot(page, 'clusters');
    await page.close();
  });

  it('Workloads: the list as get rb -o wide, paged by the server', async () => {
    // What the CLI lists, across namespaces, by namespace and name: the pages must hold the same, in order.
    const listed = JSON.parse((await cli('get', 'rb', '-A', '-o', 'json')).out) as {
      items: Array<{ metadata: { namespace: string; name: string } }>;
    };
    const names = listed.items.map((b) => b.metadata.name);
    const total = names.length;
    expect(total).toBeGreaterThanOrEqual(3);
    const pages = Math.ceil(total / 2);
    const page = await open(READER, '#/workloads?pageSize=2');
    await page.getByTestId('page-label').getByText(`Page 1 of ${pages} (1-2 of ${total})`).waitFor();
    const headers = await page.getByTestId('bindings').locator('thead th').allInnerTexts();
    expect(headers).toEqual(['NAMESPACE', 'NAME', 'SCHEDULED', 'CLUSTERS', 'AFFINITY', 'PODSSCHEDULED', 'AGE']);
    const rowNames = async () =>
      (await rowTexts(page.getByTestId('bindings').locator('tbody tr'))).map((r) => r.split('\t')[1]);
    expect(await rowNames()).toEqual(names.slice(0, 2));
    // Polled, as the eye would wait: a live update can re-render the rows here
    await expect
      .poll(async () => (await rowTexts(page.getByTestId('bindings').locator('tbody tr'))).join('\n'))
      .toMatch(/default\s+nginx-deployment\s+True\s+member1:2\s+dc-beijing/);
    await page.getByRole('link', { name: 'Next ›' }).click();
    await page
      .getByTestId('page-label')
      .getByText(`Page 2 of ${pages} (3-${Math.min(4, total)} of ${total})`)
      .waitFor();
    expect(await rowNames()).toEqual(names.slice(2, 4));
    await page.goto(`${base}/dashboard/#/workloads`);
    await page.getByTestId('page-label').getByText(`Page 1 of 1 (1-${total} of ${total})`).waitFor();
    await shot(page, 'workloads');
    await page.close();
  });

  it('one workload: placement, the groups tried with rejected clusters and reasons, the replica trail chart', async () => {
    const page = await open(READER, '#/workloads');
    await page.getByRole('link', { name: 'nginx-deployment' }).click();
    await page.getByRole('heading', { name: 'Workload default/nginx-deployment' }).waitFor();
    await page.getByTestId('placement').getByText('member1').waitFor();
    const decision = page.getByTestId('decision');
    await decision.getByText('dc-beijing').first().waitFor();
    expect(await seen(decision)).toMatch(/Outcome\s+Scheduled/);
    const groups = await rowTexts(page.getByTestId('groups').locator('tbody tr'));
    expect(groups.length).toBeGreaterThanOrEqual(1);
    expect(groups.join('\n')).toMatch(/dc-beijing\s+✔ fit/);
    // The chart's series, in the chart's legend: the template's count, and member1's share of it, each at 2 in
    // the chart's table.
    const chart = page.getByRole('region', { name: 'Replica trail: why this count?' });
    // Polled: the page follows the trail live, and member1's share may reach it after the first paint
    await expect.poll(() => chartLegend(chart), { timeout: scaled(20_000) }).toEqual(['replicas', 'cluster member1']);
    expect(await chartValues(chart, 'replicas')).toContain('2');
    expect(await chartValues(chart, 'cluster member1')).toContain('2');
    expect(await page.getByRole('img', { name: /Replicas over time: replicas, cluster member1/ }).count()).toBe(1);
    await shot(page, 'workload');
    await page.close();
  });

  it("CronFederatedHPAs: each rule's next runs on a time axis in the rule's own time zone", async () => {
    const page = await open(READER, '#/cronfederatedhpas');
    const section = page.getByTestId('cron-default/web-cron');
    await section.getByRole('heading', { name: 'default/web-cron → Deployment/web' }).waitFor();
    const up = section.locator('article[data-rule="scale-up"]');
    await up.getByRole('heading', { name: 'Rule scale-up: "0 8 * * 1-5" in Asia/Shanghai' }).waitFor();
    // The next runs, as the rule's zone reads them: 08:00 on weekdays, GMT+8.
    const runs = await rowTexts(up.locator('table.cron-next tbody tr'));
    expect(runs.length).toBeGreaterThanOrEqual(4);
    for (const r of runs) expect(r).toMatch(/^\d{4}-\d{2}-\d{2} 08:00 GMT\+8\s+replicas 10$/);
    // On the chart, one mark per run, each with its time in words.
    expect(await up.locator('[data-mark="next"]').count()).toBe(runs.length);
    expect(await up.getByRole('img', { name: /Next runs of scale-up \(Asia\/Shanghai\)/ }).count()).toBe(1);
    await shot(page, 'cronfederatedhpas');
    await page.close();
  });

  it("FederatedHPAs: each cluster's share of min and max, by static weight 1:2:3", async () => {
    const page = await open(READER, '#/federatedhpas');
    const section = page.getByTestId('fhpa-default/shop');
    await section.getByText('member HPAs, StaticWeighted assignment').waitFor();
    const shares = section.locator('table.fhpa-shares tbody tr');
    await expect.poll(() => shares.count(), { timeout: scaled(20_000) }).toBe(3);
    const rows = await rowTexts(shares);
    expect(rows.map((r) => r.split('\t')[0])).toEqual(['member1', 'member2', 'member3']);
    expect(rows[2]).toMatch(/\(50%\)/);
    await shot(page, 'federatedhpas');
    await page.close();
  });

  it(
    'EffectiveHPAs: the usage beside its forecast and the forecast error, the replicas, each proposal, the winner named',
    async () => {
      // The winner as the CLI reads it, once the EffectiveHPA has decided.
      const winner = await eventually(
        async () => {
          const o = JSON.parse((await cli('get', 'ehpa', 'php-apache', '-o', 'json')).out) as {
            status?: { winningSource?: string };
          };
          return o.status?.winningSource;
        },
        60_000,
        'php-apache decided',
      );
      const page = await open(READER, '#/effectivehpas');
      const section = page.getByTestId('ehpa-default/php-apache');
      await section.getByText(`Winning proposal: ${winner}`).waitFor();
      await section.getByRole('cell', { name: `★ ${winner} (winning)` }).waitFor();
      // The seeded day beside what was forecast for it, and how far apart they were.
      await section.getByText(/^Forecast error: \d+\.\d % MAPE over the last 3600s \(\d+ samples\)$/).waitFor();
      const usage = page.locator('figure', {
        has: page.getByRole('img', { name: /Actual and forecast usage of default\/php-apache/ }),
      });
      expect(await chartLegend(usage)).toEqual(['actual usage (cores)', 'forecast usage (cores)']);
      // a day of minutes (the current one may not be recorded yet), and the forecast an hour beyond
      expect((await chartValues(usage, 'actual usage (cores)')).length).toBeGreaterThanOrEqual(1438);
      expect((await chartValues(usage, 'forecast usage (cores)')).length).toBeGreaterThanOrEqual(1440 + 58);
      const replicas = page.locator('figure', {
        has: page.getByRole('img', { name: /Load, forecast and replicas of default\/php-apache/ }),
      });
      await expect.poll(() => chartLegend(replicas), { timeout: scaled(20_000) }).toContain('replicas');
      expect((await chartValues(section, 'replicas')).every((v) => /^\d+$/.test(v))).toBe(true);
      expect(await chartValues(section, 'replicas')).not.toEqual([]);
      expect(
        await section.getByRole('img', { name: /Load, forecast and replicas of default\/php-apache/ }).count(),
      ).toBe(1);
      await shot(page, 'effectivehpas');
      await page.close();
    },
    scaled(90_000),
  );

  it('works from the keyboard: the pages by their links, an action asked for and cancelled with Escape', async () => {
    const page = await open(READER, '#/clusters');
    await page.getByTestId('clusters').getByText('member1', { exact: true }).waitFor();
    await page.getByRole('link', { name: 'Workloads' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Workloads' }).waitFor();
    // The page's heading takes the focus, so a screen reader starts at the new page.
    await expect.poll(() => page.evaluate('document.activeElement?.textContent')).toBe('Workloads');
    await page.getByRole('link', { name: 'Clusters' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Clusters' }).waitFor();
    await page.getByRole('button', { name: 'Fail member2' }).focus();
    // A live redraw of the table (another cluster changed) keeps the focus on that row's button.
    await page.getByTestId('clusters').evaluate((table) => table.setAttribute('data-drawn-before', ''));
    const member3 = JSON.parse((await cli('get', 'cluster', 'member3', '-o', 'json')).out) as {
      metadata: Record<string, unknown>;
      spec: unknown;
    };
    const relabelled = join(tmp, 'member3-relabelled.json');
    writeFileSync(
      relabelled,
      JSON.stringify({
        apiVersion: 'cluster.karmada.io/v1alpha1',
        kind: 'Cluster',
        metadata: { name: 'member3', labels: { ...(member3.metadata.labels as object), 'dashboard-e2e': 'redraw' } },
        spec: member3.spec,
      }),
    );
    expect((await cli('apply', '-f', relabelled)).code).toBe(0);
    await page.locator('[data-testid=clusters]:not([data-drawn-before])').waitFor();
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Fail member2');
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').getByText('Make simulated cluster member2 unreachable').waitFor();
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    expect(await page.getByRole('alert').count()).toBe(0);
    await page.close();
  });

  it('a read token sees the actions refused with 403 Forbidden', async () => {
    const page = await open(READER, '#/clusters');
    await page.getByRole('button', { name: 'Fail member3' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Fail cluster' }).click();
    await page
      .getByRole('alert')
      .getByText('Forbidden: "bob" has the read role, which may not apply; an admin token may')
      .waitFor();
    const c = await cli('get', 'cluster', 'member3', '-o', 'json');
    expect((JSON.parse(c.out) as { spec: { simulation: { failed?: boolean } } }).spec.simulation.failed).not.toBe(true);
    await page.close();
  });

  it(
    'an admin fails member1 after confirming: the Clusters page and the workload move live, and the Events feed shows it',
    async () => {
      const clusters = await open(ADMIN, '#/clusters');
      const events = await open(ADMIN, '#/events?kind=ResourceBinding');
      await events.getByTestId('events').getByText('BindingScheduled').first().waitFor();
      const workload = await open(ADMIN, '#/workloads/default/nginx-deployment');
      await workload.getByTestId('decision').getByText('dc-beijing').first().waitFor();

      // Cancelling does nothing.
      await clusters.getByRole('button', { name: 'Fail member1' }).click();
      await clusters.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
      await clusters.getByRole('button', { name: 'Fail member1' }).click();
      await clusters.getByRole('dialog').getByRole('button', { name: 'Fail cluster' }).click();
      await clusters.getByRole('status').getByText('cluster/member1 failed').waitFor();
      const member1 = clusters.getByTestId('clusters').locator('tr', { hasText: 'member1' });
      // No reload: the page follows the event stream.
      await member1.getByText('✘ NotReady').waitFor({ timeout: scaled(20_000) });
      await member1.getByRole('button', { name: 'Recover member1' }).waitFor();
      await workload
        .getByTestId('placement')
        .getByText('member2')
        .waitFor({ timeout: scaled(20_000) });
      await workload.getByTestId('decision').getByText('dc-hongkong').first().waitFor();
      expect(await seen(workload.getByTestId('groups'))).toMatch(/member1/);
      await events.getByTestId('events').getByText('default/nginx-deployment').first().waitFor();
      await events.getByLabel('Object').fill('web-deployment');
      await expect
        .poll(async () => (await seen(events.getByTestId('events').locator('tbody'))).includes('nginx-deployment'))
        .toBe(false);
      await shot(events, 'events');
      await shot(clusters, 'clusters-failed');

      // Rebalance, confirmed: a WorkloadRebalancer through the same admission as the CLI.
      await workload.getByRole('button', { name: 'Rebalance this workload' }).click();
      await workload.getByRole('dialog').getByRole('button', { name: 'Rebalance' }).click();
      const created = workload
        .getByRole('status')
        .getByText(/^workloadrebalancer\.apps\.karmada\.io\/rebalance-\S+ created$/);
      await created.waitFor();
      const name = (await seen(created)).split('/')[1]!.split(' ')[0]!;
      const wr = await cli('get', 'workloadrebalancer', name, '-o', 'json');
      expect(JSON.parse(wr.out)).toMatchObject({
        spec: { workloads: [{ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'nginx' }] },
      });

      await clusters.getByRole('button', { name: 'Recover member1' }).click();
      await clusters.getByRole('dialog').getByRole('button', { name: 'Recover cluster' }).click();
      await member1.getByText('✔ Ready').waitFor({ timeout: scaled(20_000) });
      for (const p of [clusters, events, workload]) await p.close();
    },
    scaled(60_000),
  );
});
