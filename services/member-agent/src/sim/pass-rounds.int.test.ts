import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Bus, EventTypes } from '@flotilla/bus';
import { testBus } from '@flotilla/bus/testing';
import { eventually } from '@flotilla/testkit';
import { ReportBook } from '../reports.js';
import { FleetRounds } from './pass-rounds.js';

// The simulated fleet's rounds against a real NATS: what a round publishes, and when the next opens.

const status = { replicas: 1, readyReplicas: 1, availableReplicas: 1, pendingReplicas: 0 };
const CLUSTERS = ['m1', 'm2', 'm3'];

/** Cluster `cluster`'s report of binding `name`, from its own book (as each driver has one). */
function reportOf(book: ReportBook, name: string, cluster: string) {
  return book.workloadReports({
    ref: { kind: 'ResourceBinding', namespace: 'default', name },
    current: new Map([[cluster, { applied: true, health: 'Healthy' as const, status }]]),
    owned: { has: (c) => c === cluster },
    targetClusters: CLUSTERS,
    now: new Date(),
    statusOf: () => undefined,
  });
}

/** One turn of the event loop. */
const turn = () => new Promise((r) => setImmediate(r));

describe('FleetRounds', () => {
  let bus: Bus & { dispose(): Promise<void> };
  let events: Array<{ name: string; clusters: string[] }>;
  let unsubscribe: () => void;

  beforeEach(async () => {
    bus = await testBus('pass-rounds');
    events = [];
    const sub = bus.nc.subscribe(`${bus.names.eventsRoot}.ResourceBinding.*.*.${EventTypes.WorkloadStatusReported}`, {
      callback: (err, msg) => {
        if (err) return;
        const e = msg.json() as {
          flotillaname: string;
          data: { clusterName?: string; reports?: Array<{ clusterName: string }> };
        };
        const clusters = e.data.reports?.map((r) => r.clusterName) ?? [e.data.clusterName ?? ''];
        events.push({ name: e.flotillaname, clusters });
      },
    });
    unsubscribe = () => sub.unsubscribe();
  });
  afterEach(async () => {
    unsubscribe();
    await bus.dispose();
  });

  it("publishes a round's reports once its last pass ended, a binding's clusters as one event, and opens the next after that", async () => {
    const rounds = new FleetRounds({ bus, gatherMs: 20 });
    const books = new Map(CLUSTERS.map((c) => [c, new ReportBook('test')]));
    const ends: Array<() => Promise<number>> = [];
    // Three drivers join; each takes its change when the round opens and begins its pass when told to.
    const took: string[] = [];
    for (const cluster of CLUSTERS)
      rounds.join(() => {
        took.push(cluster);
        return () => {
          const pass = rounds.begin();
          ends.push(() => pass.publish(reportOf(books.get(cluster)!, 'web', cluster), () => false));
        };
      });
    await eventually(() => (ends.length === CLUSTERS.length ? true : undefined), 5_000, 'the round opened');
    expect(took).toEqual(CLUSTERS);
    expect(rounds.rounds).toBe(1);

    // A driver that joins now waits for the next round, which opens only once this one is published.
    let nextOpened = false;
    rounds.join(() => {
      nextOpened = true;
      return undefined;
    });
    const first = ends[0]!();
    const second = ends[1]!();
    let published = false;
    void Promise.all([first, second]).then(() => {
      published = true;
    });
    // Held while the third pass runs: nothing sent, the next round not open.
    for (let i = 0; i < 5; i++) await turn();
    expect(published).toBe(false);
    expect(nextOpened).toBe(false);
    const third = ends[2]!();
    await expect(Promise.all([first, second, third])).resolves.toEqual([1, 1, 1]);
    await eventually(() => (events.length > 0 && nextOpened ? true : undefined), 5_000, 'published, next round');
    expect(events).toEqual([{ name: 'web', clusters: CLUSTERS }]);
    expect(rounds.rounds).toBe(2);
    rounds.stop();
  });

  it('publishes the reports of passes outside the rounds once they ended, not held by a round that waits for a pass behind them', async () => {
    // No round may wait for itself: a round holding a pass queued behind an outside one would wait holdMaxMs.
    const rounds = new FleetRounds({ bus, gatherMs: 20, holdMaxMs: 60_000 });
    const book = new ReportBook('test');
    const outside = rounds.beginOutside();
    let ticket: ReturnType<FleetRounds['begin']> | undefined;
    rounds.join(() => () => {
      ticket = rounds.begin();
    });
    await eventually(() => (ticket ? true : undefined), 5_000, 'the round opened and queued its pass');
    // The outside pass hands its reports in while the round waits for the pass behind it: they go out at once.
    await expect(outside.publish(reportOf(book, 'first', 'm1'), () => false)).resolves.toBe(1);
    await eventually(() => (events.length > 0 ? true : undefined), 5_000, 'the outside pass published');
    expect(events).toEqual([{ name: 'first', clusters: ['m1'] }]);
    // Then the round's own pass runs, and the round's reports go out when it ended.
    await expect(ticket!.publish(reportOf(book, 'second', 'm1'), () => false)).resolves.toBe(1);
    await eventually(() => (events.length > 1 ? true : undefined), 5_000, "the round's pass published");
    expect(events.map((e) => e.name)).toEqual(['first', 'second']);
    expect(rounds.rounds).toBe(1);
    rounds.stop();
  });

  it("publishes the passes outside the rounds together once the last of them ended: a binding's clusters as one event", async () => {
    // The drivers' first passes (a member-agent starting over bindings placed before it) run outside the rounds.
    const rounds = new FleetRounds({ bus, gatherMs: 20, holdMaxMs: 60_000 });
    const books = new Map(CLUSTERS.map((c) => [c, new ReportBook('test')]));
    const passes = CLUSTERS.map(() => rounds.beginOutside());
    const first = passes[0]!.publish(reportOf(books.get('m1')!, 'web', 'm1'), () => false);
    const second = passes[1]!.publish(reportOf(books.get('m2')!, 'web', 'm2'), () => false);
    for (let i = 0; i < 5; i++) await turn();
    expect(events).toEqual([]);
    const third = passes[2]!.publish(reportOf(books.get('m3')!, 'web', 'm3'), () => false);
    await expect(Promise.all([first, second, third])).resolves.toEqual([1, 1, 1]);
    await eventually(() => (events.length > 0 ? true : undefined), 5_000, 'the outside passes published');
    expect(events).toEqual([{ name: 'web', clusters: CLUSTERS }]);
    // No round opened for them.
    expect(rounds.rounds).toBe(0);
    rounds.stop();
  });

  it('begins the passes of a large round ten a turn, and ends it only once every one of them began and ended', async () => {
    const rounds = new FleetRounds({ bus, gatherMs: 20 });
    const begunInTurn: number[] = [];
    let turnNo = 0;
    const counter = () => {
      turnNo++;
      if (!stopped) setImmediate(counter);
    };
    let stopped = false;
    const passes: Array<ReturnType<FleetRounds['begin']>> = [];
    for (let i = 0; i < 25; i++)
      rounds.join(() => () => {
        begunInTurn.push(turnNo);
        passes.push(rounds.begin());
      });
    setImmediate(counter);
    await eventually(() => (passes.length === 25 ? true : undefined), 5_000, 'every pass began');
    stopped = true;
    // 10, 10 and 5, each slice in a turn of its own.
    const slices = [...new Set(begunInTurn)];
    expect(slices).toHaveLength(3);
    expect(slices.map((t) => begunInTurn.filter((b) => b === t).length)).toEqual([10, 10, 5]);
    // The round stands while any pass runs; no round opens for a driver that joins meanwhile.
    let opened = false;
    rounds.join(() => {
      opened = true;
      return undefined;
    });
    for (const p of passes.slice(0, 24)) p.end();
    // The next round would open on the grid (20 ms) once this one ended: three of its periods, and it has not.
    for (let i = 0; i < 5; i++) await turn();
    await new Promise((r) => setTimeout(r, 60));
    expect(opened).toBe(false);
    expect(rounds.rounds).toBe(1);
    passes[24]!.end();
    await eventually(() => (opened ? true : undefined), 5_000, 'the next round opened');
    rounds.stop();
  });
});
