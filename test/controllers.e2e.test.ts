// End to end: every service that runs a controller, as built processes over real NATS and Redis. Each one's
// /metrics counts the reconciles of each of its controllers under the controller's name, and a reconcile that fails
// leaves a Kubernetes-style Warning event on the object it failed on (the controller kit's failure events).
import { join } from 'node:path';
import { Controllers } from '@flotilla/catalogue';
import { eventually } from '@flotilla/testkit';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { flotilla } from './support/cli.js';
import { ROOT, startSuite, type RunningSuite } from './support/suite.js';

/**
 * Each service that runs controllers, and the names its controllers report under (the catalogue's): every one the
 * examples set to work. Fail-back only reconciles bindings whose policy opts in, which no example does.
 */
const CONTROLLERS = {
  'affinity-scheduler': [
    Controllers.detection,
    Controllers.scheduling,
    Controllers.clusterTaints,
    Controllers.clusterHealth,
  ],
  'cron-scheduler': [Controllers.cron],
  'hpa-assigner': [Controllers.federatedHpa, Controllers.effectiveHpa],
  rebalancer: [Controllers.rebalancer],
} as const;
type Service = keyof typeof CONTROLLERS;

let s: RunningSuite;
const cli = (args: string[], stdin?: string) => flotilla(s.env, args, stdin);

beforeAll(async () => {
  s = await startSuite(['gateway', 'status-writer', 'member-agent', ...(Object.keys(CONTROLLERS) as Service[])], {
    SIM_TICK_MS: '200',
    RESYNC_MS: '2000',
  });
}, 120_000);

afterAll(async () => {
  if (!s) return;
  await s.stop();
});

/** The sum of `flotilla_reconcile_total` samples of one controller on a service's /metrics. */
async function reconciles(service: Service, controller: string): Promise<number> {
  const p = s.suite.processes.find((x) => x.name === service)!;
  const text = await (await fetch(`http://127.0.0.1:${p.httpPort}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('flotilla_reconcile_total{') && l.includes(`controller="${controller}"`))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

describe('controllers on the kit, as a running suite', () => {
  it('every controller counts its reconciles under its name on its service /metrics', async () => {
    onTestFailed(() => console.log(s.logs.slice(-60).join('\n')));
    for (const file of [
      '00-clusters.yaml',
      '20-web-divided.yaml',
      '30-web-cron.yaml',
      '40-shop-federated-hpa.yaml',
      '50-php-apache-effective-hpa.yaml',
      '60-rebalance.yaml',
    ]) {
      const r = await cli(['apply', '-f', join(ROOT, 'examples', file)]);
      expect(r.code, `${file}: ${r.err}`).toBe(0);
    }
    for (const [service, names] of Object.entries(CONTROLLERS) as Array<[Service, readonly string[]]>)
      for (const name of names)
        await eventually(
          async () => ((await reconciles(service, name)) > 0 ? true : undefined),
          30_000,
          `${service} /metrics: flotilla_reconcile_total{controller="${name}"}`,
        );
  }, 120_000);

  it('a reconcile that fails leaves a Warning event with a CamelCase reason on its object', async () => {
    onTestFailed(() => console.log(s.logs.slice(-60).join('\n')));
    // A generic template is admitted on its metadata and replicas alone (Deployments have their pod spec checked
    // at the front door), so detection is the first to read this request, and fails on it.
    const broken = `apiVersion: v1
kind: Service
metadata: { name: broken, namespace: default }
spec:
  replicas: 2
  template:
    spec:
      containers:
      - name: app
        resources: { requests: { cpu: "lots" } }
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: { name: broken, namespace: default }
spec:
  resourceSelectors: [{ apiVersion: v1, kind: Service, name: broken }]
  placement: { clusterAffinity: { clusterNames: [member1] } }
`;
    const applied = await cli(['apply', '-f', '-'], broken);
    expect(applied.code, applied.err).toBe(0);
    const described = await eventually(
      async () => {
        const r = await cli(['describe', 'service', 'broken']);
        return /Warning\s+DetectionFailed\s+.*spec\.template\.spec/.test(r.out) ? r.out : undefined;
      },
      30_000,
      'a DetectionFailed Warning on Service default/broken',
    );
    expect(described).toMatch(/Warning\s+DetectionFailed\s.*\sdetection\s+\S*spec\.template\.spec/);
    expect(await reconciles('affinity-scheduler', 'detection')).toBeGreaterThan(0);
  }, 60_000);
});
