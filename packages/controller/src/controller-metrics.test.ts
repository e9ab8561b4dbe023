import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { ControllerMetrics } from './controller-metrics.js';
import { WorkQueue } from './work-queue.js';

/** The value of one sample in the registry's exposition text, e.g. `flotilla_reconcile_total{controller="x",result="success"}`. */
async function sample(registry: Registry, series: string): Promise<number | undefined> {
  const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('ControllerMetrics', () => {
  it('is one set per registry, so a controller rebuilt for a new leadership term does not register twice', () => {
    const registry = new Registry();
    expect(ControllerMetrics.of(registry)).toBe(ControllerMetrics.of(registry));
    expect(ControllerMetrics.of(new Registry())).not.toBe(ControllerMetrics.of(registry));
  });

  it('counts reconciles by result and reports queue depth and age at scrape time', async () => {
    const registry = new Registry();
    const metrics = ControllerMetrics.of(registry);
    let clock = 0;
    let release!: () => void;
    const q = new WorkQueue(
      async (k) => {
        if (k === 'hold') await new Promise<void>((r) => (release = r));
        if (k === 'bad') throw new Error('no');
      },
      { now: () => clock, baseBackoffMs: 60_000, observer: metrics.observer('detection') },
    );
    metrics.track('detection', q);
    q.add('hold');
    q.add('a');
    q.add('bad');
    clock = 3_000;
    expect(await sample(registry, 'flotilla_workqueue_depth{controller="detection"}')).toBe(2);
    expect(await sample(registry, 'flotilla_workqueue_oldest_item_age_seconds{controller="detection"}')).toBe(3);
    release();
    await q.idle();
    await q.stop();
    expect(await sample(registry, 'flotilla_reconcile_total{controller="detection",result="success"}')).toBe(2);
    expect(await sample(registry, 'flotilla_reconcile_total{controller="detection",result="error"}')).toBe(1);
    expect(await sample(registry, 'flotilla_reconcile_duration_seconds_count{controller="detection"}')).toBe(3);
    expect(await sample(registry, 'flotilla_workqueue_depth{controller="detection"}')).toBe(0);
  });

  it('reports object counts at scrape time until the controller stops', async () => {
    const registry = new Registry();
    const metrics = ControllerMetrics.of(registry);
    const clusters = new Map([
      ['a', 1],
      ['b', 2],
    ]);
    metrics.countObjects('Cluster', () => clusters.size);
    expect(await sample(registry, 'flotilla_objects{kind="Cluster"}')).toBe(2);
    clusters.set('c', 3);
    expect(await sample(registry, 'flotilla_objects{kind="Cluster"}')).toBe(3);
    metrics.forgetObjects();
    expect(await sample(registry, 'flotilla_objects{kind="Cluster"}')).toBeUndefined();
  });
});
