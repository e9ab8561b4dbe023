// The Helm chart renders the manifests of deploy/: with its default values, `helm template` gives the same objects
// as `kubectl kustomize deploy/` (the member-agent named after its member cluster), so neither drifts from the other.
// helm and kubectl are the ones scripts/kube-env builds. The chart against a real API server:
// test/kube-front-door.e2e.test.ts.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { kubeBinDir } from '@flotilla/testkit/kube';
import { ROOT } from './support/suite.js';

const run = promisify(execFile);
type Obj = Record<string, unknown> & { kind: string; metadata: { name: string; namespace?: string } };

const docs = (text: string): Obj[] =>
  parseAllDocuments(text)
    .map((d) => d.toJS() as Obj | null)
    .filter((d): d is Obj => d !== null);
const key = (o: Obj) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;

/** The chart names each member-agent after its cluster; deploy/ has the one agent of member1, unsuffixed. */
function asDeployNamesIt(o: Obj): Obj {
  const text = JSON.stringify(o)
    .replaceAll('flotilla-member-agent-member1', 'flotilla-member-agent')
    .replaceAll('flotilla-member-kubeconfig-member1', 'flotilla-member-kubeconfig')
    .replaceAll(',"flotilla.io/member-cluster":"member1"', '');
  return JSON.parse(text) as Obj;
}

async function helm(args: string[]): Promise<string> {
  return (await run(join(kubeBinDir(), 'helm'), args, { maxBuffer: 64 << 20 })).stdout;
}

describe('deploy/helm/flotilla', () => {
  const chart = join(ROOT, 'deploy', 'helm', 'flotilla');
  /** `helm template` of the chart into `namespace`, with each of `values` given as --set. */
  const render = async (namespace: string, values: string[]) =>
    docs(await helm(['template', 'flotilla', chart, '-n', namespace, ...values.flatMap((v) => ['--set', v])]));

  it('renders with its default values exactly the objects of kubectl kustomize deploy/', async () => {
    const kustomized = docs(
      (await run(join(kubeBinDir(), 'kubectl'), ['kustomize', join(ROOT, 'deploy')], { maxBuffer: 64 << 20 })).stdout,
    );
    const rendered = docs(
      await helm([
        'template',
        'flotilla',
        chart,
        '-n',
        'flotilla-system',
        '--include-crds',
        // The `helm test` hook's objects are the chart's alone (created by `helm test`, not by install).
        '--skip-tests',
        '--set',
        'createNamespace=true',
      ]),
    ).map(asDeployNamesIt);
    expect(rendered.map(key).sort()).toEqual(kustomized.map(key).sort());
    const byKey = new Map(kustomized.map((o) => [key(o), o]));
    for (const o of rendered) expect(o, key(o)).toEqual(byKey.get(key(o)));
  });

  it('passes helm lint', async () => {
    expect(await helm(['lint', chart])).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
  });

  it('renders one member-agent per member cluster, each with its own kubeconfig Secret', async () => {
    const rendered = await render('flotilla-system', [
      'memberAgent.clusters[0].name=east',
      'memberAgent.clusters[1].name=west',
      'memberAgent.clusters[1].kubeconfigSecret=west-kubeconfig',
    ]);
    const agents = rendered.filter(
      (o) => o.kind === 'Deployment' && o.metadata.name.startsWith('flotilla-member-agent'),
    );
    expect(agents.map((a) => a.metadata.name)).toEqual(['flotilla-member-agent-east', 'flotilla-member-agent-west']);
    const spec = (a: Obj) =>
      (
        a as unknown as {
          spec: {
            selector: { matchLabels: Record<string, string> };
            template: { spec: { volumes: { name: string; secret?: { secretName: string } }[] } };
          };
        }
      ).spec;
    expect(agents.map((a) => spec(a).selector.matchLabels['flotilla.io/member-cluster'])).toEqual(['east', 'west']);
    expect(
      agents.map((a) => spec(a).template.spec.volumes.find((v) => v.name === 'member-kubeconfig')?.secret?.secretName),
    ).toEqual(['flotilla-member-kubeconfig-east', 'west-kubeconfig']);
    const configs = rendered.filter(
      (o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('flotilla-member-agent'),
    );
    expect(configs.map((c) => (c as unknown as { data: Record<string, string> }).data.KUBE_CLUSTER_NAME)).toEqual([
      'east',
      'west',
    ]);
    // The ServiceAccount and the metrics Service are shared by the agents.
    expect(
      rendered.filter((o) => o.kind === 'ServiceAccount' && o.metadata.name === 'flotilla-member-agent'),
    ).toHaveLength(1);
  });

  it('takes images, replicas, tokens, NATS and Redis from values', async () => {
    const rendered = await render('ops', [
      'image.repository=registry.example.com/flotilla',
      'image.tag=0.2.0',
      'gateway.replicas=3',
      'cronScheduler.replicas=1',
      'nats.url=nats://nats:4222',
      'redis.url=redis://redis:6379',
      'nats.users.gateway.user=gw',
      'nats.users.gateway.password=pw',
      'gateway.tokens[0].token=t1',
      'gateway.tokens[0].role=admin',
      'gateway.tokens[0].name=ci',
      'gateway.clientCaSecretName=apiserver-client-ca',
    ]);
    const get = (kind: string, name: string) =>
      // biome-ignore lint/suspicious/noExplicitAny: the test reads arbitrary fields of the rendered manifests
      rendered.find((o) => o.kind === kind && o.metadata.name === name) as Record<string, any>;
    const gw = get('Deployment', 'flotilla-gateway');
    expect(gw.metadata.namespace).toBe('ops');
    expect(gw.spec.replicas).toBe(3);
    expect(gw.spec.template.spec.containers[0].image).toBe('registry.example.com/flotilla:0.2.0');
    expect(get('Deployment', 'flotilla-cron-scheduler').spec.replicas).toBe(1);
    // One replica needs no disruption budget (and kubectl drain would block on minAvailable: 1).
    expect(get('PodDisruptionBudget', 'flotilla-cron-scheduler')).toBeUndefined();
    expect(get('Secret', 'flotilla-connections').stringData).toEqual({
      NATS_URL: 'nats://nats:4222',
      REDIS_URL: 'redis://redis:6379',
      'nats-user-gateway': 'gw',
      'nats-password-gateway': 'pw',
    });
    expect(get('Secret', 'flotilla-gateway-tokens').stringData).toEqual({ 'tokens.csv': 't1,admin,ci\n' });
    expect(get('ConfigMap', 'flotilla-gateway-config').data.GATEWAY_TLS_CLIENT_CA_FILE).toBe(
      '/etc/flotilla/client-ca/ca.crt',
    );
    expect(get('ValidatingWebhookConfiguration', 'flotilla-validate').webhooks[0].clientConfig.service.namespace).toBe(
      'ops',
    );
  });

  it('sends the reserved namespaces of values to the templates webhook, with its Service in the release namespace', async () => {
    const rendered = await render('ops', [
      'gateway.webhook.templates.namespaces={kube-system,kube-public,kube-node-lease,flotilla-system,payments}',
      'gateway.webhook.templates.timeoutSeconds=2',
      'gateway.webhook.failurePolicy=Fail',
    ]);
    const config = rendered.find((o) => o.kind === 'ValidatingWebhookConfiguration') as unknown as {
      webhooks: Array<Record<string, unknown> & { name: string }>;
    };
    const templates = config.webhooks.find((w) => w.name === 'templates.flotilla.io');
    expect(templates).toMatchObject({
      // Not a value: a gateway that does not answer never blocks the cluster's own kube-system.
      failurePolicy: 'Ignore',
      timeoutSeconds: 2,
      clientConfig: { service: { name: 'flotilla-gateway', namespace: 'ops', path: '/validate', port: 443 } },
      namespaceSelector: {
        matchExpressions: [
          {
            key: 'kubernetes.io/metadata.name',
            operator: 'In',
            values: ['kube-system', 'kube-public', 'kube-node-lease', 'flotilla-system', 'payments'],
          },
        ],
      },
    });
  });

  it('takes a NATS cluster (a URL list) and Redis with Sentinel from values, into the Secret every service reads', async () => {
    const rendered = await render('ops', [
      'nats.url={nats://nats-0.nats:4222,nats://nats-1.nats:4222,nats://nats-2.nats:4222}',
      'nats.replicas=3',
      'nats.timeoutMs=2000',
      'redis.url=redis://redis:6379',
      'redis.sentinels={redis-node-0.redis:26379,redis-node-1.redis:26379,redis-node-2.redis:26379}',
      'redis.sentinelName=flotilla',
      'redis.sentinelPassword=s3ntinel',
    ]);
    const get = (kind: string, name: string) =>
      // biome-ignore lint/suspicious/noExplicitAny: the test reads arbitrary fields of the rendered manifests
      rendered.find((o) => o.kind === kind && o.metadata.name === name) as Record<string, any>;
    expect(get('Secret', 'flotilla-connections').stringData).toEqual({
      NATS_URL: 'nats://nats-0.nats:4222,nats://nats-1.nats:4222,nats://nats-2.nats:4222',
      NATS_REPLICAS: '3',
      NATS_TIMEOUT_MS: '2000',
      REDIS_URL: 'redis://redis:6379',
      REDIS_SENTINELS: 'redis-node-0.redis:26379,redis-node-1.redis:26379,redis-node-2.redis:26379',
      REDIS_SENTINEL_NAME: 'flotilla',
      REDIS_SENTINEL_PASSWORD: 's3ntinel',
    });
    const env = get('Deployment', 'flotilla-cron-scheduler').spec.template.spec.containers[0].env as Array<{
      name: string;
      valueFrom?: { secretKeyRef?: { key: string; optional?: boolean } };
    }>;
    for (const key of [
      'NATS_REPLICAS',
      'NATS_TIMEOUT_MS',
      'REDIS_SENTINELS',
      'REDIS_SENTINEL_NAME',
      'REDIS_SENTINEL_PASSWORD',
    ])
      expect(env.find((e) => e.name === key)?.valueFrom?.secretKeyRef, key).toEqual({
        name: 'flotilla-connections',
        key,
        optional: true,
      });
  });

  it('with host networking (a real node of scripts/kube-env), gives every service ports of its own', async () => {
    const rendered = await render('flotilla-system', [
      'hostNetwork.enabled=true',
      'hostNetwork.basePort=20000',
      'apiServer.host=127.0.0.1',
      'apiServer.port=6443',
      'memberAgent.clusters[0].name=member1',
      'memberAgent.clusters[1].name=member2',
    ]);
    // biome-ignore lint/suspicious/noExplicitAny: the test reads arbitrary fields of the rendered manifests
    const deployments = rendered.filter((o) => o.kind === 'Deployment') as Record<string, any>[];
    const ports = new Map<string, number[]>();
    for (const d of deployments) {
      const pod = d.spec.template.spec;
      expect(pod.hostNetwork, d.metadata.name).toBe(true);
      const container = pod.containers[0];
      ports.set(
        d.metadata.name,
        container.ports.map((p: { containerPort: number }) => p.containerPort),
      );
      const config = rendered.find((o) => o.kind === 'ConfigMap' && o.metadata.name === `${d.metadata.name}-config`);
      expect((config as unknown as { data: Record<string, string> }).data.HTTP_PORT).toBe(
        String(container.ports[0].containerPort),
      );
    }
    expect(Object.fromEntries(ports)).toEqual({
      'flotilla-gateway': [20000, 20001],
      'flotilla-status-writer': [20002],
      'flotilla-affinity-scheduler': [20003],
      'flotilla-cron-scheduler': [20004],
      'flotilla-rebalancer': [20005],
      'flotilla-hpa-assigner': [20006],
      'flotilla-kube-bridge': [20007],
      'flotilla-member-agent-member1': [20008],
      'flotilla-member-agent-member2': [20009],
    });
    const gatewayConfig = rendered.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'flotilla-gateway-config');
    expect((gatewayConfig as unknown as { data: Record<string, string> }).data.GATEWAY_API_PORT).toBe('20001');
    const env = (name: string) =>
      deployments.find((d) => d.metadata.name === name)?.spec.template.spec.containers[0].env as {
        name: string;
        value?: string;
      }[];
    expect(env('flotilla-kube-bridge').filter((e) => e.name.startsWith('KUBERNETES_SERVICE'))).toEqual([
      { name: 'KUBERNETES_SERVICE_HOST', value: '127.0.0.1' },
      { name: 'KUBERNETES_SERVICE_PORT', value: '6443' },
    ]);
    expect(env('flotilla-gateway').some((e) => e.name.startsWith('KUBERNETES_SERVICE'))).toBe(false);
  });

  it('on a pod network with member-agents on the node (scripts/kube-env --pod-network), only they use host ports', async () => {
    const rendered = await render('flotilla-system', [
      'memberAgent.hostNetwork=true',
      'hostNetwork.basePort=20000',
      'apiServer.host=10.244.7.1',
      'apiServer.port=6443',
      'memberAgent.clusters[0].name=member1',
      'memberAgent.clusters[1].name=member2',
    ]);
    // biome-ignore lint/suspicious/noExplicitAny: the test reads arbitrary fields of the rendered manifests
    const deployments = rendered.filter((o) => o.kind === 'Deployment') as Record<string, any>[];
    const onNode = deployments.filter((d) => d.spec.template.spec.hostNetwork === true).map((d) => d.metadata.name);
    expect(onNode).toEqual(['flotilla-member-agent-member1', 'flotilla-member-agent-member2']);
    const portsOf = (name: string) =>
      deployments
        .find((d) => d.metadata.name === name)
        ?.spec.template.spec.containers[0].ports.map((p: { containerPort: number }) => p.containerPort);
    expect(portsOf('flotilla-member-agent-member2')).toEqual([20009]);
    expect(portsOf('flotilla-gateway')).toEqual([8080, 8081]);
    // Two replicas on the pod network: a rolling update surges instead of freeing a port first.
    const gateway = deployments.find((d) => d.metadata.name === 'flotilla-gateway')!;
    expect(gateway.spec.replicas).toBe(2);
    expect(gateway.spec.strategy.rollingUpdate).toEqual({ maxUnavailable: 0, maxSurge: 1 });
    const bridgeEnv = deployments.find((d) => d.metadata.name === 'flotilla-kube-bridge')!.spec.template.spec
      .containers[0].env as { name: string; value?: string }[];
    expect(bridgeEnv.filter((e) => e.name.startsWith('KUBERNETES_SERVICE'))).toEqual([
      { name: 'KUBERNETES_SERVICE_HOST', value: '10.244.7.1' },
      { name: 'KUBERNETES_SERVICE_PORT', value: '6443' },
    ]);
  });

  it('gives the rebalancer and the gateway the one fail-back budget of values, so get failbacks plans as the rebalancer acts', async () => {
    const rendered = await render('ops', ['failBack.budget=3', 'failBack.budgetPeriodMs=120000']);
    for (const name of ['flotilla-rebalancer-config', 'flotilla-gateway-config'])
      expect(rendered.find((o) => o.kind === 'ConfigMap' && o.metadata.name === name)?.data, name).toMatchObject({
        REBALANCER_FAILBACK_BUDGET: '3',
        REBALANCER_FAILBACK_BUDGET_PERIOD_MS: '120000',
      });
  });

  it('refuses NATS without Redis, naming the value', async () => {
    await expect(helm(['template', 'flotilla', chart, '--set', 'nats.url=nats://nats:4222'])).rejects.toThrow(
      /redis\.url is required with nats\.url/,
    );
  });

  it('refuses a value its values.schema.json does not allow, naming its path, in helm lint and helm template', async () => {
    // `helm install` and `helm upgrade` check the same schema: test/helm-install.e2e.test.ts runs it on an API server.
    const bad: Array<[string, RegExp]> = [
      ['gateway.replicas=two', /at '\/gateway\/replicas': got string, want integer/],
      [
        'gateway.webhook.failurePolicy=Sometimes',
        /at '\/gateway\/webhook\/failurePolicy': value must be one of 'Fail', 'Ignore'/,
      ],
      [
        'memberAgent.clusters[0].name=Member_1',
        /at '\/memberAgent\/clusters\/0\/name': 'Member_1' does not match pattern/,
      ],
      ['failBack.budget=0', /at '\/failBack\/budget': minimum/],
      // A misspelt key is refused rather than ignored.
      ['statusWriter.replicaz=1', /at '\/statusWriter': additional properties 'replicaz' not allowed/],
    ];
    /** The output of a helm command that must fail (helm lint says why on stdout, helm template on stderr). */
    const refusal = (args: string[]) =>
      helm(args).then(
        (stdout) => {
          throw new Error(`helm ${args.join(' ')} passed: ${stdout.slice(0, 200)}`);
        },
        (err: { stdout: string; stderr: string }) => `${err.stdout}${err.stderr}`,
      );
    for (const [value, error] of bad) {
      expect(await refusal(['lint', chart, '--set', value]), value).toMatch(error);
      expect(await refusal(['template', 'flotilla', chart, '--set', value]), value).toMatch(error);
    }
  });

  it("has the root package.json's version as its appVersion, the default image tag", async () => {
    const chartYaml = parse(readFileSync(join(chart, 'Chart.yaml'), 'utf8')) as { appVersion: string };
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version?: string };
    expect(pkg.version, "the root package.json's version (the image's OCI version label)").toMatch(/^\d+\.\d+\.\d+/);
    expect(chartYaml.appVersion).toBe(pkg.version);
    const gateway = (await render('flotilla-system', [])).find(
      (o) => o.kind === 'Deployment' && o.metadata.name === 'flotilla-gateway',
    ) as unknown as { spec: { template: { spec: { containers: { image: string }[] } } } };
    expect(gateway.spec.template.spec.containers[0]!.image).toBe(`flotilla:${pkg.version}`);
  });

  it('renders the ServiceMonitor and the PrometheusRule only when asked, the rule as deploy/monitoring has it', async () => {
    const monitoring = (objs: Obj[]) =>
      objs.filter((o) => (o as { apiVersion?: string }).apiVersion === 'monitoring.coreos.com/v1');
    expect(monitoring(await render('flotilla-system', []))).toEqual([]);
    const rendered = monitoring(
      await render('ops', [
        'monitoring.serviceMonitor.enabled=true',
        'monitoring.serviceMonitor.labels.release=kps',
        'monitoring.serviceMonitor.interval=15s',
        'monitoring.prometheusRule.enabled=true',
        'monitoring.prometheusRule.labels.release=kps',
      ]),
    );
    expect(rendered.map(key).sort()).toEqual(['PrometheusRule/ops/flotilla', 'ServiceMonitor/ops/flotilla']);
    const [rule, monitor] = [
      rendered.find((o) => o.kind === 'PrometheusRule')!,
      rendered.find((o) => o.kind === 'ServiceMonitor')!,
    ];
    // The chart reads no file outside its folder: its files/ holds a copy of deploy/monitoring's rule, kept the same.
    const deployRule = readFileSync(join(ROOT, 'deploy', 'monitoring', 'prometheus-rules.yaml'), 'utf8');
    expect(readFileSync(join(chart, 'files', 'prometheus-rules.yaml'), 'utf8')).toBe(deployRule);
    expect(rule.spec).toEqual((parse(deployRule) as { spec: unknown }).spec);
    expect(rule.metadata).toMatchObject({ labels: { release: 'kps', 'app.kubernetes.io/part-of': 'flotilla' } });
    expect(monitor).toMatchObject({
      metadata: { labels: { release: 'kps' } },
      spec: {
        selector: { matchLabels: { 'app.kubernetes.io/name': 'flotilla' } },
        namespaceSelector: { matchNames: ['ops'] },
        endpoints: [{ port: 'metrics', path: '/metrics', interval: '15s', honorLabels: true }],
      },
    });
    // Every service's metrics Service is selected by it.
    const services = (await render('ops', [])).filter((o) => o.kind === 'Service');
    expect(services.length).toBeGreaterThan(0);
    for (const s of services) {
      const { labels } = s.metadata as unknown as { labels: Record<string, string> };
      expect(labels, s.metadata.name).toMatchObject({
        'app.kubernetes.io/name': 'flotilla',
        'app.kubernetes.io/part-of': 'flotilla',
      });
      expect((s as unknown as { spec: { ports: { name: string }[] } }).spec.ports.map((p) => p.name)).toContain(
        'metrics',
      );
    }
  });

  it('has a helm test hook: a pod of its own image running files/helm-test.mjs, with what it needs only while it runs', async () => {
    // biome-ignore lint/suspicious/noExplicitAny: the test reads arbitrary fields of the rendered manifests
    type Manifest = Record<string, any>;
    const rendered = (await render('ops', ['apiServer.host=10.244.7.1', 'apiServer.port=6443'])) as Manifest[];
    const hooks = rendered.filter((o) => o.metadata.annotations?.['helm.sh/hook']?.split(',').includes('test'));
    expect(hooks.map((h) => `${h.kind}/${h.metadata.name}`).sort()).toEqual([
      'NetworkPolicy/flotilla-helm-test',
      'Pod/flotilla-helm-test',
      'Role/flotilla-helm-test',
      'RoleBinding/flotilla-helm-test',
      'ServiceAccount/flotilla-helm-test',
    ]);
    for (const h of hooks)
      expect(h.metadata.annotations['helm.sh/hook-delete-policy'], h.kind).toBe('before-hook-creation,hook-succeeded');
    const pod = hooks.find((h) => h.kind === 'Pod')!;
    const container = pod.spec.containers[0];
    expect(container.image).toBe(
      `flotilla:${(parse(readFileSync(join(chart, 'Chart.yaml'), 'utf8')) as { appVersion: string }).appVersion}`,
    );
    expect(container.command).toEqual([
      'node',
      '--input-type=module',
      '-e',
      readFileSync(join(chart, 'files', 'helm-test.mjs'), 'utf8'),
    ]);
    expect(container.env).toEqual([
      { name: 'NAMESPACE', value: 'ops' },
      { name: 'GATEWAY_SERVICE', value: 'flotilla-gateway' },
      { name: 'KUBERNETES_SERVICE_HOST', value: '10.244.7.1' },
      { name: 'KUBERNETES_SERVICE_PORT', value: '6443' },
    ]);
    // Created before the pod, which runs as the ServiceAccount.
    for (const h of hooks.filter((h) => h.kind !== 'Pod'))
      expect(h.metadata.annotations['helm.sh/hook-weight'], h.kind).toBe('-5');
    expect(pod.spec.serviceAccountName).toBe('flotilla-helm-test');
    expect(hooks.find((h) => h.kind === 'Role')!.rules).toEqual([
      { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list'] },
      { apiGroups: ['autoscaling.karmada.io'], resources: ['cronfederatedhpas'], verbs: ['create'] },
    ]);
  });
});
