import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBus } from '@flotilla/bus/testing';
import { metricSum } from '@flotilla/testkit';
import { publishEvent, readEvents, type Bus } from '@flotilla/bus';
import {
  ApiError,
  BadRequestError,
  ConflictError,
  GatewayClient,
  InvalidError,
  NotFoundError,
  ServiceUnavailableError,
} from '@flotilla/client';
import { KubeEventStore, ObjectStore } from '@flotilla/store';
import { GatewayHandler } from './handler.js';
import { serveNatsApi } from './nats-api.js';
import { serveHttpApi } from './http-api.js';
import { Registry } from 'prom-client';

let bus: Bus & { dispose(): Promise<void> };
let client: GatewayClient;
let stopNats: () => Promise<void>;
let http: { port: number; close(): Promise<void> };
const log = { error: () => undefined };
const registry = new Registry();

beforeAll(async () => {
  bus = await testBus('gw');
  const handler = new GatewayHandler(new ObjectStore(bus), new KubeEventStore(bus), (e) => publishEvent(bus, e));
  stopNats = serveNatsApi(bus, handler, log, registry).stop;
  http = await serveHttpApi(handler, { host: '127.0.0.1', port: 0 }, log);
  client = new GatewayClient(bus.nc, { apiRoot: bus.names.apiRoot });
});
afterAll(async () => {
  await stopNats?.();
  await http?.close();
  await bus?.dispose();
});

const deployment = (name: string, replicas: unknown = 2, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'default' },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
  },
  ...extra,
});

async function rejected(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe('gateway', () => {
  it('creates, reports unchanged, configures, and serves get and list', async () => {
    expect((await client.apply(deployment('web'))).outcome).toBe('created');
    expect((await client.apply(deployment('web'))).outcome).toBe('unchanged');
    const r = await client.apply(deployment('web', 5));
    expect(r.outcome).toBe('configured');
    expect(r.object.metadata).toMatchObject({ generation: 2 });
    expect((await client.get('deploy', 'web')).spec).toMatchObject({ replicas: 5 });
    expect((await client.list('deployments')).items.map((o) => o.metadata.name)).toContain('web');
  });

  it('rejects bad input with a field path and leaves the stored object as it was', async () => {
    await client.apply(deployment('keep', 3));
    const before = await client.get('Deployment', 'keep');
    const cases: Array<[unknown, RegExp]> = [
      [{ apiVersion: 'apps/v1', metadata: { name: 'x' } }, /kind/],
      [{ apiVersion: 'apps/v1', kind: 'Gizmo', metadata: { name: 'x' } }, /Gizmo/],
      [{ apiVersion: 'apps/v2', kind: 'Deployment', metadata: { name: 'keep', namespace: 'default' } }, /apps\/v2/],
      [{ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { namespace: 'default' } }, /metadata\.name/],
      [deployment('Not_A_Name'), /metadata\.name/],
      [deployment('keep', 'three'), /spec\.replicas/],
      [{ ...deployment('keep'), metadata: { name: 'keep', namespace: 'default', colour: 'red' } }, /metadata\.colour/],
    ];
    for (const [obj, message] of cases) {
      const err = await rejected(client.apply(obj));
      expect(err).toSatisfy((e) => e instanceof InvalidError || e instanceof BadRequestError);
      if (err instanceof InvalidError) expect(err.causes.length).toBeGreaterThan(0);
      expect(err.message).toMatch(message);
    }
    expect(await client.get('Deployment', 'keep')).toEqual(before);
  });

  it('refuses a second autoscaler on one workload at spec.scaleTargetRef, naming the first', async () => {
    const fhpa = (name: string, target: string) => ({
      apiVersion: 'autoscaling.karmada.io/v1alpha1',
      kind: 'FederatedHPA',
      metadata: { name, namespace: 'default' },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: target }, maxReplicas: 10 },
    });
    expect((await client.apply(fhpa('first', 'web'))).outcome).toBe('created');
    const err = await rejected(client.apply(fhpa('second', 'web')));
    expect(err.reason).toBe('Invalid');
    expect(err.message).toContain('spec.scaleTargetRef');
    expect(err.message).toContain('already scaled by FederatedHPA default/first');
    // the first one may still be updated, and another workload takes its own
    expect(
      (await client.apply({ ...fhpa('first', 'web'), spec: { ...fhpa('first', 'web').spec, maxReplicas: 12 } }))
        .outcome,
    ).toBe('configured');
    expect((await client.apply(fhpa('second', 'keep'))).outcome).toBe('created');
  });

  it('rejects an object over the size limit', async () => {
    const big = deployment('big', 1, {
      metadata: { name: 'big', namespace: 'default', annotations: { blob: 'x'.repeat(2 * 1024 * 1024) } },
    });
    // Over NATS' 1 MiB payload the request cannot even be sent: the HTTP API shows the gateway's own answer.
    const res = await fetch(`http://127.0.0.1:${http.port}/api/apply`, {
      method: 'POST',
      body: JSON.stringify({ object: big }),
    });
    expect(res.status).toBe(413);
    const { error } = (await res.json()) as { error: { reason: string; message: string } };
    expect(error).toMatchObject({ reason: 'RequestEntityTooLarge', message: expect.stringMatching(/too large/) });
    await expect(client.get('Deployment', 'big')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('answers a stale resourceVersion with a conflict', async () => {
    const a = await client.apply(deployment('occ', 1));
    const rv = a.object.metadata.resourceVersion as string;
    await client.apply({
      ...deployment('occ', 2),
      metadata: { name: 'occ', namespace: 'default', resourceVersion: rv },
    });
    const err = await rejected(
      client.apply({ ...deployment('occ', 9), metadata: { name: 'occ', namespace: 'default', resourceVersion: rv } }),
    );
    expect(err).toBeInstanceOf(ConflictError);
    expect([err.reason, err.status]).toEqual(['Conflict', 409]);
    expect((await client.get('Deployment', 'occ')).spec).toMatchObject({ replicas: 2 });
  });

  it('deletes, publishes ObjectDeleted, and reports NotFound afterwards', async () => {
    await client.apply(deployment('gone'));
    await client.delete('deploy', 'gone');
    const notFound = await rejected(client.get('deploy', 'gone'));
    expect(notFound).toBeInstanceOf(NotFoundError);
    expect([notFound.reason, notFound.status]).toEqual(['NotFound', 404]);
    const types = [];
    for await (const d of readEvents(bus, { filter: { kind: 'Deployment', namespace: 'default', name: 'gone' } }))
      types.push(d.event.type);
    expect(types).toEqual(['io.flotilla.ObjectDeleted']);
  });

  it('a client with no gateway on its subject gets ServiceUnavailable, not a timeout text to parse', async () => {
    const nobody = new GatewayClient(bus.nc, { apiRoot: `${bus.names.apiRoot}-nobody`, timeoutMs: 2000 });
    const err = await rejected(nobody.get('deploy', 'web'));
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect(err.message).toMatch(/gateway is not running/);
  });

  it('counts requests by operation and by the reason of the answer', async () => {
    const count = (operation: string, reason: string) =>
      metricSum(registry, 'flotilla_api_requests_total', { operation, reason });
    const [applied, missing] = [await count('apply', 'Success'), await count('get', 'NotFound')];
    await client.apply(deployment('counted'));
    await rejected(client.get('deploy', 'never-applied'));
    expect([await count('apply', 'Success'), await count('get', 'NotFound')]).toEqual([applied + 1, missing + 1]);
    await rejected(client.call('bogus' as 'get', { kind: 'deploy', name: 'x' }));
    expect(await count('unknown', 'BadRequest')).toBe(1);
  });

  it('serves the HTTP API and a validating admission webhook', async () => {
    const get = await fetch(`http://127.0.0.1:${http.port}/api/get`, {
      method: 'POST',
      body: JSON.stringify({ kind: 'deploy', name: 'web' }),
    });
    expect(get.status).toBe(200);
    const denied = await fetch(`http://127.0.0.1:${http.port}/validate`, {
      method: 'POST',
      body: JSON.stringify({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: { uid: 'u1', object: deployment('web', -1) },
      }),
    });
    const review = (await denied.json()) as {
      response: { uid: string; allowed: boolean; status?: { message: string } };
    };
    expect(review.response).toMatchObject({ uid: 'u1', allowed: false });
    expect(review.response.status?.message).toMatch(/spec\.replicas/);
  });
});
