// `helm install` of deploy/helm/flotilla on a real kube-apiserver (scripts/kube-env, control plane only: nothing runs
// the pods, which test/helm-real-node.e2e does) with the Prometheus Operator's own CRDs (fetched from its Go module by
// `scripts/kube-env build`): a bad value is refused naming its path and nothing is installed; with monitoring on, the
// API server takes the ServiceMonitor and the PrometheusRule as their CRDs' schemas define them, and refuses one that
// breaks them; the notes tell how to reach the dashboard and the CLI.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { type KubeCluster, kubeBinDir, kubeCrdFile, startKubeCluster } from '@flotilla/testkit/kube';
import { ROOT } from './support/suite.js';

const run = promisify(execFile);
const CHART = join(ROOT, 'deploy', 'helm', 'flotilla');
const NS = 'flotilla-system';
let cluster: KubeCluster;

async function kubectlOk(args: string[], input?: string): Promise<string> {
  const r = await cluster.kubectl(args, input === undefined ? undefined : { input });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}
/** helm against the cluster: its exit code and output. */
async function helm(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return run(join(kubeBinDir(), 'helm'), [...args, `--kubeconfig=${cluster.kubeconfigPath}`], {
    maxBuffer: 64 << 20,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code?: number; stdout: string; stderr: string }) => ({ code: err.code ?? 1, ...err }),
  );
}

beforeAll(async () => {
  cluster = await startKubeCluster({ name: 'helm-install', controlPlaneOnly: true });
  for (const crd of ['monitoring.coreos.com_servicemonitors.yaml', 'monitoring.coreos.com_prometheusrules.yaml'])
    await kubectlOk(['apply', '--server-side', '-f', kubeCrdFile(crd)]);
  await cluster.waitCrdsEstablished(['servicemonitors.monitoring.coreos.com', 'prometheusrules.monitoring.coreos.com']);
});

afterAll(async () => {
  await cluster?.stop();
});

describe('helm install on a real API server', () => {
  it('refuses a bad value, naming its path, and installs nothing', async () => {
    const res = await helm(['install', 'flotilla', CHART, '-n', NS, '--create-namespace', '--set', 'logLevel=loud']);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain("at '/logLevel': value must be one of 'fatal', 'error', 'warn', 'info', 'debug'");
    expect((await helm(['list', '-A', '-q'])).stdout.trim()).toBe('');
  });

  it('with monitoring on, the API server takes the ServiceMonitor and the PrometheusRule by their CRDs', async () => {
    const res = await helm([
      'install',
      'flotilla',
      CHART,
      '-n',
      NS,
      '--create-namespace',
      '--set',
      'monitoring.serviceMonitor.enabled=true',
      '--set',
      'monitoring.serviceMonitor.labels.release=kube-prometheus-stack',
      '--set',
      'monitoring.prometheusRule.enabled=true',
      '--set',
      'nats.url=nats://nats.nats.svc:4222',
      '--set',
      'redis.url=redis://redis.redis.svc:6379',
    ]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    // The notes: what runs, and how to reach the dashboard and the CLI.
    expect(res.stdout).toContain('flotilla-gateway             2 replica(s)');
    expect(res.stdout).toContain(`kubectl -n ${NS} port-forward service/flotilla-gateway 8081:8081`);
    expect(res.stdout).toContain('https://127.0.0.1:8081/dashboard/');
    expect(res.stdout).toContain('export NATS_URL=nats://nats.nats.svc:4222');
    expect(res.stdout).toContain('export FLOTILLA_PREFIX=flotilla');
    expect(res.stdout).toContain(`helm test flotilla -n ${NS}`);
    expect(res.stdout).toContain('ServiceMonitor flotilla');

    const monitor = JSON.parse(await kubectlOk(['get', 'servicemonitor', 'flotilla', '-n', NS, '-o', 'json']));
    expect(monitor.metadata.labels.release).toBe('kube-prometheus-stack');
    expect(monitor.spec.endpoints).toEqual([
      { port: 'metrics', path: '/metrics', interval: '30s', scrapeTimeout: '10s', honorLabels: true },
    ]);
    const rule = JSON.parse(await kubectlOk(['get', 'prometheusrule', 'flotilla', '-n', NS, '-o', 'json']));
    const deployRule = parse(readFileSync(join(ROOT, 'deploy', 'monitoring', 'prometheus-rules.yaml'), 'utf8'));
    expect(rule.spec).toEqual(deployRule.spec);

    // Strictly: no field of the chart's is unknown to the CRDs' schemas (the API server would prune it silently).
    // Created as a dry run under another name, since helm's own objects stand under this one.
    const manifest = (await helm(['get', 'manifest', 'flotilla', '-n', NS])).stdout;
    const monitoring = parseAllDocuments(manifest)
      .map((d) => d.toJS() as { apiVersion?: string; metadata: { name: string } } | null)
      .filter((d) => d?.apiVersion === 'monitoring.coreos.com/v1');
    expect(monitoring).toHaveLength(2);
    const strict = await cluster.kubectl(['create', '--dry-run=server', '--validate=strict', '-f', '-'], {
      input: monitoring
        .map((d) => stringify({ ...d, metadata: { ...d!.metadata, name: 'flotilla-strict' } }))
        .join('---\n'),
    });
    expect(strict.stderr).toBe('');
    expect(strict.code).toBe(0);
    // And the schema is really there: a ServiceMonitor whose interval is not a duration is refused.
    const bad = await cluster.kubectl(['apply', '--dry-run=server', '-f', '-'], {
      input: JSON.stringify({
        ...monitor,
        spec: { ...monitor.spec, endpoints: [{ port: 'metrics', interval: 'soon' }] },
      }),
    });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('spec.endpoints[0].interval');
  });

  it('helm uninstall removes the monitoring objects with the rest', async () => {
    expect((await helm(['uninstall', 'flotilla', '-n', NS, '--wait'])).code).toBe(0);
    expect((await kubectlOk(['get', 'servicemonitors,prometheusrules', '-n', NS, '-o', 'name'])).trim()).toBe('');
  });
});
