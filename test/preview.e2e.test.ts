// End to end: the live preview (`flotilla what-if ... --live`, through the real CLI and gateway) of a policy change
// and of a cluster failure, each held against what the controllers then really do once the change is applied or the
// cluster has failed: the same bindings move to the same clusters and groups.
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { eventually, freeTcpPort } from '@flotilla/testkit';
import { flotilla } from './support/cli.js';
import { deployment } from './support/fhpa.js';
import { startSuite, type RunningSuite } from './support/suite.js';
import { webPolicy } from './support/weighted-policy.js';

let s: RunningSuite;
let api: string;
type Targets = Array<{ name: string; replicas?: number }>;
type Binding = {
  spec: { clusters?: Targets };
  status?: { schedulerObservingAffinityName?: string; lastScheduledTime?: string };
};
type Moved = {
  name: string;
  outcome: string;
  at: string;
  before: Targets;
  after: Targets;
  groupBefore?: string;
  groupAfter?: string;
};
type Preview = {
  kind: string;
  now: string;
  bindings: Moved[];
  autoscalers: Array<{
    kind: string;
    name: string;
    replicasBefore?: number;
    replicasAfter?: number;
    notKnown?: string;
  }>;
  unknowns: string[];
};

/** The gateway's, given to every service: the preview of a failure must wait what the scheduler waits. */
const GRACE_MS = 4000;

const cli = (...args: string[]) => flotilla(s.env, args);
const cliIn = (stdin: string, ...args: string[]) => flotilla(s.env, args, stdin);
const binding = async (name: string) => JSON.parse((await cli('get', 'rb', name, '-o', 'json')).out) as Binding;
const sorted = (t: Targets) =>
  t.map((c) => ({ name: c.name, replicas: c.replicas ?? 0 })).sort((a, b) => (a.name < b.name ? -1 : 1));
const text = (t: Targets) =>
  sorted(t)
    .map((c) => `${c.name}:${c.replicas}`)
    .join(',') || '<none>';
/** Its status says it was scheduled at or after `since` (Karmada's times are whole seconds). */
const scheduledSince = (b: Binding, since: number) =>
  Date.parse(b.status?.lastScheduledTime ?? '') >= Math.floor(since / 1000) * 1000;
const settled = (name: string, test: (b: Binding) => boolean, what: string) =>
  eventually(
    async () => {
      const b = await binding(name).catch(() => undefined);
      return b && test(b) ? b : undefined;
    },
    30_000,
    what,
  );

/** `what-if ... --live -o json` through the CLI. */
async function preview(stdin: string, ...args: string[]): Promise<Preview> {
  const r = await cliIn(stdin, 'what-if', ...args, '--live', '-o', 'json');
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.out) as Preview;
}

/** The preview's word on one binding held against the binding as the controllers left it, the difference named. */
function sameAsPreview(p: Preview, name: string, real: Binding): void {
  const b = p.bindings.find((x) => x.name === name);
  expect(b, `the preview names ${name} among the bindings it moves`).toBeDefined();
  expect(
    text(real.spec.clusters ?? []),
    `${name}: the preview said ${text(b!.before)} → ${text(b!.after)}, the scheduler placed ${text(real.spec.clusters ?? [])}`,
  ).toBe(text(b!.after));
  expect(
    real.status?.schedulerObservingAffinityName,
    `${name}: the preview said group ${b!.groupBefore} → ${b!.groupAfter}, the scheduler observes ${real.status?.schedulerObservingAffinityName}`,
  ).toBe(b!.groupAfter ?? b!.groupBefore);
}

const nginx = `${deployment('nginx', 2)}---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: { name: nginx, namespace: default }
spec:
  resourceSelectors: [{ apiVersion: apps/v1, kind: Deployment, name: nginx }]
  placement:
    clusterAffinities:
      - { affinityName: primary, clusterNames: [member1] }
      - { affinityName: backup, clusterNames: [member3] }
    replicaScheduling: { replicaSchedulingType: Duplicated }
`;

beforeAll(async () => {
  const port = await freeTcpPort();
  api = `http://127.0.0.1:${port}/api/preview`;
  s = await startSuite(
    ['gateway', 'status-writer', 'member-agent', 'affinity-scheduler'],
    { FAILOVER_GRACE_MS: String(GRACE_MS), SIM_TICK_MS: '200', RESYNC_MS: '2000' },
    { gateway: { GATEWAY_API_PORT: String(port) } },
  );
  for (const n of ['member1', 'member2', 'member3'])
    expect((await cli('cluster', 'add', n, '--sim', '--cpu', '8')).code).toBe(0);
  for (const n of ['member1', 'member2', 'member3'])
    expect((await cli('wait', '--for=condition=Ready', `cluster/${n}`, '--timeout', '20s')).code).toBe(0);
  const r = await cliIn(`${deployment('web', 6)}---\n${webPolicy(2, 1)}---\n${nginx}`, 'apply', '-f', '-');
  expect(r.err).toBe('');
  await settled('web-deployment', (b) => text(b.spec.clusters ?? []) === 'member1:4,member2:2', 'web 4:2');
  await settled('nginx-deployment', (b) => text(b.spec.clusters ?? []) === 'member1:2', 'nginx in primary');
}, 90_000);

afterAll(async () => {
  if (!s) return;
  const codes = await s.suite.stop();
  expect(Object.values(codes).every((c) => c === 0)).toBe(true);
  await s.stop();
});

function showLogs(): void {
  onTestFailed(() => console.log(`the services' last output:\n${s.logs.slice(-40).join('\n')}`));
}

describe('live what-if, held against what the controllers then do', () => {
  it('a policy change: the preview moves web as the scheduler does once it is applied; the table says the same', async () => {
    showLogs();
    const change = webPolicy(1, 2);
    const p = await preview(change, 'apply', '-f', '-');
    expect(p.bindings.map((b) => [b.name, b.outcome])).toEqual([['web-deployment', 'Moved']]);
    expect(text(p.bindings[0]!.before)).toBe('member1:4,member2:2');

    const table = await cliIn(change, 'what-if', 'apply', '-f', '-', '--live');
    expect(table.code, table.err).toBe(0);
    const lines = table.out.split('\n');
    expect(lines[0]!.split(/\s+/)).toEqual(['BINDING', 'OUTCOME', 'AT', 'BEFORE', 'AFTER', 'GROUP', 'REJECTED']);
    expect(lines[1]).toMatch(
      new RegExp(
        `^default/web-deployment\\s+Moved\\s+\\S+\\s+member1:4,member2:2\\s+${text(p.bindings[0]!.after)}\\s+member3: cluster\\(s\\) did not match the placement cluster affinity constraint$`,
      ),
    );
    expect(table.out).toContain('What the preview cannot know:');
    // Nothing was written.
    expect(text((await binding('web-deployment')).spec.clusters ?? [])).toBe('member1:4,member2:2');

    const appliedAt = Date.now();
    expect((await cliIn(change, 'apply', '-f', '-')).err).toBe('');
    const real = await settled(
      'web-deployment',
      (b) => text(b.spec.clusters ?? []) !== 'member1:4,member2:2' && scheduledSince(b, appliedAt),
      'web rescheduled after the policy change',
    );
    sameAsPreview(p, 'web-deployment', real);
  }, 60_000);

  it('a cluster failure: after the grace, web and nginx move where the preview said, nginx to its next group', async () => {
    showLogs();
    const webBefore = text((await binding('web-deployment')).spec.clusters ?? []);
    const p = await preview('', 'cluster', 'fail', 'member1');
    expect(p.bindings.map((b) => b.name).sort()).toEqual(['nginx-deployment', 'web-deployment']);
    // The gateway's FAILOVER_GRACE_MS: the preview moves them when the scheduler's taint manager would.
    for (const b of p.bindings) expect(Date.parse(b.at) - Date.parse(p.now), b.name).toBe(GRACE_MS);
    expect(p.bindings.find((b) => b.name === 'nginx-deployment')).toMatchObject({
      groupBefore: 'primary',
      groupAfter: 'backup',
    });
    expect(text((await binding('web-deployment')).spec.clusters ?? [])).toBe(webBefore);

    const failedAt = Date.now();
    expect((await cli('cluster', 'fail', 'member1')).code).toBe(0);
    // Moved off member1 and the decision folded into status (the group it observes now).
    const offMember1 = (b: Binding) =>
      (b.spec.clusters ?? []).length > 0 &&
      !(b.spec.clusters ?? []).some((c) => c.name === 'member1') &&
      scheduledSince(b, failedAt);
    sameAsPreview(p, 'web-deployment', await settled('web-deployment', offMember1, 'web off member1'));
    sameAsPreview(p, 'nginx-deployment', await settled('nginx-deployment', offMember1, 'nginx off member1'));
  }, 60_000);

  it("a FederatedHPA's max under web's replicas: the preview scales web 6→4 now and shows its binding's move, metrics named as not read", async () => {
    showLogs();
    const p = await preview(
      `apiVersion: autoscaling.karmada.io/v1alpha1
kind: FederatedHPA
metadata: { name: web, namespace: default }
spec:
  scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: web }
  minReplicas: 1
  maxReplicas: 4
`,
      'apply',
      '-f',
      '-',
    );
    expect(p.autoscalers).toMatchObject([
      { kind: 'FederatedHPA', name: 'web', replicasBefore: 6, replicasAfter: 4, reason: 'TooManyReplicas' },
    ]);
    expect(p.autoscalers[0]!.notKnown).toMatch(/^metrics not read/);
    const web = p.bindings.find((b) => b.name === 'web-deployment');
    expect(web?.after.reduce((n, c) => n + (c.replicas ?? 0), 0)).toBe(4);
  }, 30_000);

  it('the API: POST /api/preview answers as the CLI does (web, its only other cluster failing, stays unschedulable); a bad action is 400 naming cluster.action', async () => {
    showLogs();
    const post = (body: object) =>
      fetch(api, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const res = await post({ cluster: { action: 'fail', name: 'member2' } });
    expect(res.status).toBe(200);
    const overHttp = ((await res.json()) as { result: Preview }).result;
    const overCli = await preview('', 'cluster', 'fail', 'member2');
    const timeless = (p: Preview) => p.bindings.map(({ at: _at, ...b }) => b);
    expect(timeless(overHttp)).toEqual(timeless(overCli));
    expect(overHttp.bindings.find((b) => b.name === 'web-deployment')?.outcome).toBe('Unschedulable');
    // A file of objects is as large as an apply's, past the 16 KiB a read's body may have.
    const big = await post({
      objects: [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'web', namespace: 'default', annotations: { note: 'x'.repeat(32 * 1024) } },
          spec: {
            replicas: 6,
            selector: { matchLabels: { app: 'web' } },
            template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
          },
        },
      ],
    });
    expect(big.status, await big.clone().text()).toBe(200);
    const bad = await post({ cluster: { action: 'drain', name: 'member2' } });
    expect(await bad.json()).toMatchObject({
      ok: false,
      error: {
        reason: 'BadRequest',
        causes: [{ field: 'cluster.action', message: 'Unsupported value: "drain": one of fail, cordon, taint' }],
      },
    });
    expect(bad.status).toBe(400);
    // A bad object is refused as an apply refuses it, its field path named.
    const badObject = await post({
      objects: [
        {
          apiVersion: 'autoscaling.karmada.io/v1alpha1',
          kind: 'CronFederatedHPA',
          metadata: { name: 'web-cron', namespace: 'default' },
          spec: {
            scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
            rules: [{ name: 'up', schedule: '61 * * * *', targetReplicas: 10 }],
          },
        },
      ],
    });
    expect(badObject.status).toBe(422);
    expect(JSON.stringify(await badObject.json())).toContain('spec.rules[0].schedule');
  }, 30_000);
});
