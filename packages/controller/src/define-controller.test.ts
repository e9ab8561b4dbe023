import type { CloudEvent } from '@flotilla/bus';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { ControllerDefinitionError, defineController, type WatchEvent, type WatchSource } from './define-controller.js';

/** A source whose changes the test makes: the kit sees what an informer would hand it. */
class Source implements WatchSource {
  readonly bucket = 'objects';
  readonly map = new Map<string, number>();
  private readonly handlers = new Set<(e: WatchEvent) => void>();
  constructor(readonly kind: string) {}
  get size(): number {
    return this.map.size;
  }
  keys(): Iterable<string> {
    return this.map.keys();
  }
  subscribe(handler: (e: WatchEvent) => void) {
    this.handlers.add(handler);
    for (const [key, revision] of this.map) handler({ type: 'upsert', key, revision });
    return { synced: Promise.resolve(), unsubscribe: () => void this.handlers.delete(handler) };
  }
  put(key: string): void {
    const revision = (this.map.get(key) ?? 0) + 1;
    this.map.set(key, revision);
    for (const h of this.handlers) h({ type: 'upsert', key, revision });
  }
}

const quiet = { info() {}, warn() {}, error() {} };

async function sample(registry: Registry, series: string): Promise<number | undefined> {
  const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('defineController', () => {
  it('nextPass: resolves once a resync begun after the call has reconciled every key, and counts the passes', async () => {
    const source = new Source('Widget');
    source.put('Widget.default.a');
    source.put('Widget.default.b');
    const seen: string[] = [];
    const registry = new Registry();
    const c = defineController({
      name: 'passes',
      watches: [{ source }],
      reconcile: async (key) => void seen.push(key),
      resyncMs: 20,
      resyncSpread: false,
      logger: quiet,
      registry,
    });
    await c.start();
    await c.idle();
    const before = seen.length;
    await c.nextPass();
    // Both keys again after the call, whatever was running when it came.
    expect(seen.slice(before).sort()).toEqual(expect.arrayContaining(['Widget.default.a', 'Widget.default.b']));
    await c.stop();
    const begun = await sample(registry, 'flotilla_reconcile_passes_begun_total{controller="passes"}');
    const completed = await sample(registry, 'flotilla_reconcile_passes_total{controller="passes"}');
    expect(completed).toBeGreaterThanOrEqual(2); // the start's and one resync
    expect(begun).toBeGreaterThanOrEqual(completed!);
    await expect(c.nextPass()).rejects.toThrow(/stopped before the pass completed/);
  });

  it('reconciles every key at start and each change after, counted under its name', async () => {
    const source = new Source('Widget');
    source.put('Widget.default.a');
    source.put('Widget.default.b');
    const seen: string[] = [];
    const registry = new Registry();
    const c = defineController({
      name: 'widgets',
      watches: [{ source }],
      reconcile: async (key) => void seen.push(key),
      logger: quiet,
      registry,
    });
    await c.start();
    await c.idle();
    source.put('Widget.default.a');
    await c.idle();
    await c.stop();
    expect(seen).toEqual(['Widget.default.a', 'Widget.default.b', 'Widget.default.a']);
    expect(await sample(registry, 'flotilla_reconcile_total{controller="widgets",result="success"}')).toBe(3);
    source.put('Widget.default.c');
    expect(seen).toHaveLength(3);
  });

  it('records a Warning event with a CamelCase reason on the object of a failed reconcile', async () => {
    const source = new Source('Widget');
    source.put('Widget.team-a.broken');
    const published: CloudEvent[] = [];
    const registry = new Registry();
    let calls = 0;
    const c = defineController({
      name: 'widget-sizer',
      watches: [{ source }],
      reconcile: async () => {
        if (++calls === 1) throw new Error('the target is gone');
      },
      logger: quiet,
      registry,
      baseBackoffMs: 1,
      failureEvents: {
        publish: async (e) => void published.push(e),
        objectOf: (key) => {
          const [kind, namespace, name] = key.split('.') as [string, string, string];
          return { kind, namespace, name };
        },
      },
    });
    await c.start();
    while (calls < 2) await new Promise((r) => setTimeout(r, 2));
    await c.idle();
    await c.stop();
    expect(published).toHaveLength(1);
    expect(published[0]).toMatchObject({
      type: 'io.flotilla.ReconcileFailed',
      source: 'widget-sizer',
      subject: 'Widget/team-a/broken',
      data: { kubeEvent: { type: 'Warning', reason: 'WidgetSizerFailed', message: 'the target is gone' } },
    });
    expect(await sample(registry, 'flotilla_reconcile_total{controller="widget-sizer",result="error"}')).toBe(1);
  });

  it('records the Warning event on each object an error names instead of on its key', async () => {
    const source = new Source('Cluster');
    source.put('Cluster._.m1');
    const published: CloudEvent[] = [];
    let calls = 0;
    const c = defineController({
      name: 'kube-member',
      watches: [{ source }],
      reconcile: async () => {
        if (++calls > 1) return;
        throw Object.assign(new Error('2 writes failed'), {
          reason: 'ApplyFailed',
          involvedObjects: [
            { kind: 'ResourceBinding', namespace: 'shop', name: 'web', message: 'forbidden: web' },
            { kind: 'ClusterResourceBinding', name: 'crds' },
          ],
        });
      },
      logger: quiet,
      baseBackoffMs: 1,
      failureEvents: {
        publish: async (e) => void published.push(e),
        objectOf: () => ({ kind: 'Cluster', name: 'm1' }),
      },
    });
    await c.start();
    while (calls < 2) await new Promise((r) => setTimeout(r, 2));
    await c.idle();
    await c.stop();
    expect(published.map((e) => [e.subject, (e.data as { kubeEvent: unknown }).kubeEvent])).toEqual([
      ['ResourceBinding/shop/web', { type: 'Warning', reason: 'ApplyFailed', message: 'forbidden: web' }],
      ['ClusterResourceBinding//crds', { type: 'Warning', reason: 'ApplyFailed', message: '2 writes failed' }],
    ]);
  });

  it('lets a change queue other keys, and a burst resync sweep every key', async () => {
    const things = new Source('Thing');
    const settings = new Source('Setting');
    things.put('Thing._.x');
    things.put('Thing._.y');
    const seen: string[] = [];
    let resyncs = 0;
    const c = defineController({
      name: 'things',
      watches: [{ source: things }, { source: settings, onChange: (_e, ctl) => ctl.enqueueAll() }],
      reconcile: async (key) => void seen.push(key),
      resyncSpread: false,
      onResync: () => resyncs++,
      logger: quiet,
    });
    await c.start();
    await c.idle();
    settings.put('Setting._.s');
    await c.idle();
    c.resync();
    await c.idle();
    await c.stop();
    expect(seen).toEqual(['Thing._.x', 'Thing._.y', 'Thing._.x', 'Thing._.y', 'Thing._.x', 'Thing._.y']);
    expect(resyncs).toBe(1);
  });

  it('a pass leaves alone a key the controller says is up to date, counts it, and still completes', async () => {
    const source = new Source('Widget');
    source.put('Widget.default.a');
    source.put('Widget.default.b');
    const seen: string[] = [];
    // What the controller last reconciled each key at: a key whose revision is the same is up to date.
    const reconciledAt = new Map<string, number>();
    const registry = new Registry();
    const c = defineController({
      name: 'skips',
      watches: [{ source }],
      reconcile: async (key) => {
        seen.push(key);
        reconciledAt.set(key, source.map.get(key)!);
      },
      upToDate: (key) => reconciledAt.get(key) === source.map.get(key),
      resyncSpread: false,
      logger: quiet,
      registry,
    });
    await c.start();
    await c.idle();
    expect(seen.sort()).toEqual(['Widget.default.a', 'Widget.default.b']);
    c.resync();
    await c.idle();
    expect(seen).toHaveLength(2);
    expect(await sample(registry, 'flotilla_reconcile_pass_skips_total{controller="skips"}')).toBe(2);
    // A change queues its key (a watch, not a pass), and the next pass looks only at what changed since.
    source.put('Widget.default.a');
    await c.idle();
    const pass = c.nextPass();
    // nextPass waits for a pass begun after it has looked at the caches (a few microtasks): this resync's.
    await new Promise((r) => setImmediate(r));
    c.resync();
    await pass;
    expect(seen.slice(2)).toEqual(['Widget.default.a']);
    expect(await sample(registry, 'flotilla_reconcile_pass_skips_total{controller="skips"}')).toBe(4);
    await c.stop();
  });

  it('refuses a definition that cannot run, naming the field', () => {
    const source = new Source('Widget');
    const base = { name: 'ok', watches: [{ source }], reconcile: async () => undefined, logger: quiet };
    const bad = (patch: object) => () => defineController({ ...base, ...patch } as never);
    expect(bad({ name: 'Not Ok' })).toThrow(ControllerDefinitionError);
    expect(bad({ name: 'Not Ok' })).toThrow(
      `defineController(Not Ok): name must be lower-case letters, digits and '-'`,
    );
    expect(bad({ concurrency: 0 })).toThrow('defineController(ok): concurrency must be an integer >= 1, got 0');
    expect(bad({ watches: [] })).toThrow('defineController(ok): watches must name at least one source');
    expect(bad({ watches: [{ source: {} }] })).toThrow(
      'defineController(ok): watches[0].source must be a watch source',
    );
    expect(bad({ resyncMs: -1 })).toThrow(
      'defineController(ok): resyncMs must be a number of milliseconds >= 0, got -1',
    );
    expect(bad({ baseBackoffMs: 10, maxBackoffMs: 5 })).toThrow('maxBackoffMs must be >= baseBackoffMs (10), got 5');
    expect(
      bad({ failureEvents: { publish: async () => undefined, objectOf: () => undefined, reason: 'not-camel' } }),
    ).toThrow('defineController(ok): failureEvents.reason must be CamelCase, got "not-camel"');
    expect(bad({ delayed: { prefix: 'p', handler: async () => undefined } })).toThrow(
      'defineController(ok): delayed.redis is required',
    );
  });
});
