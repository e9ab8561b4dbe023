import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Bus } from '@flotilla/bus';
import { testBus } from '@flotilla/bus/testing';
import { ManualClock } from '@flotilla/runtime';
import { Informers } from '@flotilla/store';
import { eventually, metricSum } from '@flotilla/testkit';
import { Registry } from 'prom-client';
import type { AgentLogger } from '../agent-projections.js';
import { SimulatedMember } from '../sim/simulated-member.js';
import { ClusterStatusController } from './cluster-status-controller.js';

const logger: AgentLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };
const LEASE_KEY = 'Cluster._.m1';

describe('ClusterStatusController against a simulated member API server', () => {
  let bus: Bus & { dispose(): Promise<void> };
  let informers: Informers;
  let controller: ClusterStatusController | undefined;
  let member: SimulatedMember;
  let clock: ManualClock;
  let registry: Registry;
  let calls: { readinessChanges: number; answersAgain: number };

  beforeEach(async () => {
    bus = await testBus('cluster-status-controller');
    registry = new Registry();
    informers = new Informers({ bus, registry });
    clock = new ManualClock(new Date('2026-12-07T00:00:00.000Z'));
    member = new SimulatedMember({ cluster: 'm1', clock });
    calls = { readinessChanges: 0, answersAgain: 0 };
  });

  afterEach(async () => {
    await controller?.stop();
    controller = undefined;
    await bus.dispose();
  });

  function start(o: { pollMs: number; failureThresholdMs?: number }): Promise<void> {
    controller = new ClusterStatusController({
      clusterName: 'm1',
      api: member,
      bus,
      clock,
      logger,
      registry,
      clusters: informers.objects('Cluster'),
      pollMs: o.pollMs,
      failureThresholdMs: o.failureThresholdMs ?? 0,
      successThresholdMs: 0,
      leaseDriver: 'sim',
      onReadinessChange: () => void calls.readinessChanges++,
      onAnswersAgain: () => void calls.answersAgain++,
    });
    return controller.start();
  }

  const probes = () => metricSum(registry, 'flotilla_reconcile_total', { controller: 'member-cluster-status' });

  it('probes once before start resolves, then every pollMs as a requeue of its one key', async () => {
    await start({ pollMs: 40 });
    expect(controller!.readiness(clock.now().getTime()).ready).toBe(true);
    expect(controller!.version).toBe('v0.0.0');
    expect(await probes()).toBe(1);
    await eventually(async () => expect(await probes()).toBeGreaterThanOrEqual(4));
    expect(await metricSum(registry, 'flotilla_reconcile_total', { result: 'requeue' })).toBe(await probes());
  });

  it('renews the lease only once the agent posted the status, and shows the posted status on /metrics', async () => {
    await start({ pollMs: 60_000 });
    controller!.probeNow();
    await eventually(async () => expect(await probes()).toBe(2));
    expect(await bus.leases.get(LEASE_KEY)).toBeNull();
    expect(await metricSum(registry, 'flotilla_cluster_ready', {})).toBe(0);

    controller!.posted({
      conditions: [{ type: 'Ready', status: 'True', reason: 'ClusterReady', message: 'ok' }],
      resourceSummary: { allocatable: { cpu: '2' }, allocated: { cpu: '500m' } },
    } as never);
    controller!.probeNow();
    await eventually(async () => expect(await probes()).toBe(3));
    // The probe after `posted` renewed it: the lease names the simulated driver.
    const lease = await bus.leases.get(LEASE_KEY);
    expect(JSON.parse(lease!.string())).toMatchObject({ holderIdentity: expect.stringContaining('member-agent/sim@') });
    expect(await metricSum(registry, 'flotilla_cluster_ready', { cluster: 'm1' })).toBe(1);
    expect(await metricSum(registry, 'flotilla_cluster_allocated', { cluster: 'm1', resource: 'cpu' })).toBe(0.5);
  });

  it('an API server that goes away is NotReady at the next probe; back, Ready again, its version read again', async () => {
    await start({ pollMs: 60_000 });
    member.objects.setAnswering(false);
    controller!.probeNow();
    await eventually(() => expect(calls.readinessChanges).toBe(1));
    const down = controller!.readiness(clock.now().getTime());
    expect(down.ready).toBe(false);
    expect(down.ready === false && down.patch.conditions?.[0]?.reason).toBe('ClusterNotReachable');
    expect(calls.answersAgain).toBe(0);

    member.objects.setAnswering(true);
    controller!.probeNow();
    await eventually(() => expect(calls.readinessChanges).toBe(2));
    expect(calls.answersAgain).toBe(1);
    expect(controller!.readiness(clock.now().getTime()).ready).toBe(true);
  });

  it('within the failure threshold the cluster is pending, and it probes again when the threshold ends', async () => {
    await start({ pollMs: 60_000, failureThresholdMs: 30 });
    member.objects.setAnswering(false);
    controller!.probeNow();
    await eventually(() => expect(controller!.readiness(clock.now().getTime()).ready).toBe('pending'));
    expect(calls.readinessChanges).toBe(1); // Ready -> pending
    const before = await probes();
    // The recheck is a requeue after what is left of the threshold (30 ms), not after the 60 s poll.
    clock.advance(30);
    await eventually(async () => expect(await probes()).toBeGreaterThan(before));
    // The controller's own state moves at a probe, not at the clock: the probe after the threshold told the driver.
    await eventually(() => expect(calls.readinessChanges).toBe(2));
  });

  it('refuses a negative poll with the option named', () => {
    expect(() => start({ pollMs: -1 })).toThrow(/pollMs: expected an integer >= 0, got -1/);
  });
});
