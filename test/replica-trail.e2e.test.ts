// End to end: "why this count?" (issue: a replica trail, owner conflicts, holidays for cron, cron landing on its
// count) on the built services as processes on a fresh prefix, driven by the real CLI. One suite for every test;
// 6-field schedules every few seconds keep it short.
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectBus, eventTypeOf, readEvents, type Bus } from '@flotilla/bus';
import { eventually } from '@flotilla/testkit';
import { flotilla } from './support/cli.js';
import { deployment } from './support/fhpa.js';
import { startSuite, type RunningSuite } from './support/suite.js';

let s: RunningSuite;
let bus: Bus;
let dir: string;
/** Why the set-up failed: every test then fails with it (a failing beforeAll would only mark them skipped). */
let setupError: unknown;

beforeAll(async () => {
  try {
    dir = await mkdtemp(join(tmpdir(), 'flotilla-trail-'));
    s = await startSuite(['gateway', 'status-writer', 'member-agent', 'affinity-scheduler', 'cron-scheduler'], {
      SIM_TICK_MS: '200',
      RESYNC_MS: '2000',
    });
    bus = await connectBus({ url: s.env.NATS_URL!, prefix: s.env.FLOTILLA_PREFIX! });
  } catch (err) {
    setupError = err;
  }
}, 60_000);

afterAll(async () => {
  await bus?.close();
  await s?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

function setUp(): void {
  if (setupError) throw setupError;
  onTestFailed(() => console.log(`the services' last output:\n${s?.logs.slice(-40).join('\n')}`));
}

async function apply(yaml: string): Promise<void> {
  const r = await flotilla(s.env, ['apply', '-f', '-'], yaml);
  expect(r.code, r.err).toBe(0);
}

async function getJson<T>(kind: string, name: string): Promise<T> {
  const r = await flotilla(s.env, ['get', kind, name, '-n', 'default', '-o', 'json']);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out) as T;
}

const utcDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

interface RuleHistory {
  ruleName: string;
  successfulExecutions?: Array<{ scheduleTime: string; appliedReplicas?: number }>;
  skippedExecutions?: Array<{ scheduleTime: string; reason: string; message: string }>;
}

describe('holidays: a CronFederatedHPA rule with excludeDates', () => {
  it('skips the excluded dates with a recorded reason, fires on the others, refuses a bad entry, and what-if lists the skips', async () => {
    setUp();
    const now = Date.now();
    // Today and tomorrow, so that the test may cross midnight UTC; yesterday for the rule that fires.
    const holiday = `${utcDate(now)}/${utcDate(now + 86_400_000)}`;
    const cron = `
apiVersion: autoscaling.karmada.io/v1alpha1
kind: CronFederatedHPA
metadata: { name: holiday-cron, namespace: default }
spec:
  scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: holiday-web }
  rules:
  - { name: peak, schedule: "*/2 * * * * *", targetReplicas: 4, timeZone: UTC, excludeDates: ["${holiday}"] }
  - { name: weekday, schedule: "1-59/2 * * * * *", targetReplicas: 3, excludeDates: ["${utcDate(now - 86_400_000)}"] }
`;
    await apply(deployment('holiday-web', 1));
    await apply(cron);

    const histories = await eventually(
      async () => {
        const o = await getJson<{ status?: { executionHistories?: RuleHistory[] } }>('cronfhpa', 'holiday-cron');
        const hs = o.status?.executionHistories ?? [];
        const peak = hs.find((h) => h.ruleName === 'peak');
        const weekday = hs.find((h) => h.ruleName === 'weekday');
        return (peak?.skippedExecutions?.length ?? 0) >= 2 && weekday?.successfulExecutions?.length ? hs : undefined;
      },
      20_000,
      'the peak rule skipped twice and the weekday rule ran',
    );
    const peak = histories.find((h) => h.ruleName === 'peak')!;
    expect(peak.successfulExecutions).toBeUndefined();
    expect(peak.skippedExecutions![0]).toEqual({
      scheduleTime: expect.any(String),
      executionTime: expect.any(String),
      reason: 'ExcludedDate',
      message: expect.stringMatching(
        new RegExp(`^skipped: \\d{4}-\\d{2}-\\d{2} \\(UTC\\) is excluded by excludeDates entry "${holiday}"$`),
      ),
    });
    // The skipped rule never scaled the workload: only the weekday rule's 3 reached it.
    const web = await getJson<{ spec: { replicas: number } }>('deployment', 'holiday-web');
    expect(web.spec.replicas).toBe(3);

    // The stream has the skip as its own event type, with a Kubernetes event for describe.
    const types = new Map<string, { reason?: string; kubeEvent?: { reason: string } }>();
    for await (const d of readEvents(bus, { filter: { kind: 'CronFederatedHPA', name: 'holiday-cron' } }))
      types.set(eventTypeOf(d.event), d.event.data as never);
    expect(types.get('CronRuleSkipped')).toMatchObject({
      reason: 'ExcludedDate',
      kubeEvent: { reason: 'ExcludedDate' },
    });

    // A bad entry is refused with its field path, and the stored object stays as it was.
    const bad = await flotilla(s.env, ['apply', '-f', '-'], cron.replace(`"${holiday}"`, `"${holiday}", "2026-02-30"`));
    expect(bad.code).not.toBe(0);
    expect(bad.err).toContain(
      'spec.rules[0].excludeDates[1]: invalid excludeDates entry "2026-02-30": 2026-02-30 is not a calendar date',
    );
    const stored = await getJson<{ spec: { rules: Array<{ excludeDates?: string[] }> } }>('cronfhpa', 'holiday-cron');
    expect(stored.spec.rules[0]?.excludeDates).toEqual([holiday]);

    // what-if cron lists the skipped times beside the executions.
    const file = join(dir, 'holiday-cron.yaml');
    await writeFile(file, cron);
    const at = new Date(now + 3_600_000);
    at.setUTCMinutes(0, 0, 0);
    const plan = await flotilla(s.env, [
      'what-if',
      'cron',
      '-f',
      file,
      '--now',
      at.toISOString(),
      '--until',
      new Date(at.getTime() + 4_000).toISOString(),
      '-o',
      'json',
    ]);
    expect(plan.code, plan.err).toBe(0);
    const result = JSON.parse(plan.out) as {
      executions: Array<{ ruleName: string }>;
      skipped: Array<{ ruleName: string; scheduleTime: string; excludeDate: string }>;
    };
    expect(result.skipped.map((x) => [x.ruleName, x.excludeDate])).toEqual([
      ['peak', holiday],
      ['peak', holiday],
    ]);
    expect(result.executions.map((x) => x.ruleName)).toEqual(['weekday', 'weekday']);
  }, 40_000);
});
