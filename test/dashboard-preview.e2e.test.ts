// The dashboard's Preview as a person uses it (headless Chromium against the real suite with simulated clusters):
// paste a policy change or pick a cluster action, see the table of moves while nothing has moved, press Apply, and
// the scheduler then places the workload where the table said.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { eventually, freeTcpPort, scaled } from '@flotilla/testkit';
import { flotilla } from './support/cli.js';
import { launchChromium } from './support/browser.js';
import { startSuite, type RunningSuite } from './support/suite.js';
import { webPolicy } from './support/weighted-policy.js';

const ADMIN = 'admin-token-0123456789abcdef';

let s: RunningSuite;
let browser: Browser;
let base: string;
let tmp: string;
const cli = (...args: string[]) => flotilla(s.env, args);
const placement = async () =>
  (
    (
      JSON.parse((await cli('get', 'rb', 'web-deployment', '-o', 'json')).out) as {
        spec: { clusters?: Array<{ name: string; replicas?: number }> };
      }
    ).spec.clusters ?? []
  )
    .map((c) => `${c.name}:${c.replicas ?? 0}`)
    .sort()
    .join(', ');

const web = `apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: default }
spec:
  replicas: 6
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec: { containers: [{ name: c, image: nginx }] }
`;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'dashboard-preview-e2e-'));
  const tokens = join(tmp, 'tokens');
  writeFileSync(tokens, `${ADMIN},admin,alice\n`);
  const port = await freeTcpPort();
  base = `http://127.0.0.1:${port}`;
  browser = await launchChromium();
  s = await startSuite(
    ['gateway', 'status-writer', 'member-agent', 'affinity-scheduler'],
    { FAILOVER_GRACE_MS: '1000', SIM_TICK_MS: '200', RESYNC_MS: '2000' },
    { gateway: { GATEWAY_API_PORT: String(port), GATEWAY_TOKENS_FILE: tokens } },
  );
  for (const n of ['member1', 'member2']) expect((await cli('cluster', 'add', n, '--sim')).code).toBe(0);
  for (const n of ['member1', 'member2'])
    expect((await cli('wait', '--for=condition=Ready', `cluster/${n}`, '--timeout', '20s')).code).toBe(0);
  expect((await flotilla(s.env, ['apply', '-f', '-'], `${web}---\n${webPolicy(2, 1)}`)).err).toBe('');
  await eventually(
    async () => ((await placement().catch(() => '')) === 'member1:4, member2:2' ? true : undefined),
    scaled(20_000),
    'web placed 4:2',
  );
}, scaled(90_000));

afterAll(async () => {
  await browser?.close();
  if (s) {
    const codes = await s.suite.stop();
    expect(Object.values(codes).every((c) => c === 0)).toBe(true);
    await s.stop();
  }
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}, scaled(60_000));

async function open(hash: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  page.setDefaultTimeout(scaled(15_000));
  await page.goto(`${base}/dashboard/#/login`);
  await page.getByLabel('Token').fill(ADMIN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.goto(`${base}/dashboard/${hash}`);
  onTestFailed(async () =>
    console.log(`page: ${await page.locator('#notice').textContent()}\n${await page.locator('#main').textContent()}`),
  );
  return page;
}

const rowTexts = (rows: Locator): Promise<string[]> =>
  rows.evaluateAll((trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim()).join('\t')),
  );

describe('the dashboard Preview', () => {
  it('a pasted policy change: the table of moves first, nothing moved; Apply, and the scheduler moves web as shown', async () => {
    const page = await open('#/preview');
    await page.getByLabel('Objects to apply').fill(webPolicy(1, 2));
    await page.getByRole('button', { name: 'Preview apply' }).click();
    const rows = page.getByTestId('preview-moves').locator('tbody tr');
    await rows.first().waitFor();
    const [row] = await rowTexts(rows);
    expect(row).toMatch(/^default\/web-deployment\tMoved\t\S+\tmember1:4, member2:2\tmember1:2, member2:4\t/);
    // Seen before Apply: nothing has moved.
    expect(await placement()).toBe('member1:4, member2:2');

    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Apply' }).click();
    await page.getByText('1 object applied').waitFor();
    await eventually(
      async () => ((await placement()) === 'member1:2, member2:4' ? true : undefined),
      scaled(20_000),
      `web placed as the preview showed (member1:2, member2:4); it is ${await placement()}`,
    );
  }, 60_000);

  it('a cluster action: failing member1 would move web to member2, shown with the moment after the grace', async () => {
    const page = await open('#/preview');
    await page.getByLabel('Cluster').selectOption('member1');
    await page.getByLabel('action').selectOption('fail');
    await page.getByRole('button', { name: 'Preview cluster action' }).click();
    const rows = page.getByTestId('preview-moves').locator('tbody tr');
    await rows.first().waitFor();
    expect(await rowTexts(rows)).toEqual([
      expect.stringMatching(/^default\/web-deployment\tMoved\t\S+\tmember1:2, member2:4\tmember2:6\t/),
    ]);
    await page.getByText('What the preview cannot know').waitFor();
    expect(await placement()).toBe('member1:2, member2:4');
  }, 60_000);
});
