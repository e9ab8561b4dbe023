import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBus } from '@flotilla/bus/testing';
import { metricSum, NATS_URL } from '@flotilla/testkit';
import { publishEvent, readEvents, type Bus } from '@flotilla/bus';
import {
  ApiError,
  BadRequestError,
  ConflictError,
  GatewayClient,
  InvalidError,
  NotFoundError,
  ServiceUnavailableError,
  TimeoutError,
} from '@flotilla/client';
import { connectBus } from '@flotilla/bus';
import { AdmissionError, ReservedNamespaces } from '@flotilla/api';
import {
  InformedSpecs,
  Informers,
  KubeEventStore,
  ObjectStore,
  replicaWriterSpecs,
  SPEC_CATCH_UP_MS,
} from '@flotilla/store';
import type { ApiErrorBody } from '@flotilla/client';
import { GatewayHandler } from './handler.js';
import { serveNatsApi } from './nats-api.js';
import { serveHttpApi } from './http-api.js';
import { POLICY_KINDS, POLICY_SELECTOR_PROJECTION } from './reserved-template.js';
import { Registry } from 'prom-client';

let bus: Bus & { dispose(): Promise<void> };
let client: GatewayClient;
let stopNats: () => Promise<void>;
let http: { port: number; close(): Promise<void> };
/** The conflict checks' informers of each gateway replica started here. */
const specsToStop: Array<{ stop(): void }> = [];
/** What the gateway logged as failures it did not expect (Internal errors, with their stack). */
const logged: unknown[] = [];
const log = { error: (obj: object) => void logged.push(obj) };
const registry = new Registry();
let handler: GatewayHandler;
/** POST bodies of the HTTP API are JSON, declared so (a body of another type is refused unread). */
const JSON_BODY = { 'content-type': 'application/json' };

beforeAll(async () => {
  bus = await testBus('gw');
  const store = new ObjectStore(bus);
  // As main.ts wires it: the conflict checks read informers that are never older than the store.
  const specs = replicaWriterSpecs({ bus, informers: new Informers({ bus }), store, registry });
  await specs.start();
  specsToStop.push(specs);
  handler = new GatewayHandler({
    store,
    specs,
    kubeEvents: new KubeEventStore(bus),
    publish: (e) => publishEvent(bus, e),
  });
  stopNats = serveNatsApi(bus, handler, log, registry).stop;
  http = await serveHttpApi(handler, { host: '127.0.0.1', port: 0 }, log);
  client = new GatewayClient(bus.nc, { apiRoot: bus.names.apiRoot });
});
afterAll(async () => {
  for (const s of specsToStop) s.stop();
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

  it('refuses a conflict with what another gateway replica admitted a moment before, from its informers', async () => {
    // Replica B: a process of its own (its own NATS connection, informers and handler) on the same buckets.
    const busB = await connectBus({ url: NATS_URL, prefix: bus.names.prefix, name: 'gateway-b' });
    const registryB = new Registry();
    const storeB = new ObjectStore(busB);
    const specsB = replicaWriterSpecs({
      bus: busB,
      informers: new Informers({ bus: busB }),
      store: storeB,
      registry: registryB,
    });
    await specsB.start();
    try {
      const b = new GatewayHandler({
        store: storeB,
        specs: specsB,
        kubeEvents: new KubeEventStore(busB),
        publish: async () => undefined,
      });
      const target = (name: string) => ({ apiVersion: 'apps/v1', kind: 'Deployment', name });
      for (let i = 0; i < 10; i++) {
        // Replica A (client) admits a FederatedHPA; B, asked right after, refuses a second autoscaler and a
        // CronFederatedHPA on the same workload.
        await client.apply({
          apiVersion: 'autoscaling.karmada.io/v1alpha1',
          kind: 'FederatedHPA',
          metadata: { name: `a-${i}`, namespace: 'replicas' },
          spec: { scaleTargetRef: target(`w-${i}`), maxReplicas: 10 },
        });
        const ehpa = b.apply({
          object: {
            apiVersion: 'autoscaling.crane.io/v1alpha1',
            kind: 'EffectiveHorizontalPodAutoscaler',
            metadata: { name: `b-${i}`, namespace: 'replicas' },
            spec: { scaleTargetRef: target(`w-${i}`), minReplicas: 1, maxReplicas: 4 },
          },
        });
        await expect(ehpa).rejects.toThrow(`already scaled by FederatedHPA replicas/a-${i}`);
        const cron = b.apply({
          object: {
            apiVersion: 'autoscaling.karmada.io/v1alpha1',
            kind: 'CronFederatedHPA',
            metadata: { name: `c-${i}`, namespace: 'replicas' },
            spec: {
              scaleTargetRef: target(`w-${i}`),
              rules: [{ name: 'up', schedule: '0 8 * * *', targetReplicas: 3 }],
            },
          },
        });
        await expect(cron).rejects.toThrow(`its spec.replicas is written by FederatedHPA replicas/a-${i}`);
      }
      expect(await storeB.listSpecs('EffectiveHorizontalPodAutoscaler', 'replicas')).toEqual([]);
      expect(await storeB.listSpecs('CronFederatedHPA', 'replicas')).toEqual([]);
      // Answered from B's cache, not by listing the store: per round, the EffectiveHPA's check reads the three
      // replica-writer kinds, the CronFederatedHPA's the two autoscaler kinds.
      expect(await metricSum(registryB, 'flotilla_spec_reads_total', { source: 'cache' })).toBe(50);
      expect(await metricSum(registryB, 'flotilla_spec_reads_total', { source: 'store' })).toBe(0);
    } finally {
      specsB.stop();
      await busB.close();
    }
  });

  it('an apply kept back again publishes again, each restarting the hold of the autoscaler condition', async () => {
    // A handler with its own clock on the same bus: two applies a few minutes apart leave the object as it was.
    let now = new Date('2026-05-04T08:00:00Z');
    const handler = new GatewayHandler({
      store: new ObjectStore(bus),
      kubeEvents: new KubeEventStore(bus),
      publish: (e) => publishEvent(bus, e),
      now: () => now,
    });
    await handler.apply({ object: deployment('kept', 3) });
    await handler.apply({
      object: {
        apiVersion: 'autoscaling.karmada.io/v1alpha1',
        kind: 'FederatedHPA',
        metadata: { name: 'kept', namespace: 'default' },
        spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'kept' }, maxReplicas: 10 },
      },
    });
    const first = await handler.apply({ object: deployment('kept', 5) }, { name: 'alice', via: 'http' });
    now = new Date('2026-05-04T08:07:00Z');
    const again = await handler.apply({ object: deployment('kept', 5) }, { name: 'alice', via: 'http' });
    expect([first.outcome, again.outcome, (again.object.spec as { replicas: number }).replicas]).toEqual([
      'unchanged',
      'unchanged',
      3,
    ]);
    const conflicts: Array<{ time: string; data: unknown }> = [];
    for await (const d of readEvents(bus, { filter: { kind: 'FederatedHPA', namespace: 'default', name: 'kept' } }))
      if (d.event.type.endsWith('.ReplicaOwnerConflict')) conflicts.push({ time: d.event.time, data: d.event.data });
    expect(conflicts).toEqual(
      ['2026-05-04T08:00:00.000Z', '2026-05-04T08:07:00.000Z'].map((time) => ({
        time,
        data: expect.objectContaining({
          workload: 'Deployment/kept',
          caller: 'alice',
          via: 'http',
          statusPatch: {
            conditions: [expect.objectContaining({ reason: 'AppliedReplicasRetained', lastUpdateTime: time })],
          },
        }),
      })),
    );
    const applied: string[] = [];
    for await (const d of readEvents(bus, { filter: { kind: 'Deployment', namespace: 'default', name: 'kept' } }))
      if (d.event.type.endsWith('.ReplicasApplied')) applied.push(d.event.time);
    expect(applied).toHaveLength(3);
  });

  it('rejects an object over the size limit', async () => {
    const big = deployment('big', 1, {
      metadata: { name: 'big', namespace: 'default', annotations: { blob: 'x'.repeat(2 * 1024 * 1024) } },
    });
    // Over NATS' 1 MiB payload the request cannot even be sent: the HTTP API shows the gateway's own answer.
    const res = await fetch(`http://127.0.0.1:${http.port}/api/apply`, {
      method: 'POST',
      headers: JSON_BODY,
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

  it('deletes, publishes ObjectDeleted, and reports NotFound afterwards (after the replica record of the apply)', async () => {
    await client.apply(deployment('gone'));
    await client.delete('deploy', 'gone');
    const notFound = await rejected(client.get('deploy', 'gone'));
    expect(notFound).toBeInstanceOf(NotFoundError);
    expect([notFound.reason, notFound.status]).toEqual(['NotFound', 404]);
    const types = [];
    for await (const d of readEvents(bus, { filter: { kind: 'Deployment', namespace: 'default', name: 'gone' } }))
      types.push(d.event.type);
    expect(types).toEqual(['io.flotilla.ReplicasApplied', 'io.flotilla.ObjectDeleted']);
  });

  it('refuses objects in a reserved namespace (the defaults and RESERVED_NAMESPACES), and still deletes one stored before', async () => {
    const reserved = new GatewayHandler({
      store: new ObjectStore(bus),
      kubeEvents: new KubeEventStore(bus),
      publish: (e) => publishEvent(bus, e),
      reservedNamespaces: ReservedNamespaces.parse('payments,tenant-*'),
    });
    const rule = 'kube-*, flotilla-system, payments, tenant-*';
    for (const namespace of ['kube-system', 'flotilla-system', 'payments', 'tenant-a']) {
      const obj = { ...deployment('web'), metadata: { name: 'web', namespace } };
      const err = await reserved.apply({ object: obj }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, namespace).toBeInstanceOf(AdmissionError);
      expect((err as AdmissionError).causes).toEqual([
        {
          field: 'metadata.namespace',
          message: `Forbidden: namespace "${namespace}" is reserved (${rule}): Flotilla does not propagate from or into it`,
        },
      ]);
    }
    // The handler the NATS API serves takes the defaults: kube-system refused, payments not.
    const viaNats = await rejected(
      client.apply({ ...deployment('web'), metadata: { name: 'web', namespace: 'kube-system' } }),
    );
    expect(viaNats).toBeInstanceOf(InvalidError);
    expect(viaNats.message).toMatch(/metadata\.namespace: Forbidden: namespace "kube-system" is reserved/);
    // An object stored before the rule (written to the store directly here) is refused an update, and can be deleted.
    const before = { ...deployment('legacy'), metadata: { name: 'legacy', namespace: 'kube-system' } };
    await new ObjectStore(bus).apply(before as never);
    const update = await rejected(client.apply({ ...before, spec: { ...before.spec, replicas: 7 } }));
    expect(update.message).toMatch(/metadata\.namespace: Forbidden/);
    await client.delete('deploy', 'legacy', 'kube-system');
    expect(await rejected(client.get('deploy', 'legacy', 'kube-system'))).toBeInstanceOf(NotFoundError);
  });

  it('judges in the webhook with RESERVED_NAMESPACES, and a template in a reserved namespace by the policies Flotilla holds', async () => {
    // As main.ts wires it: the policies are read from informers never older than the store.
    const store = new ObjectStore(bus);
    const policies = new InformedSpecs({
      bus,
      informers: new Informers({ bus }),
      store,
      kinds: POLICY_KINDS,
      projection: POLICY_SELECTOR_PROJECTION,
      catchUpMs: SPEC_CATCH_UP_MS,
    });
    await policies.start();
    specsToStop.push(policies);
    const reserved = new GatewayHandler({
      store,
      policies,
      kubeEvents: new KubeEventStore(bus),
      publish: (e) => publishEvent(bus, e),
      reservedNamespaces: ReservedNamespaces.parse('payments'),
    });
    const served = await serveHttpApi(reserved, { host: '127.0.0.1', port: 0 }, log);
    const validate = async (object: unknown, oldObject?: unknown) => {
      const res = await fetch(`http://127.0.0.1:${served.port}/validate`, {
        method: 'POST',
        headers: JSON_BODY,
        body: JSON.stringify({
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          request: { uid: 'r', object, ...(oldObject ? { oldObject } : {}) },
        }),
      });
      expect(res.status).toBe(200);
      return (
        (await res.json()) as { response: { allowed: boolean; status?: { message: string }; warnings?: string[] } }
      ).response;
    };
    const rule = (ns: string) =>
      `metadata.namespace: Forbidden: namespace "${ns}" is reserved (kube-*, flotilla-system, payments): Flotilla does not propagate from or into it`;
    const labelled = (namespace: string, labels: Record<string, string>) => {
      const d = deployment('sel-web');
      return { ...d, metadata: { name: 'sel-web', namespace, labels } };
    };
    try {
      // The configured list reaches the webhook, as it reaches an apply.
      const policy = {
        apiVersion: 'policy.karmada.io/v1alpha1',
        kind: 'PropagationPolicy',
        metadata: { name: 'pay', namespace: 'payments' },
        spec: { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }] },
      };
      expect(await validate(policy)).toMatchObject({
        allowed: false,
        status: { message: `PropagationPolicy "pay" is invalid: ${rule('payments')}` },
      });
      // A template in a reserved namespace that no policy selects is the cluster's own: allowed untouched.
      expect(await validate(labelled('kube-system', { app: 'sel' }))).toEqual({ uid: 'r', allowed: true });
      await client.apply({
        apiVersion: 'policy.karmada.io/v1alpha1',
        kind: 'ClusterPropagationPolicy',
        metadata: { name: 'all-sel' },
        spec: {
          resourceSelectors: [
            { apiVersion: 'apps/v1', kind: 'Deployment', labelSelector: { matchLabels: { app: 'sel' } } },
          ],
        },
      });
      // Once a policy Flotilla holds selects it, it is refused, the rule and the policy named.
      for (const ns of ['kube-system', 'payments'])
        expect(await validate(labelled(ns, { app: 'sel' })), ns).toMatchObject({
          allowed: false,
          status: {
            message: `Deployment "sel-web" is invalid: ${rule(ns)}; ClusterPropagationPolicy "all-sel" selects this Deployment`,
          },
        });
      expect(await validate(labelled('kube-system', { app: 'other' }))).toEqual({ uid: 'r', allowed: true });
      // An update of one the policy selected before passes, with the rule as a warning.
      const update = await validate(
        labelled('kube-system', { app: 'sel', v: '2' }),
        labelled('kube-system', { app: 'sel' }),
      );
      expect(update).toMatchObject({
        allowed: true,
        warnings: [expect.stringMatching(/^metadata\.namespace: namespace "kube-system" is reserved/)],
      });
      // Elsewhere a Deployment is judged by Flotilla's admission, as before.
      expect((await validate(deployment('bad', -1))).status?.message).toMatch(/spec\.replicas/);
    } finally {
      await served.close();
      const stored = await client.get('cpp', 'all-sel').catch(() => undefined);
      if (stored) await client.delete('cpp', 'all-sel', undefined, stored.metadata.resourceVersion as string);
    }
  });

  it('a client with no gateway on its subject gets ServiceUnavailable, not a timeout text to parse', async () => {
    const nobody = new GatewayClient(bus.nc, { apiRoot: `${bus.names.apiRoot}-nobody`, timeoutMs: 2000 });
    const err = await rejected(nobody.get('deploy', 'web'));
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect(err.message).toMatch(/gateway is not running/);
  });

  it('answers a store that did not answer in time with Timeout and a retry hint, which the client retries', async () => {
    // A real NATS timeout: a request to a subscriber that never answers.
    const silent = bus.nc.subscribe(`${bus.names.prefix}.silent`);
    const timedOut = await bus.nc.request(`${bus.names.prefix}.silent`, '', { timeout: 50 }).catch((e: unknown) => e);
    silent.unsubscribe();
    let asked = 0;
    const store = new ObjectStore(bus);
    const busyStore = Object.assign(Object.create(store) as ObjectStore, {
      mustGet: async () => {
        asked++;
        throw new Error('reading the object', { cause: timedOut });
      },
    });
    const busy = new GatewayHandler({
      store: busyStore,
      specs: store,
      kubeEvents: new KubeEventStore(bus),
      publish: (e) => publishEvent(bus, e),
    });
    const api = serveNatsApi({ ...bus, names: { ...bus.names, apiRoot: `${bus.names.apiRoot}-busy` } }, busy, log);
    const busyHttp = await serveHttpApi(busy, { host: '127.0.0.1', port: 0 }, log);
    try {
      const waits: number[] = [];
      const retrying = new GatewayClient(bus.nc, {
        apiRoot: `${bus.names.apiRoot}-busy`,
        retry: { attempts: 3 },
        sleep: async (ms) => void waits.push(ms),
      });
      const err = await rejected(retrying.get('deploy', 'web'));
      expect(err).toBeInstanceOf(TimeoutError);
      expect(err).toMatchObject({ reason: 'Timeout', status: 504, retryAfterSeconds: 1 });
      expect(asked).toBe(3);
      expect(waits.every((ms) => ms >= 1000)).toBe(true);
      const res = await fetch(`http://127.0.0.1:${busyHttp.port}/api/get`, {
        method: 'POST',
        headers: JSON_BODY,
        body: JSON.stringify({ kind: 'deploy', name: 'web' }),
      });
      expect(res.status).toBe(504);
      expect(res.headers.get('retry-after')).toBe('1');
    } finally {
      await api.stop();
      await busyHttp.close();
    }
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

  it("a mirror's identity: a new object takes the given uid and creationTimestamp, an existing one keeps its own", async () => {
    const identity = { uid: '6f1d2a4e-0000-4000-8000-000000000001', creationTimestamp: '2026-11-27T10:00:00Z' };
    const created = await client.apply(deployment('mirrored'), { identity });
    expect(created.object.metadata).toMatchObject(identity);
    const again = await client.apply(deployment('mirrored', 4), {
      identity: { uid: '6f1d2a4e-0000-4000-8000-000000000002', creationTimestamp: '2026-11-27T11:00:00Z' },
    });
    expect(again.outcome).toBe('configured');
    expect(again.object.metadata).toMatchObject(identity);
    const cases: Array<[unknown, string[]]> = [
      [{ uid: '', creationTimestamp: '2026-11-27T10:00:00Z' }, ['identity.uid']],
      [{ uid: 'u', creationTimestamp: 'yesterday' }, ['identity.creationTimestamp']],
      [{ uid: 'u', creationTimestamp: '2026-11-27T10:00:00Z', generation: 3 }, ['identity.generation']],
      ['u', ['identity']],
    ];
    for (const [bad, fields] of cases) {
      const err = await rejected(client.call('apply', { object: deployment('never'), identity: bad as never }));
      expect(err).toBeInstanceOf(BadRequestError);
      expect(err.causes?.map((c) => c.field)).toEqual(fields);
    }
    await expect(client.get('Deployment', 'never')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('warns about an apiVersion a referenced kind is not served as, in apply replies and in the webhook', async () => {
    const cron = {
      apiVersion: 'autoscaling.karmada.io/v1alpha1',
      kind: 'CronFederatedHPA',
      metadata: { name: 'app-v1', namespace: 'default' },
      spec: {
        scaleTargetRef: { apiVersion: 'app/v1', kind: 'Deployment', name: 'shop' },
        rules: [{ name: 'up', schedule: '30 08 * * *', targetReplicas: 10 }],
      },
    };
    const warning =
      'spec.scaleTargetRef.apiVersion: unknown apiVersion "app/v1" for kind Deployment (served as apps/v1); accepted as written';
    expect((await client.apply(cron, { dryRun: true })).warnings).toEqual([warning]);
    const res = await fetch(`http://127.0.0.1:${http.port}/validate`, {
      method: 'POST',
      headers: JSON_BODY,
      body: JSON.stringify({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: { uid: 'u2', object: cron },
      }),
    });
    const review = (await res.json()) as { response: { allowed: boolean; warnings?: string[] } };
    expect(review.response).toEqual({ uid: 'u2', allowed: true, warnings: [warning] });
  });

  it('serves the HTTP API and a validating admission webhook, whose answers it counts and times', async () => {
    const webhookRegistry = new Registry();
    const served = await serveHttpApi(handler, { host: '127.0.0.1', port: 0, registry: webhookRegistry }, log);
    try {
      const get = await fetch(`http://127.0.0.1:${served.port}/api/get`, {
        method: 'POST',
        headers: JSON_BODY,
        body: JSON.stringify({ kind: 'deploy', name: 'web' }),
      });
      expect(get.status).toBe(200);
      const denied = await fetch(`http://127.0.0.1:${served.port}/validate`, {
        method: 'POST',
        headers: JSON_BODY,
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
      const malformed = await fetch(`http://127.0.0.1:${served.port}/validate`, {
        method: 'POST',
        headers: JSON_BODY,
        body: '{}',
      });
      expect(malformed.status).toBe(400);
      // A denial is an answer like any other (Success); a review the gateway cannot read is a BadRequest.
      const answers = (reason: string) =>
        metricSum(webhookRegistry, 'flotilla_api_requests_total', { operation: 'validate', reason });
      expect([await answers('Success'), await answers('BadRequest')]).toEqual([1, 1]);
      expect(await webhookRegistry.metrics()).toContain(
        'flotilla_api_request_duration_seconds_count{operation="validate"} 2',
      );
    } finally {
      await served.close();
    }
  });
});

/** Names Kubernetes refuses; each reached a KV key or a NATS subject before it was checked. */
const BAD_NAMES: Array<[title: string, name: string]> = [
  ['non-ASCII letter', 'nginx-ü'],
  ['emoji', '🚀'],
  ['empty', ''],
  ['empty DNS label', 'a..b'],
  ['leading dot', '.hidden'],
  ['subject wildcards', 'a.*.>'],
];

/** The raw reply to `op` with `body` exactly as given (bytes, or a value sent as JSON), over NATS. */
async function rawNats(op: string, body: unknown): Promise<{ ok: boolean; error?: ApiErrorBody }> {
  const payload = body instanceof Uint8Array ? body : JSON.stringify(body);
  const msg = await bus.nc.request(`${bus.names.apiRoot}.cli.${op}`, payload, { timeout: 5000 });
  return msg.json();
}

/** The status and reply of a POST to the HTTP API with `body` as given. */
interface HttpReply {
  status: number;
  reply: { error: ApiErrorBody & { causes: unknown[] } };
}
async function rawHttp(path: string, body: string): Promise<HttpReply> {
  const res = await fetch(`http://127.0.0.1:${http.port}${path}`, { method: 'POST', headers: JSON_BODY, body });
  return { status: res.status, reply: (await res.json()) as HttpReply['reply'] };
}

describe('gateway: strict input at the front door', () => {
  it.each(BAD_NAMES)(
    'get, delete and apply refuse the name %s naming the field, logging no internal error',
    async (_t, name) => {
      const before = logged.length;
      for (const op of ['get', 'delete'] as const) {
        const err = await rejected(client.call(op, { kind: 'deploy', name }));
        expect(err).toBeInstanceOf(BadRequestError);
        expect(err.causes).toEqual([{ field: 'name', message: expect.any(String) }]);
      }
      const applied = await rejected(client.apply(deployment(name)));
      expect(applied).toBeInstanceOf(InvalidError);
      expect(applied.causes.map((c) => c.field)).toContain('metadata.name');
      expect(logged.length).toBe(before);
    },
  );

  it('a name of non-UTF-8 bytes is refused, not stored under a mangled key', async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"kind":"deploy","name":"a'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}'),
    ]);
    const reply = await rawNats('get', new Uint8Array(bytes));
    expect(reply.error).toMatchObject({ reason: 'BadRequest', causes: [{ field: 'name' }] });
  });

  it.each<[title: string, op: string, body: Record<string, unknown>, field: string]>([
    ['list in namespace "*"', 'list', { kind: 'deploy', namespace: '*' }, 'namespace'],
    ['list in namespace ">"', 'list', { kind: 'deploy', namespace: '>' }, 'namespace'],
    ['get in namespace ../etc', 'get', { kind: 'deploy', name: 'web', namespace: '../etc' }, 'namespace'],
    ['delete in namespace ../etc', 'delete', { kind: 'deploy', name: 'web', namespace: '../etc' }, 'namespace'],
    ['events in namespace ../etc', 'events', { namespace: '../etc' }, 'namespace'],
    ['events for the name a.*.>', 'events', { kind: 'deploy', name: 'a.*.>' }, 'name'],
    ['get with kind 123', 'get', { kind: 123, name: 'web' }, 'kind'],
    ['list with kind 123', 'list', { kind: 123 }, 'kind'],
    ['list with no kind', 'list', {}, 'kind'],
    ['get with name 7', 'get', { kind: 'deploy', name: 7 }, 'name'],
    ['apply with dryRun "yes"', 'apply', { object: deployment('dry'), dryRun: 'yes' }, 'dryRun'],
    ['apply with no object', 'apply', {}, 'object'],
    ['delete with resourceVersion 5', 'delete', { kind: 'deploy', name: 'web', resourceVersion: 5 }, 'resourceVersion'],
  ])('%s is a BadRequest naming the field, over NATS and HTTP', async (_t, op, body, field) => {
    const before = logged.length;
    const nats = await rawNats(op, body);
    expect(nats.error).toMatchObject({ reason: 'BadRequest', causes: [expect.objectContaining({ field })] });
    const { status, reply } = await rawHttp(`/api/${op}`, JSON.stringify(body));
    expect([status, reply.error]).toEqual([400, nats.error]);
    expect(logged.length).toBe(before);
  });

  it('a dry run with dryRun "yes" stores nothing', async () => {
    await rawNats('apply', { object: deployment('not-dry'), dryRun: 'yes' });
    await expect(client.get('deploy', 'not-dry')).rejects.toBeInstanceOf(NotFoundError);
  });

  it.each<[title: string, object: unknown]>([
    ['a name with a subject wildcard', deployment('a.*.>')],
    ['a namespace ../etc', { ...deployment('web'), metadata: { name: 'web', namespace: '../etc' } }],
    [
      '3,000 levels of nesting',
      deployment('deep', 1, { extra: JSON.parse(`${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`) }),
    ],
    [
      'a __proto__ label',
      { ...deployment('proto'), metadata: JSON.parse('{"name":"proto","labels":{"__proto__":"x"}}') },
    ],
  ])('apply over HTTP answers 422 for %s, without an internal error', async (_t, object) => {
    const before = logged.length;
    const { status, reply } = await rawHttp('/api/apply', JSON.stringify({ object }));
    expect([status, reply.error.reason]).toEqual([422, 'Invalid']);
    expect(reply.error.causes.length).toBeGreaterThan(0);
    expect(logged.length).toBe(before);
  });

  it('a body over 4 MiB is answered 413, not with a connection reset', async () => {
    const { status, reply } = await rawHttp('/api/apply', 'x'.repeat(5 * 1024 * 1024));
    expect([status, reply.error.reason]).toEqual([413, 'RequestEntityTooLarge']);
  });

  it.each<[title: string, body: string]>([
    ['null', 'null'],
    ['a number', '42'],
    ['a review without request', '{"kind":"AdmissionReview"}'],
    ['a request that is a string', '{"request":"x"}'],
  ])('/validate with %s is a 400 naming what is missing, not a 500', async (_t, body) => {
    const { status, reply } = await rawHttp('/validate', body);
    expect([status, reply.error.reason]).toEqual([400, 'BadRequest']);
    expect(reply.error.message).toMatch(/request/);
  });
});
