import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishEvent, readEvents } from '@flotilla/bus';
import { KubeEventStore } from '@flotilla/store';
import { afterWholeSecond, eventually } from '@flotilla/testkit';
import type { RebalancerController } from './controller.js';
import { bindingFor, deployment, harness, rebalancer, workload, type Harness } from './testing/harness.js';

let h: Harness;
let controller: RebalancerController;

beforeAll(async () => {
  h = await harness('rebalancer');
  controller = h.controller();
  await controller.start();
});
afterAll(async () => {
  await h?.dispose();
});

const rbRef = (name: string) => ({ kind: 'WorkloadRebalancer', name });
const triggeredAt = async (name: string, namespace = 'default') =>
  (
    (await h.store.get({ kind: 'ResourceBinding', namespace, name: `${name}-deployment` }))?.spec as
      | { rescheduleTriggeredAt?: string }
      | undefined
  )?.rescheduleTriggeredAt;
type Status = {
  observedWorkloads?: Array<{ workload: { name: string }; result?: string; reason?: string }>;
  finishTime?: string;
  observedGeneration?: number;
};
const statusOf = async (name: string) => (await h.store.get(rbRef(name)))?.status as Status | undefined;
const finished = (name: string, check: (s: Status) => boolean = () => true) =>
  eventually(
    async () => {
      const s = await statusOf(name);
      return s?.finishTime && check(s) ? s : undefined;
    },
    10_000,
    `${name} finished`,
  );
const results = (s: Status) => s.observedWorkloads?.map((o) => [o.workload.name, o.result ?? '', o.reason ?? '']);

describe('rebalancer (in-process, real NATS, Redis and status writer)', () => {
  it('triggers each binding with the creationTimestamp, records results through the status writer, with events', async () => {
    await h.apply(bindingFor('demo-1'));
    await h.apply(bindingFor('demo-3', 'default', { rescheduleTriggeredAt: '2099-01-01T00:00:00Z' }));
    const rb = await h.apply(rebalancer('demo', [workload('demo-3'), workload('demo-2'), workload('demo-1')]));
    const s = await finished('demo');
    expect(results(s)).toEqual([
      ['demo-1', 'Successful', ''],
      ['demo-2', 'Failed', 'ReferencedBindingNotFound'],
      ['demo-3', 'Successful', ''],
    ]);
    expect(s.observedGeneration).toBe(1);
    expect(await triggeredAt('demo-1')).toBe(rb.metadata.creationTimestamp);
    // already later: left alone, still Successful
    expect(await triggeredAt('demo-3')).toBe('2099-01-01T00:00:00Z');
    const events = new KubeEventStore(h.bus);
    const onRebalancer = await eventually(async () => {
      const e = await events.list({ kind: 'WorkloadRebalancer', name: 'demo' });
      return e.length >= 3 ? e : undefined;
    });
    expect(onRebalancer.map((e) => [e.type, e.reason]).sort()).toEqual([
      ['Normal', 'RebalanceTriggered'],
      ['Warning', 'RebalanceFinished'],
      ['Warning', 'ReferencedBindingNotFound'],
    ]);
    const onWorkload = await eventually(
      async () => (await events.list({ kind: 'Deployment', namespace: 'default', name: 'demo-1' }))[0],
    );
    expect(onWorkload).toMatchObject({ reason: 'RescheduleTriggered', source: { component: 'rebalancer' } });
    expect(onWorkload.message).toContain('WorkloadRebalancer demo');
  });

  it('a Failed workload whose binding appears while the rebalancer lists it becomes Successful, and finishTime moves', async () => {
    await h.apply(rebalancer('late', [workload('late-1')]));
    const first = await finished('late');
    expect(results(first)).toEqual([['late-1', 'Failed', 'ReferencedBindingNotFound']]);
    await afterWholeSecond(first.finishTime!); // finishTime is whole seconds: the next one must be later
    await h.apply(bindingFor('late-1'));
    // The status writer folds RebalanceTriggered and RebalanceFinished one at a time: wait for both.
    const later = await finished(
      'late',
      (s) => s.observedWorkloads?.[0]?.result === 'Successful' && s.finishTime !== first.finishTime,
    );
    expect(Date.parse(later.finishTime!)).toBeGreaterThan(Date.parse(first.finishTime!));
    expect(await triggeredAt('late-1')).toBeDefined();
  });

  it('a binding of another apiVersion under the generated name is not rebalanced', async () => {
    await h.apply(bindingFor('beta', 'default', { apiVersion: 'apps/v1beta2' }));
    await h.apply(rebalancer('wrong-version', [workload('beta')]));
    expect(results(await finished('wrong-version'))).toEqual([['beta', 'Failed', 'ReferencedBindingNotFound']]);
    expect(await triggeredAt('beta')).toBeUndefined();
  });

  it('workloadSelectors resolve to the labelled templates when the spec is observed', async () => {
    for (const n of ['sel-a', 'sel-b', 'sel-c']) {
      await h.apply(deployment(n, 'shop', n === 'sel-c' ? { tier: 'db' } : { tier: 'web' }));
      await h.apply(bindingFor(n, 'shop'));
    }
    await h.apply({
      ...rebalancer('by-label', []),
      spec: { workloadSelectors: [{ namespace: 'shop', labelSelector: { matchLabels: { tier: 'web' } } }] },
    });
    const s = await finished('by-label');
    expect(results(s)).toEqual([
      ['sel-a', 'Successful', ''],
      ['sel-b', 'Successful', ''],
    ]);
    expect(await triggeredAt('sel-c', 'shop')).toBeUndefined();
  });

  it("a workload's event that failed to publish is published by the pass retried, before the status says Successful", async () => {
    // Its own controller, whose first publish of one workload's event fails (a busy NATS timing out).
    const own = await harness('rebalancer-publish');
    try {
      await own.apply(bindingFor('lossy-1'));
      await own.apply(bindingFor('lossy-2'));
      let failed = 0;
      const c = own.controller({
        publish: async (e) => {
          if (e.type.endsWith('WorkloadRescheduleTriggered') && e.subject?.endsWith('lossy-2') && failed++ === 0)
            throw new Error('TIMEOUT');
          return publishEvent(own.bus, e);
        },
      });
      await c.start();
      await own.apply(rebalancer('lossy', [workload('lossy-1'), workload('lossy-2')]));
      const names = async () => {
        const seen = new Set<string>();
        for await (const d of readEvents(own.bus, {
          filter: { kind: 'Deployment', namespace: 'default', type: 'WorkloadRescheduleTriggered' },
        }))
          seen.add(d.event.flotillaname);
        return seen;
      };
      await eventually(
        async () =>
          ((await own.store.get(rbRef('lossy')))?.status as Status | undefined)?.finishTime ? true : undefined,
        10_000,
        'lossy finished',
      );
      expect(failed).toBeGreaterThan(1);
      expect([...(await names())].sort()).toEqual(['lossy-1', 'lossy-2']);
    } finally {
      await own.dispose();
    }
  });

  it('TTL 0 deletes as soon as it finishes; the bindings keep their trigger', async () => {
    await h.apply(bindingFor('zero-1'));
    const rb = await h.apply(rebalancer('at-once', [workload('zero-1')], { ttlSecondsAfterFinished: 0 }));
    await eventually(async () => ((await h.store.get(rbRef('at-once'))) ? undefined : true), 8000, 'the delete');
    expect(await triggeredAt('zero-1')).toBe(rb.metadata.creationTimestamp);
  });
});
