import { describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { isForbidden, KubeApiError } from './kube-api-error.js';
import { type KubeInformerEvent, KubeInformer, type ListWatchClient } from './informer.js';
import type { RawObject } from './kube-api.js';

/**
 * The reflector's decisions, driven by a scripted list/watch transport: which resourceVersion each watch resumes
 * from, a relist on 410 Gone, backoff on errors. (The same informer runs against real API servers in
 * services/member-agent's kube-driver.int.test.ts and the kube-bridge's bridge.int.test.ts.)
 */
type WatchScript = (emit: (type: string, o: RawObject) => void, done: (err: unknown) => void) => void;

function scripted(lists: Array<RawObject[] | Error>, watches: WatchScript[]) {
  const calls: string[] = [];
  const timeouts: number[] = [];
  let listN = 0;
  let watchN = 0;
  const client: ListWatchClient = {
    async list({ continueToken }) {
      const l = lists[Math.min(listN++, lists.length - 1)]!;
      calls.push(`list${continueToken ? ` continue=${continueToken}` : ''}`);
      if (l instanceof Error) throw l;
      return { items: l, resourceVersion: String(100 * listN) };
    },
    async watch(params, onEvent, done) {
      calls.push(`watch rv=${params.resourceVersion} bookmarks=${params.allowWatchBookmarks}`);
      timeouts.push(Number(params.timeoutSeconds));
      const script = watches[watchN++];
      if (script) setTimeout(() => script(onEvent, done), 1);
      return { abort: () => undefined };
    },
  };
  return { client, calls, timeouts };
}

const obj = (name: string, rv: string): RawObject => ({ metadata: { name, namespace: 'ns', resourceVersion: rv } });

function informer(
  client: ListWatchClient,
  errors: Error[] = [],
  more: Partial<ConstructorParameters<typeof KubeInformer<string>>[0]> = {},
) {
  return new KubeInformer<string>({
    server: 'm',
    name: 'apps/v1/Deployment',
    client,
    request: { group: 'apps', resource: 'deployments' },
    project: (raw) => raw.metadata?.name,
    onChange: () => undefined,
    onError: (e) => errors.push(e),
    backoff: { baseMs: 1, maxMs: 2 },
    random: () => 0.5,
    ...more,
  });
}

const until = async (cond: () => boolean) => {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 2));
  expect(cond()).toBe(true);
};

describe('KubeInformer (list + watch)', () => {
  it('watches from the list resourceVersion, follows events and bookmarks, resumes from the last one seen', async () => {
    const { client, calls } = scripted(
      [[obj('a', '90')]],
      [
        (emit, done) => {
          emit('ADDED', obj('b', '101'));
          emit('DELETED', obj('a', '102'));
          emit('BOOKMARK', { metadata: { resourceVersion: '150' } });
          done(null); // the server ended the watch (timeoutSeconds)
        },
      ],
    );
    const i = informer(client);
    const events: KubeInformerEvent<string>[] = [];
    const sub = i.subscribe((e) => {
      events.push(e);
    });
    await i.start();
    await until(() => calls.length >= 3);
    expect(calls.slice(0, 3)).toEqual(['list', 'watch rv=100 bookmarks=true', 'watch rv=150 bookmarks=true']);
    expect([...i.cache.entries()]).toEqual([['ns/b', 'b']]);
    // The watched delete hands on what the cache held of `a`: who it belonged to can still be told.
    expect(events.filter((e) => e.type === 'delete')).toEqual([
      { type: 'delete', key: 'ns/a', revision: 102, deleted: 'a' },
    ]);
    sub.unsubscribe();
    await i.stop();
  });

  it('lists again on 410 Gone, replacing the cache, and says which resourceVersion expired (not as an error)', async () => {
    const { client, calls } = scripted(
      [[obj('a', '1')], [obj('c', '2')]],
      [
        (emit) => {
          emit('ADDED', obj('b', '120'));
          emit('ERROR', { kind: 'Status', code: 410, reason: 'Expired' } as unknown as RawObject);
        },
      ],
    );
    const expired: string[] = [];
    const errors: Error[] = [];
    const i = informer(client, errors, { onExpired: (rv) => expired.push(rv) });
    await i.start();
    await until(() => calls.includes('watch rv=200 bookmarks=true'));
    expect(calls.slice(0, 4)).toEqual(['list', 'watch rv=100 bookmarks=true', 'list', 'watch rv=200 bookmarks=true']);
    expect([...i.cache.keys()]).toEqual(['ns/c']);
    expect(expired).toEqual(['120']);
    expect(errors).toEqual([]);
    await i.stop();
  });

  it('keeps its indexes with the cache: watch events, upserts and removals, and a relist that replaces it', async () => {
    const labelled = (name: string, rv: string, app: string): RawObject => ({
      metadata: { name, namespace: 'ns', resourceVersion: rv, labels: { app } },
    });
    let later: ((type: string, o: RawObject) => void) | undefined;
    const { client, calls } = scripted(
      [[labelled('a', '1', 'web'), labelled('b', '2', 'web')], [labelled('c', '3', 'db')]],
      [
        (emit, done) => {
          emit('MODIFIED', labelled('b', '101', 'db'));
          emit('ADDED', labelled('d', '102', 'web'));
          emit('DELETED', labelled('a', '103', 'web'));
          done(null);
        },
        (emit) => {
          later = emit;
        },
      ],
    );
    const i = new KubeInformer<{ name: string; app: string }>({
      server: 'm',
      name: 'v1/Pod',
      client,
      request: { group: '', resource: 'pods' },
      project: (raw) => ({ name: raw.metadata!.name!, app: raw.metadata!.labels!.app! }),
      indexers: { app: (p) => [p.app] },
      backoff: { baseMs: 1, maxMs: 2 },
      random: () => 0.5,
    });
    const names = (app: string) =>
      i
        .byIndex('app', app)
        .map((p) => p.name)
        .sort();
    await i.start();
    expect(names('web')).toEqual(['a', 'b']);
    await until(() => later !== undefined);
    expect([names('web'), names('db')]).toEqual([['d'], ['b']]);
    i.upsert(labelled('e', '104', 'db'));
    i.remove('ns/b');
    expect([names('web'), names('db')]).toEqual([['d'], ['e']]);
    later!('ERROR', { kind: 'Status', code: 410, reason: 'Expired' } as unknown as RawObject);
    await until(() => calls.filter((c) => c === 'list').length === 2 && i.get('ns/c') !== undefined);
    expect([names('web'), names('db')]).toEqual([[], ['c']]);
    expect(() => i.byIndex('node', 'n1')).toThrow(/no index named node/);
    await i.stop();
  });

  it('asks each watch to end after the configured timeout, ±20 %', async () => {
    for (const [random, expected] of [
      [0, 8],
      [0.5, 10],
      [0.999, 12],
    ] as const) {
      const { client, timeouts } = scripted([[obj('a', '1')]], []);
      const i = informer(client, [], { watchTimeoutSeconds: 10, random: () => random });
      await i.start();
      await until(() => timeouts.length > 0);
      expect(timeouts[0]).toBe(expected);
      await i.stop();
    }
    const { client, timeouts } = scripted([[obj('a', '1')]], []);
    const i = informer(client); // client-go's reflector: 5 minutes and up
    await i.start();
    await until(() => timeouts.length > 0);
    expect(timeouts[0]).toBe(300);
    await i.stop();
    expect(() => informer(client, [], { watchTimeoutSeconds: 0 })).toThrow(
      'watchTimeoutSeconds: expected a whole number of seconds >= 1, got 0',
    );
  });

  it('a refused list is a typed error naming verb and resource, retried with backoff until it succeeds', async () => {
    const errors: Error[] = [];
    const refused = Object.assign(new Error('Forbidden'), { code: 403, body: { message: 'forbidden' } });
    const { client, calls } = scripted([refused, refused, [obj('a', '1')]], []);
    const i = informer(client, errors);
    await i.start();
    expect(calls.slice(0, 3)).toEqual(['list', 'list', 'list']);
    expect(i.synced).toBe(true);
    expect(errors.map((e) => e.message)).toEqual([
      'list deployments.apps cluster-wide failed (403): forbidden',
      'list deployments.apps cluster-wide failed (403): forbidden',
    ]);
    expect(errors.every((e) => e instanceof KubeApiError && isForbidden(e))).toBe(true);
    expect(i.lastError).toBeUndefined();
    await i.stop();
  });

  it("tells subscribers each key that changed, a relist's differences included (a delete with its last value), and counts it all", async () => {
    const { client } = scripted(
      [
        [obj('a', '1'), obj('b', '2')],
        [obj('b', '2'), obj('c', '3')],
      ],
      [
        (emit) => {
          emit('MODIFIED', obj('a', '110'));
          emit('ERROR', { kind: 'Status', code: 410, reason: 'Expired' } as unknown as RawObject);
        },
      ],
    );
    const registry = new Registry();
    const gates = new Map<string, boolean>();
    const i = informer(client, [], { registry, readiness: { set: (gate, open) => gates.set(gate, open) } });
    const events: KubeInformerEvent[] = [];
    const sub = i.subscribe((e) => {
      events.push(e);
    });
    await sub.synced;
    await until(() => events.length >= 5);
    // the first list: a and b; the watch: a changed; the relist after 410: a gone, c new (b unchanged: no event)
    expect(events).toEqual([
      { type: 'upsert', key: 'ns/a', revision: 1 },
      { type: 'upsert', key: 'ns/b', revision: 2 },
      { type: 'upsert', key: 'ns/a', revision: 110 },
      // a delete carries what the cache held of the object (its projection: the name), gone from the cache by then
      { type: 'delete', key: 'ns/a', revision: 200, deleted: 'a' },
      { type: 'upsert', key: 'ns/c', revision: 3 },
    ]);
    expect([...i.keys()]).toEqual(['ns/b', 'ns/c']);
    expect(gates.get('kube-informer:m/apps/v1/Deployment')).toBe(true);
    const text = await registry.metrics();
    expect(text).toContain('flotilla_kube_informer_lists_total{cluster="m",resource="apps/v1/Deployment"} 2');
    expect(text).toContain('flotilla_kube_watch_expired_total{cluster="m",resource="apps/v1/Deployment"} 1');
    expect(text).toContain('flotilla_kube_informer_objects{cluster="m",resource="apps/v1/Deployment"} 2');
    // Read when the registry is: a write's own upsert counts at once, and a stopped informer keeps its last size.
    i.upsert(obj('d', '4'));
    expect(await registry.metrics()).toContain(
      'flotilla_kube_informer_objects{cluster="m",resource="apps/v1/Deployment"} 3',
    );
    sub.unsubscribe(); // the last subscriber stops the informer it started
    await i.stop();
    i.remove('ns/d');
    expect(await registry.metrics()).toContain(
      'flotilla_kube_informer_objects{cluster="m",resource="apps/v1/Deployment"} 3',
    );
  });

  it('closes its readiness gate until the first list and while lists fail; synced resolves after a first failure', async () => {
    const refused = Object.assign(new Error('down'), { code: 503 });
    const { client } = scripted([refused, [obj('a', '1')]], []);
    const gates: Array<[boolean, string | undefined]> = [];
    const i = informer(client, [], {
      backoff: { baseMs: 50, maxMs: 50 },
      readiness: { set: (_gate, open, reason) => gates.push([open, reason]) },
    });
    const sub = i.subscribe(() => undefined);
    await sub.synced;
    expect(i.synced).toBe(false);
    await until(() => i.synced);
    expect(gates).toEqual([
      [false, 'cache not synced: listing'],
      [false, 'cache not synced: list failed: HTTP 503: down'],
      [true, undefined],
    ]);
    await i.stop();
  });

  it('a synced cache whose watch fails once and relists at once keeps its gate open (no flap)', async () => {
    const { client, calls } = scripted(
      [[obj('a', '1')], [obj('a', '1')]],
      [(_emit, done) => done(Object.assign(new Error('connection reset'), { code: 'ECONNRESET' }))],
    );
    const closed: string[] = [];
    const i = informer(client, [], {
      readinessGraceMs: 5_000,
      readiness: { set: (_gate, open, reason) => (open ? undefined : closed.push(reason ?? '')) },
    });
    await i.start();
    await until(() => calls.filter((c) => c === 'list').length === 2 && i.synced);
    expect(closed).toEqual(['cache not synced: listing']);
    await i.stop();
  });

  it('a synced cache relisting after an error for longer than the grace closes its gate, naming the error', async () => {
    const refused = Object.assign(new Error('down'), { code: 503 });
    const { client, calls } = scripted(
      [[obj('a', '1')], refused, refused, refused, refused, refused, [obj('a', '1')]],
      [(_emit, done) => done(Object.assign(new Error('connection reset'), { code: 'ECONNRESET' }))],
    );
    const gates: Array<[string, boolean, string | undefined]> = [];
    const i = informer(client, [], {
      backoff: { baseMs: 30, maxMs: 30 },
      readinessGraceMs: 50,
      readiness: { set: (gate, open, reason) => gates.push([gate, open, reason]) },
    });
    await i.start();
    await until(() => calls.filter((c) => c === 'list').length === 7);
    await until(() => gates.at(-1)?.[1] === true);
    const closings = gates.filter(([, open]) => !open).map(([gate, , reason]) => `${gate}: ${reason}`);
    expect(closings[0]).toBe('kube-informer:m/apps/v1/Deployment: cache not synced: listing');
    expect(closings.slice(1).length).toBeGreaterThan(0);
    expect(new Set(closings.slice(1))).toEqual(
      new Set(['kube-informer:m/apps/v1/Deployment: cache not synced: list failed: HTTP 503: down']),
    );
    await i.stop();
  });
});
