import { describe, expect, it } from 'vitest';
import { alignSeries, timeRange, valueRange } from './chart.js';
import { clusterRows, resourceBar } from './clusters.js';
import { decisionView } from './decision.js';
import { addToFeed, eventObject, type FeedEvent, matchesEventFilter } from './events.js';
import { pageLabel, pageOf, parsePageRequest } from './paging.js';
import { readableQuantity, parseQuantity } from './quantity.js';
import { SseParser, sseMessage } from './sse.js';
import { dateInZone, formatInZone } from './time-axis.js';
import { trailFieldText, trailSeries, trailValueText } from './trail.js';

describe('parseQuantity / readableQuantity', () => {
  it.each([
    ['8', 8],
    ['500m', 0.5],
    ['32Gi', 32 * 2 ** 30],
    ['1.5k', 1500],
    ['2e3', 2000],
    [4, 4],
    ['lots', Number.NaN],
    ['3Zi', Number.NaN],
    ['1e3m', Number.NaN],
    [undefined, Number.NaN],
  ])('%s → %s', (q, n) => expect(parseQuantity(q)).toBe(n));

  it.each([
    [2.5, 'cpu', '2.5'],
    [32 * 2 ** 30, 'memory', '32Gi'],
    [512 * 2 ** 20, 'memory', '512Mi'],
    [110, 'pods', '110'],
    [Number.NaN, 'cpu', '?'],
  ])('%s %s → %s', (v, r, text) => expect(readableQuantity(v, r)).toBe(text));
});

describe('clusterRows', () => {
  const cluster = (name: string, o: { ready?: string; sim?: object; taints?: object[]; summary?: object } = {}) => ({
    metadata: { name },
    spec: { ...(o.sim ? { simulation: o.sim } : {}), ...(o.taints ? { taints: o.taints } : {}) },
    status: {
      ...(o.ready
        ? {
            conditions: [
              { type: 'Ready', status: o.ready, reason: o.ready === 'True' ? 'ClusterReady' : 'ClusterNotReachable' },
            ],
          }
        : {}),
      ...(o.summary ? { resourceSummary: o.summary } : {}),
    },
  });

  it.each([
    {
      name: 'a Ready simulated cluster with its capacity',
      input: cluster('m1', {
        ready: 'True',
        sim: { allocatable: {} },
        summary: {
          allocatable: { cpu: '8', memory: '32Gi', pods: '110' },
          allocated: { cpu: '2500m', memory: '8Gi', pods: '11' },
        },
      }),
      want: {
        name: 'm1',
        ready: 'True',
        mode: 'simulated',
        failed: false,
        taints: [],
        labels: ['cpu 2.5 of 8 (31%)', 'memory 8Gi of 32Gi (25%)', 'pods 11 of 110 (10%)'],
      },
    },
    {
      name: 'a failed simulated cluster, NotReady and tainted',
      input: cluster('m2', {
        ready: 'False',
        sim: { failed: true },
        taints: [
          { key: 'cluster.karmada.io/not-ready', effect: 'NoSchedule' },
          { key: 'a', value: 'b', effect: 'NoExecute' },
        ],
      }),
      want: {
        name: 'm2',
        ready: 'False',
        mode: 'simulated',
        failed: true,
        taints: ['cluster.karmada.io/not-ready:NoSchedule', 'a=b:NoExecute'],
        labels: ['cpu 0 of 0 (0%)', 'memory 0 of 0 (0%)', 'pods 0 of 0 (0%)'],
      },
    },
    {
      name: 'a real cluster without status yet',
      input: { metadata: { name: 'k1' }, spec: {} },
      want: {
        name: 'k1',
        ready: 'Unknown',
        mode: 'kube',
        failed: false,
        taints: [],
        labels: ['cpu 0 of 0 (0%)', 'memory 0 of 0 (0%)', 'pods 0 of 0 (0%)'],
      },
    },
  ])('$name', ({ input, want }) => {
    const [row] = clusterRows([input]);
    const { bars, readyReason: _r, ...rest } = row!;
    expect({ ...rest, labels: bars.map((b) => b.label) }).toEqual(want);
  });

  it('sorts by name and caps an overcommitted share at 1', () => {
    expect(clusterRows([cluster('b'), cluster('a')]).map((r) => r.name)).toEqual(['a', 'b']);
    expect(resourceBar('cpu', '2', '3').share).toBe(1);
  });
});

describe('decisionView', () => {
  it.each([
    { name: 'no decision yet', decision: undefined, want: { outcome: 'None', group: '', clusters: [], groups: [] } },
    {
      name: 'scheduled in the second group, the first one rejected with reasons',
      decision: {
        type: 'BindingScheduled',
        time: 't1',
        data: {
          affinityName: 'dc-beijing',
          clusters: [{ name: 'member1', replicas: 2 }],
          groups: [
            {
              affinityName: 'dc-shanghai',
              ok: false,
              message: '0/3 clusters are available',
              filtered: [{ cluster: 'member1', reason: 'affinity' }],
            },
            { affinityName: 'dc-beijing', ok: true },
          ],
        },
      },
      want: {
        outcome: 'Scheduled',
        group: 'dc-beijing',
        clusters: [{ name: 'member1', replicas: 2 }],
        groups: [
          {
            name: 'dc-shanghai',
            ok: false,
            message: '0/3 clusters are available',
            rejected: [{ cluster: 'member1', reason: 'affinity' }],
          },
          { name: 'dc-beijing', ok: true, message: '', rejected: [] },
        ],
      },
    },
    {
      name: 'a failure keeps the clusters it had; a single affinity has no named group',
      decision: {
        type: 'BindingScheduleFailed',
        time: 't2',
        data: {
          reason: 'no cluster fits',
          keptClusters: [{ name: 'member2' }],
          filtered: [{ cluster: 'member3', reason: 'taint' }],
        },
      },
      want: {
        outcome: 'Failed',
        group: 'none succeeded',
        clusters: [{ name: 'member2' }],
        groups: [
          {
            name: '<single clusterAffinity>',
            ok: false,
            message: '',
            rejected: [{ cluster: 'member3', reason: 'taint' }],
          },
        ],
      },
    },
  ])('$name', ({ decision, want }) => {
    expect(decisionView(decision)).toMatchObject(want);
  });

  it('names the confirmation that kept it', () => {
    expect(decisionView({ type: 'BindingScheduled', time: 't1', data: {} }, { time: 't9' }).keptAt).toBe('t9');
  });
});

describe('the event feed', () => {
  const ev = (seq: number, kind = 'ResourceBinding', namespace = 'default', name = 'nginx-deployment'): FeedEvent => ({
    seq,
    time: `t${seq}`,
    type: 'BindingScheduled',
    kind,
    namespace,
    name,
    message: '',
  });

  it.each([
    { filter: {}, event: ev(1), want: true },
    { filter: { kind: 'Cluster' }, event: ev(1), want: false },
    { filter: { kind: 'ResourceBinding', object: 'NGINX' }, event: ev(1), want: true },
    { filter: { object: 'default/web' }, event: ev(1), want: false },
    { filter: { object: 'member1' }, event: ev(1, 'Cluster', '', 'member1'), want: true },
  ])('$filter matches $event.kind $event.name: $want', ({ filter, event, want }) => {
    expect(matchesEventFilter(event, filter)).toBe(want);
  });

  it('keeps the newest first, once per sequence, at most the limit', () => {
    let feed: FeedEvent[] = [];
    for (const seq of [1, 3, 2, 3, 4]) feed = addToFeed(feed, ev(seq), 3);
    expect(feed.map((e) => e.seq)).toEqual([4, 3, 2]);
    expect(eventObject(ev(1))).toBe('ResourceBinding/default/nginx-deployment');
    expect(eventObject(ev(1, 'Cluster', '', 'member1'))).toBe('Cluster/member1');
  });
});

describe('paging', () => {
  it.each([
    { q: {}, want: { page: 1, pageSize: 50 } },
    { q: { page: '3', pageSize: '20' }, want: { page: 3, pageSize: 20 } },
    { q: { page: '', pageSize: null }, want: { page: 1, pageSize: 50 } },
  ])('parsePageRequest($q)', ({ q, want }) => expect(parsePageRequest(q)).toEqual(want));

  it.each([
    [{ page: '0' }, 'page: Invalid value: "0": must be an integer from 1 to'],
    [{ pageSize: '501' }, 'pageSize: Invalid value: "501": must be an integer from 1 to 500'],
    [{ page: 'two' }, 'page: Invalid value: "two"'],
  ])('refuses %j naming the parameter', (q, message) => expect(() => parsePageRequest(q)).toThrow(message));

  const items = Array.from({ length: 10_000 }, (_, i) => i);
  it.each([
    { req: { page: 1, pageSize: 50 }, first: 0, len: 50, page: 1, label: 'Page 1 of 200 (1-50 of 10000)' },
    {
      req: { page: 200, pageSize: 50 },
      first: 9950,
      len: 50,
      page: 200,
      label: 'Page 200 of 200 (9951-10000 of 10000)',
    },
    { req: { page: 999, pageSize: 3000 }, first: 9000, len: 1000, page: 4, label: 'Page 4 of 4 (9001-10000 of 10000)' },
  ])('pageOf $req', ({ req, first, len, page, label }) => {
    const p = pageOf(items, req);
    expect([p.items[0], p.items.length, p.page, p.total]).toEqual([first, len, page, 10_000]);
    expect(pageLabel(p)).toBe(label);
  });

  it('an empty list is one empty page', () => {
    expect(pageLabel(pageOf([], { page: 2, pageSize: 50 }))).toBe('Page 1 of 1 (none)');
  });
});

describe('server-sent events', () => {
  it('parses what sseMessage writes, across chunk boundaries, with comments and CRLF', () => {
    const text =
      `: feed open\n\n${sseMessage({ event: 'message', id: '7', data: '{"a":1}' })}${sseMessage({ event: 'x', data: 'two\nlines' })}`.replace(
        'id: 7\n',
        'id: 7\r\n',
      );
    const p = new SseParser();
    const out = [...text].flatMap((ch) => p.push(ch));
    expect(out).toEqual([
      { event: 'message', id: '7', data: '{"a":1}' },
      { event: 'x', id: '7', data: 'two\nlines' },
    ]);
  });
});

describe('trail series', () => {
  const now = Date.parse('2024-01-01T00:10:00Z');
  it('one step series for the template and each cluster, extended to now; a removed share drops to 0', () => {
    const series = trailSeries(
      [
        { time: '2024-01-01T00:01:00Z', field: { kind: 'cluster', cluster: 'm1' }, from: null, to: 2, by: '', why: '' },
        { time: '2024-01-01T00:00:00Z', field: { kind: 'replicas' }, from: null, to: 2, by: '', why: '' },
        { time: '2024-01-01T00:05:00Z', field: { kind: 'cluster', cluster: 'm1' }, from: 2, to: null, by: '', why: '' },
        {
          time: '2024-01-01T00:05:00Z',
          field: { kind: 'memberHpa', cluster: 'm1' },
          from: null,
          to: { minReplicas: 1, maxReplicas: 3 },
          by: '',
          why: '',
        },
      ],
      now,
    );
    expect(series.map((s) => [s.name, s.points.map((p) => [new Date(p.t).toISOString().slice(11, 16), p.v])])).toEqual([
      [
        'replicas',
        [
          ['00:00', 2],
          ['00:10', 2],
        ],
      ],
      [
        'cluster m1',
        [
          ['00:01', 2],
          ['00:05', 0],
          ['00:10', 0],
        ],
      ],
    ]);
  });

  it.each([
    [3, '3'],
    [null, '-'],
    [{ minReplicas: 1, maxReplicas: 4 }, 'min 1 max 4'],
    [{ status: 'True', reason: 'ForeignMemberHPA' }, 'True (ForeignMemberHPA)'],
  ])('value %j reads %s', (v, text) => expect(trailValueText(v)).toBe(text));

  it.each([
    [{ kind: 'replicas' }, 'spec.replicas'],
    [{ kind: 'cluster', cluster: 'm1' }, 'm1 share'],
    [{ kind: 'autoscalerLimits', autoscaler: 'FederatedHPA default/x' }, 'limits of FederatedHPA default/x'],
  ])('field %j reads %s', (f, text) => expect(trailFieldText(f)).toBe(text));
});

describe('charts and time axes', () => {
  it('aligns series on one time column, null where a series has no point', () => {
    const replicas = {
      name: 'replicas',
      points: [
        { t: 0, v: 2 },
        { t: 120_000, v: 4 },
      ],
    };
    const member1 = { name: 'cluster member1', points: [{ t: 60_000, v: 1 }] };
    expect(alignSeries([replicas, member1], [180_000, 60_000])).toEqual({
      times: [0, 60_000, 120_000, 180_000],
      values: [
        [2, null, 4, null],
        [null, 1, null, null],
      ],
    });
    expect(alignSeries([], [5])).toEqual({ times: [5], values: [] });
  });

  it.each([
    [0, 10, [0, 10]],
    [3, 3, [0, 3]],
    [0, 0, [0, 1]],
    [-2, 5, [-2, 5]],
    [null, null, [0, 1]],
  ])('values from %j to %j are drawn over %j (counts from 0)', (min, max, range) =>
    expect(valueRange(min, max)).toEqual(range),
  );

  it.each([
    [[], [0, 60_000]],
    [[1_000], [-59_000, 61_000]],
    [
      [1_000, 5_000],
      [1_000, 5_000],
    ],
  ])('times %j are drawn over %j', (times, range) => expect(timeRange(times)).toEqual(range));

  it.each([
    ['2024-03-10T08:00:00Z', 'Europe/Berlin', '2024-03-10 09:00 CET'],
    ['2024-07-01T08:00:00Z', 'Europe/Berlin', '2024-07-01 10:00 CEST'],
    ['2024-03-10T23:30:00Z', 'Asia/Shanghai', '2024-03-11 07:30 GMT+8'],
    ['2024-03-10T23:30:00Z', 'UTC', '2024-03-10 23:30 UTC'],
  ])('%s in %s is %s', (t, zone, text) => {
    expect(formatInZone(Date.parse(t), zone)).toBe(text);
    expect(dateInZone(Date.parse(t), zone)).toBe(text.slice(0, 10));
  });
});
