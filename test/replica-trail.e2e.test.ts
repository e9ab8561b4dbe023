// End to end: "why this count?" (issue: a replica trail, owner conflicts, holidays for cron, cron landing on its
// count) on the built services as processes on a fresh prefix, driven by the real CLI. One suite for every test;
// 6-field schedules every few seconds keep it short.
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Condition } from '@flotilla/api';
import { connectBus, eventTypeOf, readEvents, type Bus } from '@flotilla/bus';
import { eventually } from '@flotilla/testkit';
import { flotilla } from './support/cli.js';
import { deployment, fhpaCli, policy, simCluster, staticWeightedFhpa } from './support/fhpa.js';
import { describedWith, ownerCondition as ownerConditionOf } from './support/owner-conflict.js';
import { startSuite, type RunningSuite } from './support/suite.js';

let s: RunningSuite;
let bus: Bus;
let dir: string;
/** Why the set-up failed: every test then fails with it (a failing beforeAll would only mark them skipped). */
let setupError: unknown;
const FHPA_SYNC_PERIOD_MS = 60_000;
const fhpa = fhpaCli(
  () => s.env,
  () => dir,
);

beforeAll(async () => {
  try {
    dir = await mkdtemp(join(tmpdir(), 'flotilla-trail-'));
    s = await startSuite(
      ['gateway', 'status-writer', 'member-agent', 'affinity-scheduler', 'cron-scheduler', 'hpa-assigner'],
      {
        SIM_TICK_MS: '200',
        SIM_HPA_SYNC_MS: '1000',
        RESYNC_MS: '2000',
        // Every decision projected, so that an answer is seen to read the status writer's projection.
        TRAIL_PROJECT_AFTER_DECISIONS: '1',
        // Longer than any test: only a cron window's boundary timer can explain an EffectiveHPA change at its start.
        EHPA_SYNC_PERIOD_MS: '150000',
        // The FederatedHPA's sync period: a CronFederatedHPA's min must reach the member workloads well within it.
        FHPA_SYNC_PERIOD_MS: String(FHPA_SYNC_PERIOD_MS),
      },
    );
    await fhpa.apply(
      'clusters',
      ['member1', 'member2', 'member3'].map((c) => simCluster(c, 'weighted', '16')).join('---\n'),
    );
    for (const c of ['member1', 'member2', 'member3'])
      expect((await fhpa.cli('wait', '--for=condition=Ready', `cluster/${c}`, '--timeout', '20s')).code).toBe(0);
    bus = await connectBus({ url: s.env.NATS_URL!, prefix: s.env.FLOTILLA_PREFIX! });
  } catch (err) {
    setupError = err;
  }
}, 120_000);

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

/** Waits for `describe` of each object (`kind/name`) to show an event matching `event`. */
const warnedOn = (objects: string[], event: RegExp) => describedWith(s.env, objects, event);

/** Waits for the autoscaler's ReplicaOwnerConflict condition to have `status`, and returns it. */
const ownerCondition = (kind: string, name: string, status: 'True' | 'False') =>
  ownerConditionOf(s.env, kind, name, status);

interface AutoscalerStatus {
  status?: { conditions?: Condition[] };
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

/** A 6-field schedule firing once a day at the second of `ms` (UTC). */
const atSecond = (ms: number) => {
  const d = new Date(ms);
  return `${d.getUTCSeconds()} ${d.getUTCMinutes()} ${d.getUTCHours()} * * *`;
};

describe('cron lands on its count', () => {
  it("an EffectiveHPA cron window takes 22 replicas to exactly 24 at its start (Crane's tolerance would not)", async () => {
    setUp();
    await apply(deployment('land', 22));
    const startMs = Math.ceil((Date.now() + 6_000) / 1000) * 1000;
    await apply(`
apiVersion: autoscaling.crane.io/v1alpha1
kind: EffectiveHorizontalPodAutoscaler
metadata: { name: land, namespace: default }
spec:
  scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: land }
  minReplicas: 22
  maxReplicas: 40
  metrics: []
  crons:
    - { name: promo, timezone: UTC, start: "${atSecond(startMs)}", end: "${atSecond(startMs + 120_000)}", targetReplicas: 24 }
`);
    const scaled = await eventually(
      async () => {
        for await (const d of readEvents(bus, { filter: { kind: 'EffectiveHorizontalPodAutoscaler', name: 'land' } }))
          if (eventTypeOf(d.event) === 'EffectiveHPAScaled')
            return {
              time: Date.parse(d.event.time),
              ...(d.event.data as { source: string; fromReplicas: number; toReplicas: number }),
            };
        return undefined;
      },
      20_000,
      'the EffectiveHPA scaling at the window start',
    );
    expect(scaled).toMatchObject({ source: 'cron', fromReplicas: 22, toReplicas: 24 });
    expect(scaled.time).toBeGreaterThanOrEqual(startMs);
    const land = await getJson<{ spec: { replicas: number } }>('deployment', 'land');
    expect(land.spec.replicas).toBe(24);
  }, 40_000);
});

describe('a CronFederatedHPA min where member HPAs run', () => {
  it('reaches the member workloads within one FederatedHPA sync period of the execution', async () => {
    setUp();
    await fhpa.apply(
      'floor',
      [deployment('floor', 3), policy('floor', 'weighted'), staticWeightedFhpa('floor', 3, 12)].join('---\n'),
    );
    await eventually(
      async () => {
        const l = await fhpa.limitsOf('floor');
        return l && Object.keys(l).length === 3 ? l : undefined;
      },
      20_000,
      'member limits',
    );
    await apply(`
apiVersion: autoscaling.karmada.io/v1alpha1
kind: CronFederatedHPA
metadata: { name: floor-cron, namespace: default }
spec:
  scaleTargetRef: { apiVersion: autoscaling.karmada.io/v1alpha1, kind: FederatedHPA, name: floor }
  rules:
  - { name: floor, schedule: "${atSecond(Math.ceil((Date.now() + 3_000) / 1000) * 1000)}", targetMinReplicas: 9 }
`);
    const executedAt = await eventually(
      async () => {
        for await (const d of readEvents(bus, { filter: { kind: 'CronFederatedHPA', name: 'floor-cron' } }))
          if (eventTypeOf(d.event) === 'CronRuleExecuted') return Date.parse(d.event.time);
        return undefined;
      },
      20_000,
      'the cron rule executed',
    );
    // 1:2:3 of the new min 9, each member workload running at least its share
    const reached = await eventually(
      async () => {
        const r = await fhpa.replicasOf('floor');
        return (r.member1?.readyReplicas ?? 0) >= 1 &&
          (r.member2?.readyReplicas ?? 0) >= 3 &&
          (r.member3?.readyReplicas ?? 0) >= 4
          ? r
          : undefined;
      },
      30_000,
      'the member workloads at the new min',
    );
    expect(Object.values(reached).reduce((n, x) => n + (x?.readyReplicas ?? 0), 0)).toBeGreaterThanOrEqual(9);
    const l = (await fhpa.limitsOf('floor'))!;
    expect(Object.values(l).reduce((n, x) => n + x.minReplicas, 0)).toBe(9);
    // Measured on the bus's own clock: the status that shows the min came well inside one sync period.
    let reportedAt = 0;
    for await (const d of readEvents(bus, { filter: { kind: 'ResourceBinding', name: 'floor-deployment' } }))
      if (eventTypeOf(d.event) === 'WorkloadStatusReported') reportedAt = Date.parse(d.event.time);
    expect(reportedAt - executedAt).toBeLessThan(FHPA_SYNC_PERIOD_MS);
  }, 60_000);
});

interface Trail {
  entries: Array<{
    field: { kind: string; cluster?: string; autoscaler?: string };
    from: unknown;
    to: unknown;
    by: string;
    why: string;
  }>;
}

describe('explain replicas: why this count?', () => {
  it('names every decider of the replicas from the event stream, and describe ends with the latest', async () => {
    setUp();
    // the EffectiveHPA's workload of the test above: the user's 22, then the cron window's 24
    const land = await flotilla(s.env, ['explain', 'replicas', 'deploy/land', '-n', 'default', '-o', 'json']);
    expect(land.code, land.err).toBe(0);
    const replicas = (JSON.parse(land.out) as Trail).entries.filter((e) => e.field.kind === 'replicas');
    expect(replicas.map((e) => [e.from, e.to, e.by])).toEqual([
      [null, 22, 'user cli through the gateway (nats)'],
      [22, 24, 'EffectiveHorizontalPodAutoscaler default/land (winning source: cron)'],
    ]);
    const table = await flotilla(s.env, ['explain', 'replicas', 'deploy/land', '--since', '24h']);
    expect(table.out).toMatch(/TIME\s+FIELD\s+FROM\s+TO\s+BY\s+WHY/);
    expect(table.out).toMatch(
      /spec\.replicas\s+22\s+24\s+EffectiveHorizontalPodAutoscaler default\/land \(winning source: cron\)/,
    );

    // the FederatedHPA's workload: its member HPAs' min/max, each cluster's share, and the cron rule that raised the min
    const floor = (
      JSON.parse((await flotilla(s.env, ['explain', 'replicas', 'deploy/floor', '-o', 'json'])).out) as Trail
    ).entries;
    const raised = floor.findIndex((e) => e.field.kind === 'autoscalerLimits');
    expect(floor[raised], JSON.stringify(floor, null, 1)).toMatchObject({
      field: { kind: 'autoscalerLimits', autoscaler: 'FederatedHPA floor' },
      to: { minReplicas: 9 },
      by: 'CronFederatedHPA default/floor-cron rule floor',
    });
    // after it, the FederatedHPA re-split the min over the member HPAs (1:2:3 of 9; the trail's latest limits add
    // up to it) and the member workloads followed
    const after = floor.slice(raised + 1);
    const mins = new Map<string, number>();
    for (const e of floor)
      if (e.field.kind === 'memberHpa') mins.set(e.field.cluster!, (e.to as { minReplicas: number }).minReplicas);
    expect(
      [...mins.values()].reduce((n, x) => n + x, 0),
      JSON.stringify(after, null, 1),
    ).toBe(9);
    expect(
      after
        .filter((e) => e.field.kind === 'memberHpa')
        .every((e) => e.by === 'FederatedHPA default/floor (Reassigned)'),
    ).toBe(true);
    expect(after.some((e) => e.field.kind === 'cluster' && e.by === 'FederatedHPA default/floor (Reassigned)')).toBe(
      true,
    );

    // The status writer keeps land's trail projected, so an answer reads the stored entries (and what is newer).
    await eventually(
      async () => {
        const head = await bus.trails.get('Deployment.default.land');
        return head?.operation === 'PUT' && (head.json<{ entries: number }>().entries ?? 0) >= 2 ? true : undefined;
      },
      10_000,
      "the status writer's projection of deploy/land's trail",
    );
    const projected = await flotilla(s.env, ['explain', 'replicas', 'deploy/land', '-o', 'json']);
    expect(JSON.parse(projected.out)).toEqual(JSON.parse(land.out));

    const described = await flotilla(s.env, ['describe', 'deploy', 'land']);
    expect(described.out).toMatch(
      /Replica trail \(latest 2 of 2; all: flotilla explain replicas deployment\/land -n default\):/,
    );
  }, 30_000);
});

describe('owner conflicts: two writers of one replica field', () => {
  it("refuses a CronFederatedHPA aimed at an autoscaled workload, and keeps the autoscaler's count against an apply", async () => {
    setUp();
    const cron = await flotilla(
      s.env,
      ['apply', '-f', '-'],
      `
apiVersion: autoscaling.karmada.io/v1alpha1
kind: CronFederatedHPA
metadata: { name: land-cron, namespace: default }
spec:
  scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: floor }
  rules:
  - { name: up, schedule: "0 8 * * *", targetReplicas: 5 }
`,
    );
    expect(cron.code).not.toBe(0);
    expect(cron.err).toContain(
      'spec.scaleTargetRef: Invalid value: "Deployment/floor": its spec.replicas is written by FederatedHPA default/floor',
    );
    expect(cron.err).toContain('aim it at the FederatedHPA instead');
    expect((await flotilla(s.env, ['get', 'cronfhpa', 'land-cron', '-n', 'default'])).code).not.toBe(0);

    // The user applies the workload again with 5 replicas: the EffectiveHPA's 24 stays, and the reply says so.
    const again = await flotilla(s.env, ['apply', '-f', '-'], deployment('land', 5));
    expect(again.code, again.err).toBe(0);
    expect(again.err).toContain(
      'warning: deployment/land: spec.replicas: kept at 24 (asked for 5): EffectiveHorizontalPodAutoscaler default/land scales this workload',
    );
    expect((await getJson<{ spec: { replicas: number } }>('deployment', 'land')).spec.replicas).toBe(24);
    // A Warning on both objects, naming both.
    await warnedOn(
      ['deploy/land', 'ehpa/land'],
      /Warning\s+ReplicaOwnerConflict.*Deployment\/land spec\.replicas.*EffectiveHorizontalPodAutoscaler default\/land scales it/,
    );
    // ... and a condition on the autoscaler, which stays for a while (the apply was a moment, not a state).
    const held = await ownerCondition('ehpa', 'land', 'True');
    expect(held).toMatchObject({ reason: 'AppliedReplicasRetained' });

    // The same apply again: not dropped as a repeat; it restarts the hold (lastUpdateTime), the transition stays.
    const twice = await flotilla(s.env, ['apply', '-f', '-'], deployment('land', 5));
    expect(twice.err).toContain('kept at 24 (asked for 5)');
    const restarted = await eventually(
      async () => {
        const c = (await getJson<AutoscalerStatus>('ehpa', 'land')).status?.conditions?.find(
          (x) => x.type === 'ReplicaOwnerConflict',
        );
        return c?.lastUpdateTime !== held.lastUpdateTime ? c : undefined;
      },
      15_000,
      "the second apply's hold on ehpa/land",
    );
    expect(restarted).toMatchObject({ status: 'True', lastTransitionTime: held.lastTransitionTime });
    expect(Date.parse(restarted.lastUpdateTime!)).toBeGreaterThan(Date.parse(held.lastUpdateTime!));

    // Both applies are in the trail, as the EffectiveHPA's condition set, naming the user.
    const trail = JSON.parse(
      (await flotilla(s.env, ['explain', 'replicas', 'deploy/land', '-o', 'json'])).out,
    ) as Trail;
    const conflicts = trail.entries.filter((e) => e.field.kind === 'ownerConflict');
    const retained = { status: 'True', reason: 'AppliedReplicasRetained' };
    expect(conflicts.map((e) => [e.field.autoscaler, e.from, e.to, e.by])).toEqual([
      ['EffectiveHorizontalPodAutoscaler land', null, retained, 'user cli through the gateway (nats)'],
      ['EffectiveHorizontalPodAutoscaler land', retained, retained, 'user cli through the gateway (nats)'],
    ]);
    expect(conflicts[1]!.why).toContain('asked for 5');
    const table = await flotilla(s.env, ['explain', 'replicas', 'deploy/land']);
    expect(table.out).toMatch(
      /EffectiveHorizontalPodAutoscaler land ReplicaOwnerConflict\s+True \(AppliedReplicasRetained\)\s+True \(AppliedReplicasRetained\)\s+user cli through the gateway \(nats\)/,
    );
  }, 45_000);

  it('a member HPA Flotilla did not create, on a workload a FederatedHPA scales: a Warning on both and a condition, until it goes', async () => {
    setUp();
    const withForeignHpa = `${simCluster('member2', 'weighted', '16')}    foreignHorizontalPodAutoscalers:
    - name: floor-local
      namespace: default
      scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: floor }
      minReplicas: 1
      maxReplicas: 5
`;
    await apply(withForeignHpa);
    // The sim reports it in the Cluster's status ...
    await eventually(
      async () => {
        const c = await getJson<{ status?: { foreignHorizontalPodAutoscalers?: unknown[] } }>('cluster', 'member2');
        return c.status?.foreignHorizontalPodAutoscalers?.length === 1 ? true : undefined;
      },
      10_000,
      "member2's foreign HPA in its status",
    );
    // ... the hpa-assigner finds the conflict: the condition on the FederatedHPA, naming the member HPA ...
    const condition = await ownerCondition('fhpa', 'floor', 'True');
    expect(condition).toMatchObject({ reason: 'ForeignMemberHPA' });
    expect(condition.message).toContain(
      'HorizontalPodAutoscaler member2/default/floor-local (not created by Flotilla)',
    );
    // ... and a Warning on both objects, naming both.
    await warnedOn(
      ['fhpa/floor', 'deploy/floor'],
      /Warning\s+ReplicaOwnerConflict.*HorizontalPodAutoscaler member2\/default\/floor-local.*FederatedHPA default\/floor scales/,
    );

    // The member HPA goes: the condition clears.
    await apply(simCluster('member2', 'weighted', '16'));
    const cleared = await ownerCondition('fhpa', 'floor', 'False');
    expect(cleared).toMatchObject({ reason: 'NoConflict' });
    // The trail of the workload tells both: the member HPA's conflict, and who saw it go.
    const trail = JSON.parse(
      (await flotilla(s.env, ['explain', 'replicas', 'deploy/floor', '-o', 'json'])).out,
    ) as Trail;
    expect(
      trail.entries
        .filter((e) => e.field.kind === 'ownerConflict' && e.field.autoscaler === 'FederatedHPA floor')
        .map((e) => [e.from, e.to, e.by]),
    ).toEqual([
      [
        null,
        { status: 'True', reason: 'ForeignMemberHPA' },
        'member HPA member2/default/floor-local (not created by Flotilla)',
      ],
      [
        { status: 'True', reason: 'ForeignMemberHPA' },
        { status: 'False', reason: 'NoConflict' },
        'hpa-assigner (replica-owners)',
      ],
    ]);
    expect((await getJson<{ status?: Record<string, unknown> }>('cluster', 'member2')).status).not.toHaveProperty(
      'foreignHorizontalPodAutoscalers',
    );
  }, 60_000);
});
