// End to end: the built services as processes; their /metrics scraped while the examples are applied. Checks the
// names an operator alerts on are there (all that deploy/monitoring reads among them) and that they move.
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '@flotilla/testkit';
import { flotilla } from './support/cli.js';
import { ROOT, startSuite, type RunningSuite } from './support/suite.js';

const SERVICES = ['gateway', 'status-writer', 'member-agent', 'affinity-scheduler', 'cron-scheduler'] as const;
type Service = (typeof SERVICES)[number];

let s: RunningSuite;
const cli = (args: string[], stdin?: string) => flotilla(s.env, args, stdin);

beforeAll(async () => {
  s = await startSuite([...SERVICES], { SIM_TICK_MS: '200', RESYNC_MS: '2000', LEADER_LEASE_MS: '2000' });
}, 60_000);

afterAll(async () => {
  if (!s) return;
  await s.suite.stop();
  await s.stop();
});

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The Prometheus text format, as far as prom-client writes it: `name{a="x",b="y"} value`. */
function parseExposition(text: string): { types: Map<string, string>; samples: Sample[] } {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1]!, type[2]!);
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels = Object.fromEntries(
      [...(m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1]!, l[2]!]),
    );
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return { types, samples };
}

async function scrape(service: Service) {
  const p = s.suite.processes.find((x) => x.name === service)!;
  const res = await fetch(`http://127.0.0.1:${p.httpPort}/metrics`);
  expect(res.status).toBe(200);
  return parseExposition(await res.text());
}

/** The sum of the samples of `name` whose labels include `labels`. */
async function value(service: Service, name: string, labels: Record<string, string> = {}): Promise<number> {
  const { samples } = await scrape(service);
  return samples
    .filter((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v))
    .reduce((sum, x) => sum + x.value, 0);
}

/** Waits until the metric satisfies `ok`; the error names the metric and its last value. */
async function until(
  service: Service,
  name: string,
  labels: Record<string, string>,
  ok: (v: number) => boolean,
  timeoutMs = 30_000,
): Promise<number> {
  let last = NaN;
  return eventually(
    async () => {
      last = await value(service, name, labels);
      return ok(last) ? last : undefined;
    },
    timeoutMs,
    `${service} ${name}${JSON.stringify(labels)} (last ${last})`,
  );
}

const EXPECTED: Record<Service, string[]> = {
  gateway: ['flotilla_api_requests_total', 'flotilla_api_request_duration_seconds', 'flotilla_service_ready'],
  'status-writer': [
    'flotilla_leader',
    'flotilla_status_fold_lag_events',
    'flotilla_status_fold_lag_seconds',
    'flotilla_status_events_folded_total',
  ],
  'member-agent': [
    'flotilla_leader',
    'flotilla_cluster_ready',
    'flotilla_cluster_allocatable',
    'flotilla_cluster_allocated',
  ],
  'affinity-scheduler': [
    'flotilla_leader',
    'flotilla_reconcile_total',
    'flotilla_reconcile_duration_seconds',
    'flotilla_workqueue_depth',
    'flotilla_workqueue_oldest_item_age_seconds',
    'flotilla_workqueue_queue_duration_seconds',
    'flotilla_objects',
    'karmada_scheduler_schedule_attempts_total',
    'karmada_scheduler_scheduling_algorithm_duration_seconds',
    'karmada_scheduler_e2e_scheduling_duration_seconds',
  ],
  'cron-scheduler': [
    'flotilla_leader',
    'flotilla_reconcile_total',
    'flotilla_workqueue_depth',
    'flotilla_objects',
    'flotilla_cron_executions_total',
    'flotilla_cron_execution_lateness_seconds',
  ],
};

describe('/metrics of the running suite', () => {
  it('every service exports its metrics, with its name as the service label, and the elected ones lead', async () => {
    onTestFailed(() => console.log(s.logs.slice(-40).join('\n')));
    for (const service of SERVICES) {
      const { types, samples } = await scrape(service);
      for (const name of EXPECTED[service]) expect(types.has(name), `${service} exports ${name}`).toBe(true);
      expect(samples.every((x) => x.labels.service === service)).toBe(true);
    }
    for (const service of SERVICES.filter((x) => x !== 'gateway'))
      await until(service, 'flotilla_leader', {}, (v) => v === 1);
  });

  it('counters and gauges move as the examples are applied and run', async () => {
    onTestFailed(() => console.log(s.logs.slice(-40).join('\n')));
    const applies = await value('gateway', 'flotilla_api_requests_total', { operation: 'apply', reason: 'Success' });
    expect((await cli(['apply', '-f', join(ROOT, 'examples', '00-clusters.yaml')])).code).toBe(0);
    // member1 reports 8 cpu and 110 pods (examples/00-clusters.yaml), in base units
    await until('member-agent', 'flotilla_cluster_ready', { cluster: 'member1' }, (v) => v === 1);
    expect(await value('member-agent', 'flotilla_cluster_allocatable', { cluster: 'member1', resource: 'cpu' })).toBe(
      8,
    );
    expect(await value('member-agent', 'flotilla_cluster_allocatable', { cluster: 'member1', resource: 'pods' })).toBe(
      110,
    );
    await until('affinity-scheduler', 'flotilla_objects', { kind: 'Cluster' }, (v) => v === 3);

    const scheduled = await value('affinity-scheduler', 'karmada_scheduler_schedule_attempts_total', {
      result: 'scheduled',
    });
    const reconciles = await value('affinity-scheduler', 'flotilla_reconcile_total', {
      controller: 'scheduling',
      result: 'success',
    });
    expect((await cli(['apply', '-f', join(ROOT, 'examples', '20-web-divided.yaml')])).code).toBe(0);
    await until(
      'affinity-scheduler',
      'karmada_scheduler_schedule_attempts_total',
      { result: 'scheduled' },
      (v) => v > scheduled,
    );
    // The binding is placed at its creation; the scheduling controller reconciles the creation's echo after.
    await until(
      'affinity-scheduler',
      'flotilla_reconcile_total',
      { controller: 'scheduling', result: 'success' },
      (v) => v > reconciles,
    );
    expect(
      await value('affinity-scheduler', 'karmada_scheduler_e2e_scheduling_duration_seconds_count', {
        result: 'scheduled',
      }),
    ).toBeGreaterThan(0);
    expect(
      await value('affinity-scheduler', 'karmada_scheduler_scheduling_algorithm_duration_seconds_count'),
    ).toBeGreaterThan(0);
    expect(await value('affinity-scheduler', 'flotilla_objects', { kind: 'Deployment' })).toBe(1);
    await until('affinity-scheduler', 'flotilla_objects', { kind: 'ResourceBinding' }, (v) => v === 1);
    expect(await value('gateway', 'flotilla_api_requests_total', { operation: 'apply', reason: 'Success' })).toBe(
      applies + 5,
    );

    // a rule every two seconds: executions succeed, a little after their instant
    const cron = `apiVersion: autoscaling.karmada.io/v1alpha1
kind: CronFederatedHPA
metadata: { name: web-cron, namespace: default }
spec:
  scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: web }
  rules:
  - { name: flip, schedule: "*/2 * * * * *", targetReplicas: 4 }
`;
    expect((await cli(['apply', '-f', '-'], cron)).code).toBe(0);
    await until('cron-scheduler', 'flotilla_cron_executions_total', { result: 'succeeded' }, (v) => v >= 2);
    expect(await value('cron-scheduler', 'flotilla_cron_execution_lateness_seconds_count')).toBeGreaterThanOrEqual(2);
    expect(
      await value('cron-scheduler', 'flotilla_cron_execution_lateness_seconds_bucket', { le: '+Inf' }),
    ).toBeGreaterThanOrEqual(2);
    expect(await value('cron-scheduler', 'flotilla_objects', { kind: 'CronFederatedHPA' })).toBe(1);
    expect(await value('cron-scheduler', 'flotilla_reconcile_total', { controller: 'cron-scheduler' })).toBeGreaterThan(
      0,
    );

    // the status writer folds all of it and catches up
    await until('status-writer', 'flotilla_status_events_folded_total', {}, (v) => v > 10);
    await until('status-writer', 'flotilla_status_fold_lag_events', {}, (v) => v < 5);

    // an error answer is counted under its reason
    const notFound = await value('gateway', 'flotilla_api_requests_total', { operation: 'get', reason: 'NotFound' });
    const missing = await cli(['get', 'deploy', 'nope']);
    expect(missing.err).toMatch(/^Error from server \(NotFound\): /);
    expect(await value('gateway', 'flotilla_api_requests_total', { operation: 'get', reason: 'NotFound' })).toBe(
      notFound + 1,
    );
  }, 120_000);

  it('every metric deploy/monitoring reads is exported by some service', async () => {
    const exported = new Set<string>();
    for (const service of SERVICES) for (const name of (await scrape(service)).types.keys()) exported.add(name);
    const monitoring = ['prometheus-rules.yaml', 'grafana-dashboard.json']
      .map((f) => readFileSync(join(ROOT, 'deploy', 'monitoring', f), 'utf8'))
      .join('\n');
    const read = new Set(
      [...monitoring.matchAll(/\b(?:flotilla|karmada)_[a-z0-9_]+/g)].map(([n]) =>
        exported.has(n) ? n : n.replace(/_(bucket|sum|count)$/, ''),
      ),
    );
    expect([...read].filter((n) => !exported.has(n))).toEqual([]);
  });
});
