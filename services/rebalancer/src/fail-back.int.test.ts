// Fail-back's clock across a leader change, and the fleet's budget: real NATS, Redis and status writer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudEvent, publishEvent } from '@flotilla/bus';
import type { ResourceBinding } from '@flotilla/scheduling';
import { eventually } from '@flotilla/testkit';
import type { RebalancerController } from './controller.js';
import { harness, type Harness } from './testing/harness.js';

let h: Harness;

beforeAll(async () => {
  h = await harness('fail-back');
  for (const name of ['member1', 'member2']) {
    await h.apply({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name }, spec: {} });
    await statusPatch({ kind: 'Cluster', name }, 'ClusterStatusReported', {
      conditions: [{ type: 'Ready', status: 'True', reason: 'ClusterReady' }],
      resourceSummary: { allocatable: { cpu: '8', memory: '32Gi', pods: '110' } },
    });
  }
});
afterAll(async () => {
  await h?.dispose();
});

type Ref = { kind: string; namespace?: string; name: string };
let seq = 0;
/** A status as the status writer folds it from an event's statusPatch (as the scheduler's and agents' events do). */
async function statusPatch(ref: Ref, type: string, patch: Record<string, unknown>): Promise<void> {
  await publishEvent(
    h.bus,
    cloudEvent({ id: `test-${++seq}`, source: 'test', type, ...ref, time: new Date(), data: { statusPatch: patch } }),
  );
}

const placement = {
  clusterAffinities: [
    { affinityName: 'primary', clusterNames: ['member1'] },
    { affinityName: 'backup', clusterNames: ['member2'] },
  ],
  replicaScheduling: { replicaSchedulingType: 'Duplicated' },
};

async function policy(name: string, failback: Record<string, unknown>): Promise<void> {
  await h.apply({
    apiVersion: 'policy.karmada.io/v1alpha1',
    kind: 'PropagationPolicy',
    metadata: { name, namespace: 'default' },
    spec: {
      resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', labelSelector: { matchLabels: { p: name } } }],
      placement,
      failover: { failback },
    },
  });
}

/** A binding failed over to the backup group, as the scheduler left it; `hold` is a status.failBack already recorded. */
async function failedOver(name: string, policyName: string, hold?: string): Promise<Ref> {
  const ref = { kind: 'ResourceBinding', namespace: 'default', name: `${name}-deployment` };
  await h.apply({
    apiVersion: 'work.karmada.io/v1alpha2',
    kind: 'ResourceBinding',
    metadata: {
      name: ref.name,
      namespace: ref.namespace,
      annotations: {
        'propagationpolicy.karmada.io/name': policyName,
        'propagationpolicy.karmada.io/namespace': 'default',
      },
    },
    spec: {
      resource: { apiVersion: 'apps/v1', kind: 'Deployment', name, namespace: 'default' },
      replicas: 2,
      clusters: [{ name: 'member2', replicas: 2 }],
      placement,
    },
  });
  await statusPatch(ref, 'BindingScheduled', {
    schedulerObservingAffinityName: 'backup',
    lastScheduledTime: new Date(Date.now() - 60_000).toISOString().replace(/\.\d+Z$/, 'Z'),
    ...(hold ? { failBack: { holdingSince: hold, fromGroup: 'backup', toGroup: 'primary' } } : {}),
  });
  return ref;
}

type FailBackStatus = { failBack?: { holdingSince: string }; lastFailBackTime?: string };
const read = async (ref: Ref) => (await h.store.get(ref)) as ResourceBinding | undefined;
const statusOf = async (ref: Ref) => (await read(ref))?.status as FailBackStatus | undefined;

describe('fail-back keeps its clock in the store', () => {
  let first: RebalancerController | undefined;
  let second: RebalancerController | undefined;
  afterAll(async () => {
    await first?.stop();
    await second?.stop();
  });

  it('a new leader fails back at the deadline of the hold the old leader started, not at a fresh one', async () => {
    // Long enough that a fresh clock (the whole window from the second leader's start) and the recorded one (half a
    // window from it) stay apart by seconds when a busy machine slows every step.
    const WINDOW_MS = 10_000;
    await policy('clock', { enabled: true, stabilizationWindow: `${WINDOW_MS / 1000}s` });
    const ref = await failedOver('clock', 'clock');

    // 1. The first leader sees the primary group able to hold it again and records the hold's start, once.
    first = h.controller({ resyncMs: 1000 });
    await first.start();
    const hold = await eventually(async () => (await statusOf(ref))?.failBack, 10_000, 'the hold recorded');
    const holdingSince = Date.parse(hold.holdingSince);

    // 2. It stops halfway through the window (a leader change); the second one starts from nothing in memory.
    await eventually(async () => Date.now() >= holdingSince + WINDOW_MS / 2 || undefined, 10_000, 'halfway');
    await first.stop();
    first = undefined;
    const secondStartedAt = Date.now();
    second = h.controller({ resyncMs: 1000 });
    await second.start();

    // 3. It fails back at the recorded deadline: a fresh clock would wait the whole window from its start.
    const triggered = await eventually(
      async () => (await read(ref))?.spec.rescheduleTriggeredAt,
      20_000,
      'the fail-back triggered',
    );
    // rescheduleTriggeredAt is when the second leader decided, in whole seconds (floored): at most a second before the
    // recorded deadline, never more; a fresh clock would have decided a whole window after its start.
    expect(Date.parse(triggered)).toBeGreaterThan(holdingSince + WINDOW_MS - 1000);
    expect(Date.parse(triggered)).toBeLessThan(secondStartedAt + WINDOW_MS - 1000);
    const after = await eventually(async () => {
      const s = await statusOf(ref);
      return s?.lastFailBackTime && !s.failBack ? s : undefined;
    }, 10_000);
    expect(after.lastFailBackTime).toBe(triggered);
  }, 60_000);
});

describe('the fleet budget: at most N fail-backs a period, the oldest hold first', () => {
  let leader: RebalancerController | undefined;
  afterAll(async () => {
    await leader?.stop();
  });

  it('three bindings ready at once with a budget of one per 3 s go one by one, oldest hold first', async () => {
    await policy('fleet', { enabled: true, stabilizationWindow: '1s' });
    const t = Date.now();
    const holdAt = (agoMs: number) => new Date(t - agoMs).toISOString();
    // Holds recorded (by an earlier leader): every window has passed, so only the budget orders them.
    const refs = {
      middle: await failedOver('middle', 'fleet', holdAt(20_000)),
      youngest: await failedOver('youngest', 'fleet', holdAt(10_000)),
      oldest: await failedOver('oldest', 'fleet', holdAt(30_000)),
    };
    await eventually(async () => {
      for (const ref of Object.values(refs)) if (!(await statusOf(ref))?.failBack) return undefined;
      return true;
    }, 10_000);

    const PERIOD_MS = 3000;
    leader = h.controller({ resyncMs: 1000, failBackBudget: { max: 1, periodMs: PERIOD_MS } });
    await leader.start();
    const times: Record<string, number> = {};
    await eventually(
      async () => {
        for (const [name, ref] of Object.entries(refs)) {
          const at = (await read(ref))?.spec.rescheduleTriggeredAt;
          if (at) times[name] = Date.parse(at);
        }
        return Object.keys(times).length === 3 || undefined;
      },
      30_000,
      'all three failed back',
    );
    const order = Object.keys(times).sort((a, b) => times[a]! - times[b]!);
    expect(order).toEqual(['oldest', 'middle', 'youngest']);
    // Whole seconds, floored: a period apart at least, less the second the flooring may take.
    expect(times.middle! - times.oldest!).toBeGreaterThanOrEqual(PERIOD_MS - 1000);
    expect(times.youngest! - times.middle!).toBeGreaterThanOrEqual(PERIOD_MS - 1000);
  }, 60_000);
});
