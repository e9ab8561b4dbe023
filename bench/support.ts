import { readFileSync } from 'node:fs';
import { connectBus, destroyBus, listJson, parseEventSubject, type Bus } from '@flotilla/bus';
import type { GatewayClient } from '@flotilla/client';
import { NATS_URL, uniquePrefix } from '@flotilla/testkit';

/** Percentile of a sorted sample (nearest rank). */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export function fmt(n: number, digits = 1): string {
  return n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(digits);
}

export function rssMb(): number {
  return process.memoryUsage().rss / 2 ** 20;
}

/** A bus on a fresh prefix, destroyed after `fn`. */
export async function withBenchBus<T>(label: string, fn: (bus: Bus) => Promise<T>): Promise<T> {
  const bus = await connectBus({ url: NATS_URL, prefix: uniquePrefix(label), name: `bench-${label}` });
  try {
    return await fn(bus);
  } finally {
    await destroyBus(bus);
    await bus.close();
  }
}

export function report(title: string, rows: Array<[string, string]>): void {
  console.log(`\n${title}`);
  const w = Math.max(...rows.map(([k]) => k.length));
  for (const [k, v] of rows) console.log(`  ${k.padEnd(w)}  ${v}`);
}

/**
 * Resident memory of another process in MiB, read from procfs: VmRSS (now), VmHWM (the peak so far) or RssAnon (what
 * the process itself owns: VmRSS less the file-backed pages, some 55 MiB of which are node's own code, shared by every
 * node process). NaN where procfs is not there or the process is gone.
 */
export function rssOfPidMb(pid: number | undefined, field: 'VmRSS' | 'VmHWM' | 'RssAnon' = 'VmRSS'): number {
  if (pid === undefined) return NaN;
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/**
 * CPU time (user + system) another process has used so far, in seconds, read from procfs (`/proc/<pid>/stat`,
 * counted in clock ticks of 1/100 s on Linux). NaN where procfs is not there or the process is gone.
 */
export function cpuOfPidSeconds(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command (which may hold spaces, in parentheses): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/**
 * The whole machine's CPU time so far, in seconds summed over its cores, from `/proc/stat`: `busy` (user, nice,
 * system, irq, softirq, steal) and `total` (busy, idle and iowait). NaN where procfs is not there.
 */
export function machineCpuSeconds(): { busy: number; total: number } {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = fields;
    const busy = user + nice + system + irq + softirq + steal;
    return { busy: busy / 100, total: (busy + idle + iowait) / 100 };
  } catch {
    return { busy: NaN, total: NaN };
  }
}

/** A service's V8 heap in use and its memory outside the heap (buffers), from its Prometheus /metrics. */
export async function heapOfServiceMb(httpPort: number | undefined): Promise<{ heapUsed: number; external: number }> {
  if (httpPort === undefined) return { heapUsed: NaN, external: NaN };
  const text = await (await fetch(`http://127.0.0.1:${httpPort}/metrics`)).text();
  const gauge = (name: string) =>
    Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(text)?.[1] ?? NaN) / 1048576;
  return { heapUsed: gauge('nodejs_heap_size_used_bytes'), external: gauge('nodejs_external_memory_bytes') };
}

/** Runs `fn(0..count-1)` with at most `limit` calls in flight; rejects on the first failure. */
export async function boundedRun(count: number, limit: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await fn(next++);
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
}

/** p50 / p99 / max of a sample of milliseconds, formatted for a report row. */
export function latencySummary(samples: number[]): string {
  const s = [...samples].sort((a, b) => a - b);
  return `p50 ${fmt(percentile(s, 50))} ms, p99 ${fmt(percentile(s, 99))} ms, max ${fmt(s[s.length - 1] ?? NaN)} ms (n=${s.length})`;
}

/** A deterministic pseudo-random source (mulberry32), so every run builds the same inputs. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Resolves when `probe` returns true, polling every `everyMs`; throws after `timeoutMs` naming `what`. */
export async function waitFor(
  probe: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs: number,
  everyMs = 50,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await probe())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

const REGIONS = ['cn-north', 'cn-east', 'ap-east', 'eu-west', 'us-east'];

/** Deployments per cluster a benchCluster of the default size holds with room to spare (about half its cpu). */
const DEPLOYMENTS_PER_CLUSTER = 200;

/**
 * How much larger than the default each of `clusters` benchClusters must be to hold `deployments` benchDeployments
 * with the same room: 1 up to DEPLOYMENTS_PER_CLUSTER each (every bench's default size), more beyond. At 50,000
 * Deployments over 100 clusters the default clusters ran out of cpu, and the bench waited out its timeout on bindings
 * that could not be placed.
 */
export const benchClusterScale = (deployments: number, clusters: number): number =>
  Math.max(1, Math.ceil(deployments / (clusters * DEPLOYMENTS_PER_CLUSTER)));

/**
 * Simulated member cluster `i` of a scheduling benchmark, labelled `bench=e2e`, with room for every replica of a
 * run, so that Divided placement never runs out of capacity mid-benchmark: `scale` times the default's cpu and pods.
 */
export function benchCluster(i: number, scale = 1) {
  return {
    apiVersion: 'cluster.karmada.io/v1alpha1',
    kind: 'Cluster',
    metadata: { name: `member-${String(i).padStart(3, '0')}`, labels: { bench: 'e2e' } },
    spec: {
      syncMode: 'Push',
      region: REGIONS[i % REGIONS.length]!,
      simulation: {
        allocatable: {
          cpu: String((64 + (i % 8) * 16) * scale),
          memory: `${512 * scale}Gi`,
          pods: String(2000 * scale),
        },
      },
    },
  };
}

/** One Divided (dynamic weight) policy for every `bench=e2e` Deployment over every `bench=e2e` cluster. */
export const benchPolicy = {
  apiVersion: 'policy.karmada.io/v1alpha1',
  kind: 'PropagationPolicy',
  metadata: { name: 'bench', namespace: 'default' },
  spec: {
    resourceSelectors: [
      { apiVersion: 'apps/v1', kind: 'Deployment', labelSelector: { matchLabels: { bench: 'e2e' } } },
    ],
    placement: {
      clusterAffinity: { labelSelector: { matchLabels: { bench: 'e2e' } } },
      replicaScheduling: {
        replicaSchedulingType: 'Divided',
        replicaDivisionPreference: 'Weighted',
        weightPreference: { dynamicWeight: 'AvailableReplicas' },
      },
    },
  },
};

/** A Deployment of 1-5 replicas (by `i`) that benchPolicy selects. */
export function benchDeployment(name: string, i: number) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default', labels: { bench: 'e2e', app: name } },
    spec: {
      replicas: 1 + (i % 5),
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [
            {
              name: 'app',
              image: 'ghcr.io/example/app:1.0',
              resources: { requests: { cpu: '100m', memory: '128Mi' } },
            },
          ],
        },
      },
    },
  };
}

/**
 * The fleet of a scheduling benchmark: `clusters` benchClusters applied through the gateway, `inFlight` at a time,
 * each with a status (its member-agent reported it), then benchPolicy unless `opts.policy` is false.
 */
export async function applyBenchFleet(
  bus: Bus,
  client: GatewayClient,
  clusters: number,
  inFlight: number,
  opts: { policy?: boolean; deployments?: number } = {},
) {
  const scale = benchClusterScale(opts.deployments ?? 0, clusters);
  await boundedRun(clusters, inFlight, async (i) => void (await client.apply(benchCluster(i, scale))));
  await waitFor(
    async () => (await listJson(bus.js, bus.names.statusBucket, 'Cluster.>')).items.length >= clusters,
    `${clusters} cluster statuses`,
    120_000,
    250,
  );
  if (opts.policy !== false) await client.apply(benchPolicy);
}

/**
 * Applies `objects` benchDeployments through the gateway, `inFlight` at a time, and resolves once a BindingScheduled
 * has been seen for each of their bindings (within `timeoutMs`).
 */
export async function applyAndSchedule(
  bus: Bus,
  client: GatewayClient,
  o: { objects: number; inFlight: number; timeoutMs: number },
): Promise<void> {
  const scheduled = new Set<string>();
  const root = bus.names.eventsRoot;
  const sub = bus.nc.subscribe(`${root}.ResourceBinding.*.*.BindingScheduled`, {
    callback: (err, msg) => {
      if (!err) scheduled.add(parseEventSubject(root, msg.subject).name);
    },
  });
  try {
    await boundedRun(o.objects, o.inFlight, async (i) => void (await client.apply(benchDeployment(`app-${i}`, i))));
    await waitFor(
      () => scheduled.size >= o.objects,
      `${o.objects} bindings scheduled (have ${scheduled.size})`,
      o.timeoutMs,
      250,
    );
  } finally {
    await sub.drain();
  }
}

// Prometheus histograms read from a /metrics page (the text format), for benches that time what a server measures
// itself: the gateway's answers to the admission webhook, the API server's calls to it.

/** Cumulative bucket counts by upper bound (`le`), +Inf last. */
export type Buckets = Array<[le: number, count: number]>;

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/**
 * The buckets of histogram `name` in a /metrics page, summed over every series whose labels include `labels`
 * (e.g. every webhook the API server called, allowed or rejected).
 */
export function histogramBuckets(text: string, name: string, labels: Record<string, string> = {}): Buckets {
  const byLe = new Map<number, number>();
  for (const line of text.split('\n')) {
    const m = SAMPLE.exec(line);
    if (!m || m[1] !== `${name}_bucket`) continue;
    const seen = Object.fromEntries([...(m[2] ?? '').matchAll(LABEL)].map((l) => [l[1]!, l[2]!]));
    if (seen.le === undefined || !Object.entries(labels).every(([k, v]) => seen[k] === v)) continue;
    const le = seen.le === '+Inf' ? Number.POSITIVE_INFINITY : Number(seen.le);
    byLe.set(le, (byLe.get(le) ?? 0) + Number(m[3]));
  }
  return [...byLe].sort(([a], [b]) => a - b);
}

/** What was observed between two readings of the same histogram (`before` may lack series `after` has). */
export function bucketsSince(after: Buckets, before: Buckets): Buckets {
  const earlier = new Map(before);
  return after.map(([le, count]) => [le, count - (earlier.get(le) ?? 0)]);
}

/** How many observations the buckets hold. */
export const observations = (buckets: Buckets): number => buckets.at(-1)?.[1] ?? 0;

/** The share of observations at most `le` (a bucket's upper bound), NaN without observations. */
export function shareAtMost(buckets: Buckets, le: number): number {
  const bucket = buckets.find(([b]) => b === le);
  if (!bucket) throw new Error(`no bucket with le=${le} (bounds: ${buckets.map(([b]) => b).join(', ')})`);
  return bucket[1] / observations(buckets);
}

/**
 * The q-quantile as Prometheus' histogram_quantile computes it: linear inside the bucket the rank falls in (the
 * first bucket starting at 0), the highest finite bound when it falls in +Inf. NaN without observations.
 */
export function histogramQuantile(buckets: Buckets, q: number): number {
  const total = observations(buckets);
  if (total === 0) return Number.NaN;
  const rank = q * total;
  let [lower, below] = [0, 0];
  for (const [le, count] of buckets) {
    if (count >= rank) {
      if (le === Number.POSITIVE_INFINITY) return lower;
      return count === below ? le : lower + ((le - lower) * (rank - below)) / (count - below);
    }
    [lower, below] = [le, count];
  }
  return lower;
}

/** Messages a connection published (in) and was sent (out: deliveries, replies), as NATS counts them. */
export interface ConnectionTraffic {
  in: number;
  out: number;
}

/**
 * Messages in and out of every NATS connection of the installation on `prefix`, summed per connection name (a
 * service's connections are named `<service>@<prefix>`), from the server's monitoring (/connz at NATS_MONITOR_URL,
 * which the scripts' NATS serves). Undefined when the server has no monitoring port: the figure is then not printed.
 */
export async function natsTrafficOf(prefix: string): Promise<Map<string, ConnectionTraffic> | undefined> {
  const url = process.env.NATS_MONITOR_URL ?? 'http://127.0.0.1:8222';
  const res = await fetch(`${url}/connz?limit=100000`, { signal: AbortSignal.timeout(5000) }).catch(() => undefined);
  if (!res?.ok) return undefined;
  const body = (await res.json()) as { connections?: Array<{ name?: string; in_msgs: number; out_msgs: number }> };
  const out = new Map<string, ConnectionTraffic>();
  for (const c of body.connections ?? []) {
    const suffix = `@${prefix}`;
    if (!c.name?.endsWith(suffix)) continue;
    const name = c.name.slice(0, -suffix.length);
    const t = out.get(name) ?? { in: 0, out: 0 };
    t.in += c.in_msgs;
    t.out += c.out_msgs;
    out.set(name, t);
  }
  return out;
}

/** What each connection name sent and received between two readings of natsTrafficOf. */
export function trafficSince(
  after: Map<string, ConnectionTraffic>,
  before: Map<string, ConnectionTraffic>,
): Map<string, ConnectionTraffic> {
  const out = new Map<string, ConnectionTraffic>();
  for (const [name, t] of after) {
    const b = before.get(name) ?? { in: 0, out: 0 };
    out.set(name, { in: t.in - b.in, out: t.out - b.out });
  }
  return out;
}

/**
 * A service's event-loop delay since the last reading (prom-client's default metrics reset their histogram at each
 * scrape): p99 and max in milliseconds. Read once before a phase to start the window, then after it.
 */
export async function eventLoopDelayOf(httpPort: number | undefined): Promise<{ p99: number; max: number }> {
  const text = await (await fetch(`http://127.0.0.1:${httpPort}/metrics`)).text();
  const value = (name: string) =>
    Number(new RegExp(`^${name}(?:\\{[^}]*\\})? ([\\d.e+-]+)`, 'm').exec(text)?.[1] ?? Number.NaN);
  return {
    p99: value('nodejs_eventloop_lag_p99_seconds') * 1000,
    max: value('nodejs_eventloop_lag_max_seconds') * 1000,
  };
}
