import { cloudEvent, readEvents, type Bus } from '@flotilla/bus';
import { testBus } from '@flotilla/bus/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishReports, REPORTS_IN_FLIGHT } from './publish-reports.js';
import type { Report } from './reports.js';

let bus: Bus & { dispose(): Promise<void> };
beforeAll(async () => {
  bus = await testBus('reports');
});
afterAll(async () => {
  await bus?.dispose();
});

/** The reports of `objects` bindings, each landed on `clusters` clusters, interleaved as a pass may list them. */
function reportsOf(objects: number, clusters: number, committed: string[]): Report[] {
  const out: Report[] = [];
  for (let c = 0; c < clusters; c++)
    for (let b = 0; b < objects; b++) {
      const id = `b${b}/m${c}`;
      out.push({
        event: cloudEvent({
          id,
          source: 'member-agent',
          type: 'WorkloadStatusReported',
          kind: 'ResourceBinding',
          namespace: 'default',
          name: `b${b}`,
          time: new Date(),
          data: { clusterName: `m${c}` },
        }),
        commit: () => committed.push(id),
      });
    }
  return out;
}

describe('publishReports', () => {
  it('publishes every report and commits each once stored, an object’s reports next to each other in the stream', async () => {
    const committed: string[] = [];
    const between: number[] = [];
    const reports = reportsOf(100, 3, committed);
    const n = await publishReports({
      bus,
      reports,
      stopped: () => false,
      between: { every: 50, call: async () => void between.push(committed.length) },
    });
    expect(n).toBe(300);
    expect(new Set(committed).size).toBe(300);
    // Leases are renewed along the way (every 50 reports sent), not only at the end.
    expect(between.length).toBeGreaterThanOrEqual(5);
    const stored: string[] = [];
    for await (const d of readEvents(bus, { filter: { kind: 'ResourceBinding' } })) stored.push(d.event.flotillaname);
    expect(stored).toHaveLength(300);
    // Sent together, one object's three reports are stored within one window of what is under way at once.
    const first = new Map<string, number>();
    const last = new Map<string, number>();
    stored.forEach((name, i) => {
      if (!first.has(name)) first.set(name, i);
      last.set(name, i);
    });
    for (const [name, i] of first) expect(last.get(name)! - i).toBeLessThan(REPORTS_IN_FLIGHT);
  });

  it('sends no more once it is stopped', async () => {
    const committed: string[] = [];
    let asked = 0;
    const n = await publishReports({ bus, reports: reportsOf(10, 2, committed), stopped: () => ++asked > 3 });
    expect(n).toBeLessThan(20);
    expect(committed).toHaveLength(n);
  });
});
