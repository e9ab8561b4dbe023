import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, PrivatePrometheus } from '@flotilla/testkit';
import { PrometheusSource } from './prometheus-source.js';
import { SIM_WORKLOAD_CPU_QUERY } from './query-template.js';

// A metrics endpoint in the simulated clusters' format; the usage it exposes grows by 1 core each scrape.
let server: Server;
let scrapes = 0;
let prometheus: PrivatePrometheus;

beforeAll(async () => {
  server = createServer((req, res) => {
    scrapes++;
    res.setHeader('content-type', 'text/plain; version=0.0.4');
    res.end(
      [
        '# TYPE flotilla_sim_workload_cpu_usage_cores gauge',
        `flotilla_sim_workload_cpu_usage_cores{cluster="m1",namespace="default",kind="Deployment",workload="web"} ${scrapes}`,
        `flotilla_sim_workload_cpu_usage_cores{cluster="m2",namespace="default",kind="Deployment",workload="web"} 0.5`,
        `flotilla_sim_workload_cpu_usage_cores{cluster="m1",namespace="default",kind="Deployment",workload="other"} 100`,
        '',
      ].join('\n'),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  prometheus = new PrivatePrometheus([`127.0.0.1:${(server.address() as { port: number }).port}`], 1);
  await prometheus.start();
}, 30_000);

afterAll(async () => {
  await prometheus?.stop();
  await new Promise((r) => server?.close(r));
});

describe('PrometheusSource against a real Prometheus', () => {
  it("reads a workload's usage summed over clusters, one sample per step, oldest first", async () => {
    const source = new PrometheusSource({ url: prometheus.url, queryTemplate: SIM_WORKLOAD_CPU_QUERY });
    const start = new Date();
    const samples = await eventually(
      async () => {
        const s = await source.range(
          { namespace: 'default', kind: 'Deployment', name: 'web' },
          { start, end: new Date(), stepSeconds: 1 },
        );
        return s.length >= 4 ? s : undefined;
      },
      20_000,
      'four samples scraped',
    );
    for (let i = 1; i < samples.length; i++) expect(samples[i]![0] - samples[i - 1]![0]).toBe(1);
    // m1's growing gauge plus m2's 0.5; the other workload is not summed in.
    for (const [, v] of samples) expect(v % 1).toBe(0.5);
    expect(samples.at(-1)![1]).toBeGreaterThan(samples[0]![1]);
    expect(samples.every(([, v]) => v < 100)).toBe(true);
  });

  it('names the Prometheus error of a bad query', async () => {
    const source = new PrometheusSource({ url: prometheus.url, queryTemplate: 'sum(' });
    await expect(
      source.range(
        { namespace: 'd', kind: 'Deployment', name: 'w' },
        { start: new Date(Date.now() - 60_000), end: new Date(), stepSeconds: 15 },
      ),
    ).rejects.toThrow(/Prometheus query at .* failed: bad_data: .*parse error/);
  });

  it('says when Prometheus cannot be reached', async () => {
    const source = new PrometheusSource({
      url: 'http://127.0.0.1:1',
      queryTemplate: SIM_WORKLOAD_CPU_QUERY,
      timeoutMs: 2000,
    });
    await expect(
      source.range(
        { namespace: 'd', kind: 'Deployment', name: 'w' },
        { start: new Date(Date.now() - 60_000), end: new Date(), stepSeconds: 15 },
      ),
    ).rejects.toThrow(expect.objectContaining({ name: 'PrometheusQueryError' }));
  });
});
