// The admission webhook's own port (GATEWAY_WEBHOOK_PORT): answered by a worker thread while the gateway's thread is
// busy, and still judged with the gateway's state (the policies it holds) where a review needs it.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { admit, ReservedNamespaces } from '@flotilla/api';
import { type Bus, type CloudEvent, publishEvent } from '@flotilla/bus';
import { testBus } from '@flotilla/bus/testing';
import { metricSum } from '@flotilla/testkit';
import { type InformedSpecs, Informers, KubeEventStore, ObjectStore, type StoredObject } from '@flotilla/store';
import { GatewayHandler } from './handler.js';
import type { Served } from './http-api.js';
import { policySelectorSpecs } from './reserved-template.js';
import { serveWebhookThread } from './webhook-thread.js';

let bus: Bus & { dispose(): Promise<void> };
let policies: InformedSpecs<StoredObject>;
let webhook: Served;
const registry = new Registry();
const failures: Error[] = [];
const logged: unknown[] = [];

const deployment = (name: string, namespace: string, replicas: number, labels: Record<string, string> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace, labels },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
  },
});
const reviewOf = (uid: string, object: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid, object, ...extra } });

beforeAll(async () => {
  bus = await testBus('gw-webhook-thread');
  const store = new ObjectStore(bus);
  policies = policySelectorSpecs({ bus, informers: new Informers({ bus }), store });
  await policies.start();
  // One list for both threads, as main.ts hands RESERVED_NAMESPACES to each.
  const reservedNamespaces = ReservedNamespaces.parse('payments');
  const kubeEvents = new KubeEventStore(bus);
  const publish = (e: CloudEvent) => publishEvent(bus, e);
  webhook = await serveWebhookThread(
    new GatewayHandler({ store, policies, kubeEvents, publish, reservedNamespaces }),
    {
      host: '127.0.0.1',
      port: 0,
      reservedNamespaces,
      registry,
      onFailure: (err) => void failures.push(err),
    },
    { error: (obj) => void logged.push(obj) },
  );
});
afterAll(async () => {
  await webhook?.close();
  policies?.stop();
  await bus?.dispose();
  expect(failures).toEqual([]);
});

async function validate(body: string): Promise<{ status: number; response: Record<string, unknown> }> {
  const res = await fetch(`http://127.0.0.1:${webhook.port}/validate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  return { status: res.status, response: ((await res.json()) as { response: Record<string, unknown> }).response };
}

/**
 * A client in another process: armed, it sends `body` at the time it is given on its stdin, and prints when it sent
 * and when the answer came (wall clock, as this process reads it).
 */
const CLIENT = `
const [url, body] = process.argv.slice(1);
console.log('armed');
process.stdin.once('data', async (d) => {
  const at = Number(String(d).trim());
  await new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())));
  const sent = Date.now();
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const response = (await res.json()).response;
  console.log(JSON.stringify({ sent, answered: Date.now(), status: res.status, response }));
  process.exit(0);
});`;

describe('the webhook thread', () => {
  it("answers a review while the gateway's thread is busy", async () => {
    const url = `http://127.0.0.1:${webhook.port}/validate`;
    const child = spawn(process.execPath, ['-e', CLIENT, url, reviewOf('busy', deployment('web', 'default', -1))], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    expect((await lines.next()).value).toBe('armed');
    const sendAt = Date.now() + 500;
    child.stdin.write(`${sendAt}\n`);
    // This thread busy from before the client sends until well after: only another thread can answer meanwhile.
    while (Date.now() < sendAt - 100);
    const blockStart = Date.now();
    while (Date.now() < sendAt + 2000);
    const blockEnd = Date.now();
    const got = JSON.parse((await lines.next()).value as string) as {
      sent: number;
      answered: number;
      status: number;
      response: { uid: string; allowed: boolean; status?: { message: string } };
    };
    expect(got.sent).toBeGreaterThanOrEqual(blockStart);
    expect(got.answered).toBeLessThan(blockEnd);
    expect(got.status).toBe(200);
    expect(got.response).toMatchObject({ uid: 'busy', allowed: false });
    expect(got.response.status?.message).toMatch(/spec\.replicas/);
    // Counted and timed on the gateway's registry, as the API port's answers are.
    await expect
      .poll(() => metricSum(registry, 'flotilla_api_requests_total', { operation: 'validate', reason: 'Success' }))
      .toBe(1);
  });

  it("asks the gateway's thread for a template in a reserved namespace, judged by the policies it holds", async () => {
    const cpp = {
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'ClusterPropagationPolicy',
      metadata: { name: 'by-name' },
      spec: { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'sel-web' }] },
    };
    await new ObjectStore(bus).apply(admit(cpp) as StoredObject);
    const selected = deployment('sel-web', 'kube-system', 2, { app: 'sel' });
    await expect
      .poll(async () => (await validate(reviewOf('r', selected))).response.status)
      .toEqual({
        code: 422,
        message:
          'Deployment "sel-web" is invalid: metadata.namespace: Forbidden: namespace "kube-system" is reserved ' +
          '(kube-*, flotilla-system, payments): Flotilla does not propagate from or into it; ' +
          'ClusterPropagationPolicy "by-name" selects this Deployment',
      });
    // One no policy selects is the cluster's own: allowed untouched.
    expect(await validate(reviewOf('r2', deployment('other', 'kube-system', 2, { app: 'other' })))).toEqual({
      status: 200,
      response: { uid: 'r2', allowed: true },
    });
  });

  it("asks the gateway's thread to preview a dry run, and answers a review it cannot read with a 400", async () => {
    const dry = await validate(reviewOf('d', deployment('web', 'default', 2), { dryRun: true }));
    expect(dry).toMatchObject({ status: 200, response: { uid: 'd', allowed: true } });
    const res = await fetch(`http://127.0.0.1:${webhook.port}/validate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"kind":"AdmissionReview"}',
    });
    expect(res.status).toBe(400);
    // The webhook's port serves /validate alone.
    const api = await fetch(`http://127.0.0.1:${webhook.port}/api/get`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"kind":"Deployment","name":"web"}',
    });
    expect(api.status).toBe(404);
    expect(logged).toEqual([]);
  });
});
