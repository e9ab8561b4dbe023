// `helm test`: run by the test pod (templates/tests/) with node from Flotilla's own image, so that it needs no image
// of its own. It checks the installation as a user meets it:
//   1. every Ready gateway replica answers /readyz with 200;
//   2. the API server sends a bad object to the gateway's admission webhook, which refuses it naming the field.
// Both go through the API server: the gateway's replicas are found in its Service's EndpointSlices (and called at
// their pod addresses, so neither cluster DNS nor kube-proxy is needed), and the bad object is created as a dry run,
// which calls the webhook (sideEffects: None) and stores nothing. Exits non-zero, saying why, on the first failure.
import { readFileSync } from 'node:fs';
import { request } from 'node:https';

const namespace = process.env.NAMESPACE;
const gatewayService = process.env.GATEWAY_SERVICE;
const serviceAccount = '/var/run/secrets/kubernetes.io/serviceaccount';
const token = readFileSync(`${serviceAccount}/token`, 'utf8').trim();
const ca = readFileSync(`${serviceAccount}/ca.crt`);
const TIMEOUT_MS = 15_000;

/** One call to the API server as this pod's ServiceAccount: its status and parsed body. */
function api(method, path, body) {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: process.env.KUBERNETES_SERVICE_HOST,
        port: process.env.KUBERNETES_SERVICE_PORT,
        method,
        path,
        ca,
        timeout: TIMEOUT_MS,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json', 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => {
          let parsed;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = { message: text };
          }
          resolve({ status: res.statusCode, body: parsed });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within ${TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

function fail(message) {
  console.error(`FAIL ${message}`);
  process.exit(1);
}

// 1. The gateway's Ready replicas, each at its pod address and metrics port.
const slices = await api(
  'GET',
  `/apis/discovery.k8s.io/v1/namespaces/${namespace}/endpointslices?labelSelector=${encodeURIComponent(`kubernetes.io/service-name=${gatewayService}`)}`,
);
if (slices.status !== 200)
  fail(`listing the EndpointSlices of Service ${gatewayService}: ${slices.status} ${slices.body.message}`);
const targets = [];
for (const slice of slices.body.items ?? []) {
  const port = slice.ports?.find((p) => p.name === 'metrics')?.port;
  for (const endpoint of slice.endpoints ?? [])
    if (port && endpoint.conditions?.ready) {
      const address = endpoint.addresses[0];
      targets.push(`http://${address.includes(':') ? `[${address}]` : address}:${port}/readyz`);
    }
}
if (targets.length === 0) fail(`Service ${gatewayService} has no Ready endpoint: no gateway replica is Ready`);
for (const url of targets) {
  const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) }).catch((err) =>
    fail(`${url}: ${err.message}`),
  );
  const text = await res.text();
  if (res.status !== 200) fail(`${url}: ${res.status} ${text}`);
  console.log(`ok ${url}: ${res.status} ${text.trim()}`);
}

// 2. A CronFederatedHPA whose schedule has minute 61, created as a dry run: the webhook must refuse it, naming the field.
const bad = {
  apiVersion: 'autoscaling.karmada.io/v1alpha1',
  kind: 'CronFederatedHPA',
  metadata: { name: 'flotilla-helm-test-bad-schedule', namespace },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'flotilla-helm-test' },
    rules: [{ name: 'bad', schedule: '61 * * * *', targetReplicas: 1 }],
  },
};
const created = await api(
  'POST',
  `/apis/autoscaling.karmada.io/v1alpha1/namespaces/${namespace}/cronfederatedhpas?dryRun=All`,
  bad,
);
const message = created.body.message ?? '';
if (created.status < 400) fail(`a CronFederatedHPA with schedule "61 * * * *" was admitted (${created.status})`);
if (!message.includes('admission webhook "validate.flotilla.io" denied the request'))
  fail(`the bad CronFederatedHPA was refused, but not by the webhook: ${created.status} ${message}`);
if (!message.includes('spec.rules[0].schedule'))
  fail(`the webhook refused the bad CronFederatedHPA without naming spec.rules[0].schedule: ${message}`);
console.log(`ok the webhook refused a bad CronFederatedHPA: ${message}`);
