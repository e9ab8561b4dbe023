// kubectl as the front door, on a real kube-apiserver (scripts/kube-env build; without it this fails, never skips):
// the CRDs of deploy/crds load and serve Karmada's and Crane's sample YAML unchanged, with their printer columns and
// `kubectl explain`; the API server calls the real gateway's /validate over mutual TLS, so `kubectl apply` of a bad
// object gets the field-path message `flotilla apply` gets, and a Deployment in kube-system that a policy selects is
// refused while the cluster's own pass; and deploy/ (kustomize, every overlay, the Helm chart) passes
// `kubectl apply --dry-run=server`.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { eventually, freeTcpPort } from '@flotilla/testkit';
import { type KubeCluster, kubeBinDir, kubeCrdFile, startKubeCluster } from '@flotilla/testkit/kube';
import { flotilla } from './support/cli.js';
import { webhookPki } from '@flotilla/launcher';
import { ROOT, startSuite, type RunningSuite } from './support/suite.js';

const run = promisify(execFile);
const DEPLOY = join(ROOT, 'deploy');
const SAMPLES = join(ROOT, 'packages', 'api', 'src', 'testdata');

let dir: string;
let cluster: KubeCluster;
let gateway: RunningSuite;

async function kubectl(args: string[], input?: string) {
  return cluster.kubectl(args, input === undefined ? undefined : { input });
}
async function kubectlOk(args: string[], input?: string): Promise<string> {
  const r = await kubectl(args, input);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

const badCron = `apiVersion: autoscaling.karmada.io/v1alpha1
kind: CronFederatedHPA
metadata: { name: bad-cron, namespace: default }
spec:
  scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: web }
  rules:
    - { name: up, schedule: "61 * * * *", targetReplicas: 10, timeZone: Mars/Olympus }
    - { name: up, schedule: "0 20 * * *" }
`;
const badPolicy = `apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: { name: bad-policy, namespace: default }
spec:
  resourceSelectors: [{ apiVersion: apps/v1, kind: Deployment, name: web }]
  placement:
    clusterAffinity: { clusterNames: [member1] }
    clusterAffinities:
      - { affinityName: primary, clusterNames: [member1] }
      - { affinityName: primary, clusterNames: [member2] }
`;
const badEhpa = `apiVersion: autoscaling.crane.io/v1alpha1
kind: EffectiveHorizontalPodAutoscaler
metadata: { name: bad-ehpa, namespace: default }
spec:
  scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: web }
  minReplicas: 5
  maxReplicas: 2
  crons:
    - { name: nightly, start: "0 25 * * *", end: "0 6 * * *", targetReplicas: 1 }
`;
const goodCron = `apiVersion: autoscaling.karmada.io/v1alpha1
kind: CronFederatedHPA
metadata: { name: good-cron, namespace: default }
spec:
  scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: web }
  rules:
    - { name: up, schedule: "0 8 * * 1-5", targetReplicas: 10, timeZone: Asia/Shanghai }
`;

/** A Deployment in kube-system labelled app=`app`. */
const systemDeployment = (name: string, app: string) => `apiVersion: apps/v1
kind: Deployment
metadata: { name: ${name}, namespace: kube-system, labels: { app: ${app} } }
spec:
  replicas: 1
  selector: { matchLabels: { app: ${name} } }
  template:
    metadata: { labels: { app: ${name} } }
    spec: { containers: [{ name: c, image: nginx }] }
`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flotilla-front-door-'));
  const pki = await webhookPki(dir, DEPLOY);
  const gatewayPort = await freeTcpPort();
  // The real gateway, HTTPS with the serving certificate; /validate answers only the holder of a client-CA cert.
  gateway = await startSuite(['gateway'], {}, { gateway: pki.gatewayEnv(gatewayPort) });
  cluster = await startKubeCluster({
    name: 'front-door',
    controlPlaneOnly: true,
    extraApiServerArgs: [`--admission-control-config-file=${pki.admissionConfigPath}`],
  });
  await kubectlOk(['apply', '-f', join(DEPLOY, 'crds')]);
  await cluster.waitCrdsEstablished();
  await kubectlOk(['apply', '-f', '-'], pki.webhookOnLoopback(gatewayPort));
  // The API server picks the webhook configuration up from its informer: until then a bad object would be stored,
  // so probe with a dry run (the webhook has no side effects) until it is refused.
  await eventually(
    async () => {
      const r = await kubectl(['apply', '--dry-run=server', '-f', '-'], badCron);
      return r.code !== 0 ? true : undefined;
    },
    30_000,
    'the API server to call the webhook',
  );
}, 180_000);

afterAll(async () => {
  await cluster?.stop();
  await gateway?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('deploy/crds on a real API server', () => {
  it("accepts Karmada's and Crane's sample YAML unchanged, unknown fields refused (--validate=strict)", async () => {
    // templates.yaml puts one template in the namespace "data".
    await kubectlOk(['create', 'namespace', 'data']);
    const files = readdirSync(SAMPLES).filter((f) => f.endsWith('.yaml'));
    expect(files.length).toBeGreaterThanOrEqual(7);
    for (const f of files) {
      const r = await kubectl(['apply', '--validate=strict', '-f', join(SAMPLES, f)]);
      expect(r.code, `${f}: ${r.stderr}`).toBe(0);
    }
    // The CronFederatedHPA proposal names its rules `ruleName`: stored as written, renamed by Flotilla's defaulting.
    // (Its three stories share one name; the last, with a time zone per rule, is the one left.)
    const cron = JSON.parse(await kubectlOk(['get', 'cronfhpa', 'cron-federated-hpa', '-o', 'json']));
    expect(cron.spec.rules[1]).toEqual({
      ruleName: 'scale-up-america-los-angeles',
      schedule: '30 07 * * *',
      targetMinReplicas: 1000,
      timeZone: 'America/Los_Angeles',
    });
    const unknown = await kubectl(
      ['apply', '--validate=strict', '-f', '-'],
      goodCron.replace('name: good-cron', 'name: typo').replace('timeZone:', 'timezone:'),
    );
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/unknown field "spec\.rules\[0\]\.timezone"/);
  });

  it("prints Karmada's columns: kubectl get fhpa, rb, cronfhpa and Crane's ehpa", async () => {
    const header = async (resource: string) => (await kubectlOk(['get', resource, '-A'])).split('\n')[0]!.split(/\s+/);
    expect(await header('fhpa')).toEqual([
      'NAMESPACE',
      'NAME',
      'REFERENCE-KIND',
      'REFERENCE-NAME',
      'MINPODS',
      'MAXPODS',
      'REPLICAS',
      'AGE',
    ]);
    expect(await header('rb')).toEqual(['NAMESPACE', 'NAME', 'SCHEDULED', 'FULLYAPPLIED', 'PODSSCHEDULED', 'AGE']);
    expect(await header('cronfhpa')).toEqual(['NAMESPACE', 'NAME', 'REFERENCE-KIND', 'REFERENCE-NAME', 'AGE']);
    expect(await header('ehpa')).toEqual([
      'NAMESPACE',
      'NAME',
      'STRATEGY',
      'MINPODS',
      'MAXPODS',
      'SPECIFICPODS',
      'REPLICAS',
      'AGE',
    ]);
    expect(await header('pp')).toEqual(['NAMESPACE', 'NAME', 'CONFLICT-RESOLUTION', 'PRIORITY', 'AGE']);
    const fhpa = await kubectlOk(['get', 'fhpa', 'nginx', '-n', 'default']);
    // No status yet: REPLICAS is empty, as with Karmada.
    expect(fhpa.split('\n')[1]).toMatch(/^nginx\s+Deployment\s+nginx\s+1\s+10\s+\d+s$/);
  });

  it('kubectl explain lists the fields and their types', async () => {
    const rules = await kubectlOk(['explain', 'cronfhpa.spec.rules']);
    expect(rules).toMatch(/GROUP:\s+autoscaling\.karmada\.io/);
    // The descriptions come from the schemas' .describe(): the field's own, and each of its fields'.
    expect(rules).toMatch(/DESCRIPTION:\s+The cron rules; each fires on its own schedule\./);
    expect(rules).toMatch(/^\s+schedule\s+<string> -required-\n\s+When the rule fires: a cron expression/m);
    expect(await kubectlOk(['explain', 'fhpa.spec.federatedHPAAssignment'])).toMatch(/DynamicWeighted \(by available/);
    for (const field of ['name', 'schedule', 'targetReplicas', 'targetMinReplicas', 'timeZone', 'suspend'])
      expect(rules).toMatch(new RegExp(`^\\s+${field}\\s+<`, 'm'));
    const assignment = await kubectlOk(['explain', 'fhpa.spec.federatedHPAAssignment.federatedHPAAssignmentType']);
    expect(assignment).toMatch(/Duplicated/);
    expect(await kubectlOk(['explain', 'ehpa'])).toMatch(/predicted load/);
    // WorkloadRebalancer's, in Karmada's words (kubectl wraps them: compared with the whitespace folded).
    const folded = async (field: string) => (await kubectlOk(['explain', field])).replace(/\s+/g, ' ');
    const rebalancer = await folded('workloadrebalancer.spec');
    expect(rebalancer).toContain(
      'DESCRIPTION: Spec represents the specification of the desired behavior of WorkloadRebalancer.',
    );
    expect(rebalancer).toContain('workloads <[]Object> Workloads used to specify the list of expected resource.');
    expect(rebalancer).toContain('ttlSecondsAfterFinished <integer> TTLSecondsAfterFinished limits the lifetime');
    expect(await folded('workloadrebalancer.spec.workloads.namespace')).toContain(
      'Namespace of the target resource. Default is empty',
    );
  });

  it('keeps status a subresource: a write to the object leaves status alone', async () => {
    await kubectlOk([
      'patch',
      'fhpa',
      'nginx',
      '-n',
      'default',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"currentReplicas":4}}',
    ]);
    await kubectlOk([
      'patch',
      'fhpa',
      'nginx',
      '-n',
      'default',
      '--type=merge',
      '-p',
      '{"status":{"currentReplicas":9}}',
    ]);
    const fhpa = await kubectlOk(['get', 'fhpa', 'nginx', '-n', 'default']);
    expect(fhpa.split('\n')[1]).toMatch(/^nginx\s+Deployment\s+nginx\s+1\s+10\s+4\s+/);
  });
});

describe("the gateway's admission webhook, called by the API server over mutual TLS", () => {
  /** Each cause `flotilla apply` prints for a bad object, through the gateway's NATS API. */
  async function cliMessage(yaml: string): Promise<string> {
    const r = await flotilla(gateway.env, ['apply', '-f', '-'], yaml);
    expect(r.code).not.toBe(0);
    const m = /(\S+ "[^"]+" is invalid: .*)$/m.exec(r.err);
    if (!m) throw new Error(`flotilla apply printed no admission error:\n${r.err}`);
    return m[1]!;
  }

  it.each([
    ['CronFederatedHPA', 'cronfhpa/bad-cron', badCron, /spec\.rules\[0\]\.schedule: .*61 \* \* \* \*/],
    ['PropagationPolicy', 'pp/bad-policy', badPolicy, /spec\.placement/],
    ['EffectiveHorizontalPodAutoscaler', 'ehpa/bad-ehpa', badEhpa, /spec\.crons\[0\]\.start/],
  ])(
    'refuses a bad %s with the field-path message flotilla apply gives, and stores nothing',
    async (_kind, ref, yaml, field) => {
      const expected = await cliMessage(yaml);
      expect(expected).toMatch(field);
      const r = await kubectl(['apply', '-f', '-'], yaml);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('admission webhook "validate.flotilla.io" denied the request');
      expect(r.stderr).toContain(expected);
      const [resource, name] = ref.split('/') as [string, string];
      const get = await kubectl(['get', resource, name, '-n', 'default']);
      expect(get.stderr).toMatch(/NotFound/);
    },
  );

  it('admits a good one, and an update is judged against the stored object', async () => {
    expect(await kubectlOk(['apply', '-f', '-'], goodCron)).toMatch(
      /cronfederatedhpa\.autoscaling\.karmada\.io\/good-cron created/,
    );
    const bad = await kubectl(['apply', '-f', '-'], goodCron.replace('"0 8 * * 1-5"', '"0 8 * * 8"'));
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/spec\.rules\[0\]\.schedule/);
    const stored = JSON.parse(await kubectlOk(['get', 'cronfhpa', 'good-cron', '-o', 'json']));
    expect(stored.spec.rules[0].schedule).toBe('0 8 * * 1-5');
  });

  it("accepts an unknown apiVersion for a reference's kind as Karmada does, and kubectl prints the warning naming the field", async () => {
    // Seed 000's own sample names its Deployment `app/v1`.
    const proposalCron = goodCron
      .replace('good-cron', 'app-v1-cron')
      .replace('apiVersion: apps/v1', 'apiVersion: app/v1');
    const warning =
      'spec.scaleTargetRef.apiVersion: unknown apiVersion "app/v1" for kind Deployment (served as apps/v1); accepted as written';
    const r = await kubectl(['apply', '-f', '-'], proposalCron);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/cronfederatedhpa\.autoscaling\.karmada\.io\/app-v1-cron created/);
    expect(r.stderr).toContain(`Warning: ${warning}`);
    const stored = JSON.parse(await kubectlOk(['get', 'cronfhpa', 'app-v1-cron', '-o', 'json']));
    expect(stored.spec.scaleTargetRef.apiVersion).toBe('app/v1');
    // flotilla apply says the same.
    const cli = await flotilla(gateway.env, ['apply', '-f', '-'], proposalCron);
    expect(cli.code, cli.err).toBe(0);
    expect(cli.err).toContain(warning);
  });

  it('refuses a PropagationPolicy in kube-system through kubectl, and a Deployment there through flotilla apply, naming the rule', async () => {
    const rule =
      'metadata.namespace: Forbidden: namespace "kube-system" is reserved (kube-*, flotilla-system): Flotilla does not propagate from or into it';
    const policy = `apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: { name: system-policy, namespace: kube-system }
spec:
  resourceSelectors: [{ apiVersion: apps/v1, kind: Deployment, name: coredns }]
  placement: { clusterAffinity: { clusterNames: [member1] } }
`;
    const r = await kubectl(['apply', '-f', '-'], policy);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('admission webhook "validate.flotilla.io" denied the request');
    expect(r.stderr).toContain(`PropagationPolicy "system-policy" is invalid: ${rule}`);
    expect((await kubectl(['get', 'pp', 'system-policy', '-n', 'kube-system'])).stderr).toMatch(/NotFound/);
    // The same policy in default is admitted: the namespace is all that was refused.
    const inDefault = policy.replace('namespace: kube-system', 'namespace: default');
    expect(await kubectlOk(['apply', '--dry-run=server', '-f', '-'], inDefault)).toMatch(
      /propagationpolicy\.policy\.karmada\.io\/system-policy created \(server dry run\)/,
    );
    // A Deployment there that no policy selects is the cluster's own business: the webhook lets it through (the next
    // test has a policy select one). `flotilla apply` of one into Flotilla's kube-system (the kube-bridge would then
    // create it on the host) is refused with the same words.
    const deployment = stringify({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'system-web', namespace: 'kube-system' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'system-web' } },
        template: {
          metadata: { labels: { app: 'system-web' } },
          spec: { containers: [{ name: 'c', image: 'nginx' }] },
        },
      },
    });
    const cli = await flotilla(gateway.env, ['apply', '-f', '-'], deployment);
    expect(cli.code).not.toBe(0);
    expect(cli.err).toContain(`Deployment "system-web" is invalid: ${rule}`);
    expect(await kubectlOk(['apply', '--dry-run=server', '-f', '-'], deployment)).toMatch(
      /deployment\.apps\/system-web created \(server dry run\)/,
    );
  });

  it('refuses a Deployment in kube-system that a ClusterPropagationPolicy selects, naming the rule and the policy; one it does not select passes', async () => {
    const policy = `apiVersion: policy.karmada.io/v1alpha1
kind: ClusterPropagationPolicy
metadata: { name: all-deployments }
spec:
  resourceSelectors: [{ apiVersion: apps/v1, kind: Deployment, labelSelector: { matchLabels: { app: sel } } }]
  placement: { clusterAffinity: { clusterNames: [member1] } }
`;
    // The kube-bridge takes the policy applied with kubectl into Flotilla, where the webhook reads it. It runs for
    // this test alone, so that the tests around it find the host's objects as kubectl left them.
    const bridge = await gateway.suite.startService('kube-bridge', { KUBE_BRIDGE_KUBECONFIG: cluster.kubeconfigPath });
    try {
      await kubectlOk(['apply', '-f', '-'], policy);
      await eventually(
        async () => ((await flotilla(gateway.env, ['get', 'cpp', 'all-deployments'])).code === 0 ? true : undefined),
        60_000,
        'the ClusterPropagationPolicy mirrored into Flotilla',
      );
    } finally {
      await gateway.suite.kill(bridge, 'SIGTERM');
    }
    const rule =
      'metadata.namespace: Forbidden: namespace "kube-system" is reserved (kube-*, flotilla-system): Flotilla does not propagate from or into it';
    const selected = systemDeployment('sel-web', 'sel');
    const r = await kubectl(['apply', '-f', '-'], selected);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('admission webhook "templates.flotilla.io" denied the request');
    expect(r.stderr).toContain(
      `Deployment "sel-web" is invalid: ${rule}; ClusterPropagationPolicy "all-deployments" selects this Deployment`,
    );
    expect((await kubectl(['get', 'deploy', 'sel-web', '-n', 'kube-system'])).stderr).toMatch(/NotFound/);
    // Without the label no policy selects it: admitted, and so is its update, until one brings it under the policy.
    expect(await kubectlOk(['apply', '-f', '-'], systemDeployment('plain-web', 'plain'))).toMatch(
      /deployment\.apps\/plain-web created/,
    );
    await kubectlOk(['label', 'deploy', 'plain-web', '-n', 'kube-system', 'tier=web']);
    const relabelled = await kubectl(['label', 'deploy', 'plain-web', '-n', 'kube-system', 'app=sel', '--overwrite']);
    expect(relabelled.code).not.toBe(0);
    expect(relabelled.stderr).toContain('ClusterPropagationPolicy "all-deployments" selects this Deployment');
    // The same Deployment outside the reserved namespaces is not this webhook's (Flotilla propagates it).
    expect(
      await kubectlOk(
        ['apply', '--dry-run=server', '-f', '-'],
        selected.replace('namespace: kube-system', 'namespace: default'),
      ),
    ).toMatch(/deployment\.apps\/sel-web created \(server dry run\)/);
  });

  it('answers kubectl apply --dry-run=server with the live preview as warnings: what the change would move, nothing written', async () => {
    // The scheduler, the status writer and a member agent with two simulated clusters place a workload in Flotilla,
    // 4:2 by weight; a dry run of the policy at 1:2 through kubectl is answered with what it would move.
    const started = [];
    for (const service of ['status-writer', 'member-agent', 'affinity-scheduler'])
      started.push(await gateway.suite.startService(service));
    const fl = (args: string[], stdin?: string) => flotilla(gateway.env, args, stdin);
    const policy = (w1: number, w2: number) => `apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: { name: pv-web, namespace: default }
spec:
  resourceSelectors: [{ apiVersion: apps/v1, kind: Deployment, name: pv-web }]
  placement:
    clusterAffinity: { clusterNames: [pv-member1, pv-member2] }
    replicaScheduling:
      replicaSchedulingType: Divided
      replicaDivisionPreference: Weighted
      weightPreference:
        staticWeightList:
          - { targetCluster: { clusterNames: [pv-member1] }, weight: ${w1} }
          - { targetCluster: { clusterNames: [pv-member2] }, weight: ${w2} }
`;
    try {
      for (const n of ['pv-member1', 'pv-member2']) expect((await fl(['cluster', 'add', n, '--sim'])).code).toBe(0);
      for (const n of ['pv-member1', 'pv-member2'])
        expect((await fl(['wait', '--for=condition=Ready', `cluster/${n}`, '--timeout', '30s'])).code).toBe(0);
      const applied = await fl(
        ['apply', '-f', '-'],
        `${systemDeployment('pv-web', 'pv-web').replace('namespace: kube-system', 'namespace: default').replace('replicas: 1', 'replicas: 6')}---\n${policy(2, 1)}`,
      );
      expect(applied.err).toBe('');
      const placedAt = (await eventually(
        async () => {
          const r = await fl(['get', 'rb', 'pv-web-deployment', '-o', 'json']);
          const c = r.code === 0 ? (JSON.parse(r.out).spec.clusters as Array<{ name: string; replicas: number }>) : [];
          return JSON.stringify(c) ===
            JSON.stringify([
              { name: 'pv-member1', replicas: 4 },
              { name: 'pv-member2', replicas: 2 },
            ])
            ? c
            : undefined;
        },
        60_000,
        'pv-web placed 4:2 in Flotilla',
      )) as unknown;
      const r = await kubectl(['apply', '--dry-run=server', '-f', '-'], policy(1, 2));
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/propagationpolicy\.policy\.karmada\.io\/pv-web created \(server dry run\)/);
      expect(r.stderr).toContain('Warning: flotilla: pv-web-deployment pv-member1:4→2 pv-member2:2→4');
      // Nothing moved, in Flotilla or on the host.
      const after = await fl(['get', 'rb', 'pv-web-deployment', '-o', 'json']);
      expect(JSON.parse(after.out).spec.clusters).toEqual(placedAt);
      expect((await kubectl(['get', 'pp', 'pv-web', '-n', 'default'])).stderr).toMatch(/NotFound/);
      // A change that moves nothing says nothing.
      const same = await kubectl(['apply', '--dry-run=server', '-f', '-'], policy(2, 1));
      expect(same.code, same.stderr).toBe(0);
      expect(same.stderr).not.toMatch(/flotilla:/);
    } finally {
      for (const p of started.reverse()) await gateway.suite.kill(p, 'SIGTERM');
    }
  }, 120_000);

  it('fails closed (failurePolicy: Fail): with the gateway down nothing is admitted', async () => {
    await gateway.suite.stop();
    const r = await kubectl(['apply', '-f', '-'], goodCron.replace('good-cron', 'while-down'));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/failed calling webhook "validate\.flotilla\.io"/);
    expect((await kubectl(['get', 'cronfhpa', 'while-down'])).stderr).toMatch(/NotFound/);
  });

  it('is not called for an update that changes only what admission does not judge (matchConditions)', async () => {
    // The gateway is down (the test before): what is sent to the webhook fails, what is not sent goes through.
    const patch = (body: object) =>
      kubectl(['patch', 'cronfhpa', 'good-cron', '-n', 'default', '--type=merge', '-p', JSON.stringify(body)]);
    const finalizer = 'kube-bridge.flotilla.io/mirror';
    expect((await patch({ metadata: { finalizers: [finalizer] } })).stderr).toBe('');
    const stored = JSON.parse(await kubectlOk(['get', 'cronfhpa', 'good-cron', '-n', 'default', '-o', 'json']));
    expect(stored.metadata.finalizers).toEqual([finalizer]);
    // Labels, annotations and the spec are judged: each of those updates is sent, and fails closed.
    for (const body of [
      { metadata: { labels: { team: 'web' } } },
      { metadata: { annotations: { note: 'x' } } },
      { spec: { rules: [{ name: 'up', schedule: '0 9 * * 1-5', targetReplicas: 10 }] } },
    ]) {
      const r = await patch(body);
      expect(r.code, JSON.stringify(body)).not.toBe(0);
      expect(r.stderr).toMatch(/failed calling webhook "validate\.flotilla\.io"/);
    }
    expect((await patch({ metadata: { finalizers: null } })).code).toBe(0);
    const after = JSON.parse(await kubectlOk(['get', 'cronfhpa', 'good-cron', '-n', 'default', '-o', 'json']));
    expect(after.metadata.finalizers).toBeUndefined();
    expect(after.spec).toEqual(stored.spec);
    expect(after.metadata.labels).toBeUndefined();
  });

  it("never blocks kube-system's Deployments on the gateway (templates.flotilla.io: failurePolicy Ignore)", async () => {
    // The gateway is down (two tests before): a Deployment the policy selects there is let through, not failed.
    const r = await kubectl(['apply', '-f', '-'], systemDeployment('while-down', 'sel'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/deployment\.apps\/while-down created/);
  });
});

describe('deploy/ passes kubectl apply --dry-run=server', () => {
  beforeAll(async () => {
    // The namespace exists for real: a dry-run Namespace is not there for the objects that follow it.
    await kubectlOk(['create', 'namespace', 'flotilla-system']);
  });

  it('deploy/ (kustomize)', async () => {
    const out = await kubectlOk(['apply', '--dry-run=server', '-k', DEPLOY]);
    expect(out).toMatch(/deployment\.apps\/flotilla-gateway (created|configured) \(server dry run\)/);
    expect(out).toMatch(/validatingwebhookconfiguration\.admissionregistration\.k8s\.io\/flotilla-validate/);
  });

  it('deploy/member/ (applied in each member cluster)', async () => {
    const out = await kubectlOk(['apply', '--dry-run=server', '-k', join(DEPLOY, 'member')]);
    expect(out).toMatch(/clusterrole\.rbac\.authorization\.k8s\.io\/flotilla-member-agent .*\(server dry run\)/);
  });

  it("deploy/monitoring/: the PrometheusRule (against the Prometheus Operator's own CRD) and the dashboard ConfigMap", async () => {
    // The CRD as the Prometheus Operator ships it in its Go module (scripts/kube-env build fetches it).
    await kubectlOk(['apply', '-f', kubeCrdFile('monitoring.coreos.com_prometheusrules.yaml')]);
    await cluster.waitCrdsEstablished(['prometheusrules.monitoring.coreos.com']);
    const monitoring = await kubectl(['get', 'namespace', 'monitoring']);
    if (monitoring.code !== 0) await kubectlOk(['create', 'namespace', 'monitoring']);
    const out = await kubectlOk(['apply', '--dry-run=server', '--validate=strict', '-k', join(DEPLOY, 'monitoring')]);
    expect(out).toMatch(/prometheusrule\.monitoring\.coreos\.com\/flotilla created \(server dry run\)/);
    expect(out).toMatch(/configmap\/\S+ created \(server dry run\)/);
  });

  it('the Helm chart: helm lint, and helm template with two member clusters, tokens, NATS and Redis', async () => {
    const helm = join(kubeBinDir(), 'helm');
    const chart = join(DEPLOY, 'helm', 'flotilla');
    const values = join(dir, 'values.yaml');
    writeFileSync(
      values,
      stringify({
        image: { repository: 'registry.example.com/flotilla', tag: '0.2.0' },
        nats: { url: 'nats://nats.nats.svc:4222', users: { gateway: { user: 'flotilla-gateway', password: 'p' } } },
        redis: { url: 'redis://redis.redis.svc:6379', password: 'r' },
        gateway: { replicas: 3, tokens: [{ token: 't1', role: 'admin', name: 'ci' }] },
        memberAgent: { clusters: [{ name: 'member1' }, { name: 'member2', kubeconfigSecret: 'm2-kubeconfig' }] },
      }),
    );
    const lint = await run(helm, ['lint', chart, '-f', values]);
    expect(lint.stdout).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
    // Without the `helm test` hook's objects: `helm test` creates them in order (the pod's ServiceAccount first), and
    // test/helm-real-node.e2e runs them.
    const rendered = (
      await run(helm, [
        'template',
        'flotilla',
        chart,
        '-n',
        'flotilla-system',
        '-f',
        values,
        '--include-crds',
        '--skip-tests',
      ])
    ).stdout;
    const out = await kubectlOk(['apply', '--dry-run=server', '-f', '-'], rendered);
    for (const d of [
      'flotilla-gateway',
      'flotilla-kube-bridge',
      'flotilla-member-agent-member1',
      'flotilla-member-agent-member2',
    ])
      expect(out).toContain(`deployment.apps/${d} created (server dry run)`);
    // The kube-bridge's identity and what it may do in this cluster (services/kube-bridge proves the role suffices).
    expect(out).toContain('serviceaccount/flotilla-kube-bridge created (server dry run)');
    expect(out).toContain('clusterrole.rbac.authorization.k8s.io/flotilla-kube-bridge created (server dry run)');
    expect(out).toContain('clusterrolebinding.rbac.authorization.k8s.io/flotilla-kube-bridge created (server dry run)');
    expect(out).toContain('secret/flotilla-connections created (server dry run)');
    expect(out).toContain('secret/flotilla-gateway-tokens created (server dry run)');
  });
});
