import { describe, expect, it } from 'vitest';
import type { RecordOptions, Sample, WorkloadRef } from '@flotilla/metric-history';
import { UsageRecorder } from './usage-recorder.js';

const usage = (cluster: string, workload: string, cores: number) => ({
  cluster,
  namespace: 'default',
  kind: 'Deployment',
  workload,
  cores,
});

function sink(failFirst = false) {
  const written: Array<[WorkloadRef, Sample]> = [];
  const sources: Array<string | undefined> = [];
  let fail = failFirst;
  return {
    written,
    sources,
    async record(w: WorkloadRef, s: Sample, opts?: RecordOptions) {
      if (fail) {
        fail = false;
        throw new Error('nats down');
      }
      written.push([w, s]);
      sources.push(opts?.source);
    },
  };
}

describe('UsageRecorder', () => {
  it("sums a workload's clusters and writes once per interval, stamped with the interval's start", async () => {
    const s = sink();
    const r = new UsageRecorder(s, 60_000);
    const now = new Date('2026-03-02T10:00:42Z');
    expect(await r.maybeRecord([usage('m1', 'web', 2.5), usage('m2', 'web', 1), usage('m1', 'api', 0.25)], now)).toBe(
      2,
    );
    expect(await r.maybeRecord([usage('m1', 'web', 9)], new Date('2026-03-02T10:00:59Z'))).toBe(0);
    expect(await r.maybeRecord([usage('m1', 'web', 4)], new Date('2026-03-02T10:01:00Z'))).toBe(1);
    const t0 = Date.parse('2026-03-02T10:00:00Z') / 1000;
    expect(s.written).toEqual([
      [{ namespace: 'default', kind: 'Deployment', name: 'web' }, [t0, 3.5]],
      [{ namespace: 'default', kind: 'Deployment', name: 'api' }, [t0, 0.25]],
      [{ namespace: 'default', kind: 'Deployment', name: 'web' }, [t0 + 60, 4]],
    ]);
  });

  it("records as its source what it was given (a kube agent's cluster), so that other clusters' parts are kept", async () => {
    const kube = sink();
    await new UsageRecorder(kube, 60_000, { source: 'member2' }).maybeRecord(
      [usage('member2', 'web', 1)],
      new Date('2026-03-02T10:00:01Z'),
    );
    expect(kube.sources).toEqual(['member2']);
    const sim = sink();
    await new UsageRecorder(sim, 60_000).maybeRecord([usage('m1', 'web', 1)], new Date('2026-03-02T10:00:01Z'));
    expect(sim.sources).toEqual([undefined]);
  });

  it('a failed write is tried again on the next tick of the same interval', async () => {
    const s = sink(true);
    const r = new UsageRecorder(s, 60_000);
    await expect(r.maybeRecord([usage('m1', 'web', 1)], new Date('2026-03-02T10:00:01Z'))).rejects.toThrow('nats down');
    expect(await r.maybeRecord([usage('m1', 'web', 1)], new Date('2026-03-02T10:00:02Z'))).toBe(1);
  });

  it('rejects an interval that is not whole seconds', () => {
    expect(() => new UsageRecorder(sink(), 1500)).toThrow(/whole seconds/);
  });
});
