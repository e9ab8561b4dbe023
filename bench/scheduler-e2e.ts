// Scheduling end to end through the bus: gateway, status-writer, member-agent (BENCH_CLUSTERS simulated
// clusters) and affinity-scheduler as processes on a fresh prefix; one Divided PropagationPolicy selects every
// Deployment. Latency of one Deployment = from the gateway acknowledging its apply until a core NATS subscription on
// `<prefix>.events.ResourceBinding.*.*.BindingScheduled` sees the first decision for its binding. That path is
// gateway KV write -> scheduler detection (the binding created placed) -> event publish.
// Phases:
// 1. paced: BENCH_PACED applies at BENCH_RATE/s on a system holding only the clusters;
// 2. burst: BENCH_BINDINGS applies, BENCH_IN_FLIGHT at a time: end-to-end rate and latency;
//    bare KV compare-and-set updates (same bucket, same payload size, same in-flight bound) run before and after it;
// 3. paced again, now with the burst's bindings held (the steady state of a loaded scheduler);
// then the resident memory of the affinity-scheduler holding every binding.
import os from 'node:os';
import { connectBus, encodeJson, parseEventSubject, type Bus } from '@flotilla/bus';
import { GatewayClient } from '@flotilla/client';
import { NATS_URL } from '@flotilla/testkit';
import { startSuite } from '../test/support/suite.js';
import {
  applyBenchFleet,
  benchDeployment,
  boundedRun,
  cpuOfPidSeconds,
  eventLoopDelayOf,
  fmt,
  heapOfServiceMb,
  latencySummary,
  machineCpuSeconds,
  natsTrafficOf,
  percentile,
  report,
  rssOfPidMb,
  trafficSince,
  waitFor,
  type ConnectionTraffic,
} from './support.js';

const CLUSTERS = Number(process.env.BENCH_CLUSTERS ?? 100);
const BINDINGS = Number(process.env.BENCH_BINDINGS ?? 10_000);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 64);
const PACED = Number(process.env.BENCH_PACED ?? 2000);
const RATE = Number(process.env.BENCH_RATE ?? 100);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 600_000);
const SIM_TICK_MS = process.env.BENCH_SIM_TICK_MS ?? '1000';
// The services' default lease; the test suite's 2 s lease is lost whenever a busy scheduler blocks its loop that long.
const LEASE_MS = process.env.BENCH_LEASE_MS ?? '10000';
const progress = (msg: string) => console.error(`[scheduler-e2e] ${msg}`);

/** Pairs each Deployment's apply acknowledgement with the first BindingScheduled of its binding, in either order. */
class LatencyTracker {
  private readonly ackAt = new Map<string, number>();
  private readonly eventAt = new Map<string, number>();
  private readonly done = new Set<string>();
  readonly samples = new Map<string, number[]>();
  lastEventAt = 0;

  constructor(private readonly phaseOf: (deployment: string) => string) {}

  count(phase: string): number {
    return this.samples.get(phase)?.length ?? 0;
  }

  acked(deployment: string, at: number): void {
    const e = this.eventAt.get(deployment);
    this.ackAt.set(deployment, at);
    if (e !== undefined) this.record(deployment, Math.max(0, e - at));
  }

  scheduled(deployment: string, at: number): void {
    if (this.done.has(deployment) || this.eventAt.has(deployment)) return;
    this.lastEventAt = at;
    const a = this.ackAt.get(deployment);
    if (a === undefined) this.eventAt.set(deployment, at);
    else this.record(deployment, at - a);
  }

  private record(deployment: string, ms: number): void {
    this.done.add(deployment);
    this.ackAt.delete(deployment);
    this.eventAt.delete(deployment);
    const phase = this.phaseOf(deployment);
    const list = this.samples.get(phase) ?? [];
    list.push(ms);
    this.samples.set(phase, list);
  }
}

/** Rate of bare KV compare-and-set updates: `n` keys created, then each updated once at its revision. */
async function bareCasRate(bus: Bus, n: number, round: number, payload: Uint8Array): Promise<number> {
  // A kind no service watches, in the same bucket as the real objects.
  const key = (i: number) => `BenchCas._.r${round}-${i}`;
  const revisions: number[] = new Array(n);
  await boundedRun(n, IN_FLIGHT, async (i) => {
    revisions[i] = await bus.objects.create(key(i), payload);
  });
  const t = performance.now();
  await boundedRun(n, IN_FLIGHT, async (i) => {
    await bus.objects.update(key(i), payload, revisions[i]!);
  });
  return n / ((performance.now() - t) / 1000);
}

/**
 * The least the product allows per binding, without the services: the template's create, the binding's create,
 * the binding's compare-and-set with its placement and the BindingScheduled event, `n` bindings with IN_FLIGHT in
 * flight, from this one process (no gateway hop, no informers, no scheduling logic). Bindings per second.
 */
async function productFloorRate(bus: Bus, n: number, payload: Uint8Array): Promise<number> {
  const root = bus.names.eventsRoot;
  const t = performance.now();
  await boundedRun(n, IN_FLIGHT, async (i) => {
    await bus.objects.create(`BenchFloorTemplate.default.f${i}`, payload);
    const revision = await bus.objects.create(`BenchFloorBinding.default.f${i}`, payload);
    await bus.objects.update(`BenchFloorBinding.default.f${i}`, payload, revision);
    await bus.js.publish(`${root}.BenchFloorBinding.default.f${i}.BindingScheduled`, payload, {
      msgID: `bench-floor-${i}`,
    });
  });
  return n / ((performance.now() - t) / 1000);
}

/**
 * Counts the writes that concern the burst's workloads, by stream: every put to the objects, status, Kubernetes-event
 * and trail buckets and every domain event whose key or subject names a `burst-` object (its Deployment or binding),
 * seen as the core messages JetStream stores. Attributed by name, so the clusters' own ticks (status reports, leases,
 * usage, samples) do not count, however long the wait for the deferred work.
 */
class BurstWrites {
  private readonly counts = new Map<string, number>();
  /** Writes by subject with the object's name and any digest blanked out (printed with BENCH_WRITES_DETAIL=1). */
  private readonly shapes = new Map<string, number>();
  private readonly subs: Array<{ unsubscribe(): void }> = [];
  /** The subjects written about the first burst workload, in order (printed with BENCH_WRITES_DETAIL=1). */
  readonly firstWorkload: string[] = [];
  total = 0;
  gets = 0;
  /** The burst bindings some member agent reported a workload status for (WorkloadStatusReported), and when the last came. */
  readonly reported = new Set<string>();
  lastFirstReportAt = 0;

  constructor(bus: Bus) {
    const families: Array<[label: string, subject: string]> = [
      ['objects', `$KV.${bus.names.objectsBucket}.>`],
      ['status', `$KV.${bus.names.statusBucket}.>`],
      ['kube-events', `$KV.${bus.names.kubeEventsBucket}.>`],
      ['trails', `$KV.${bus.names.trailsBucket}.>`],
      ['events', `${bus.names.eventsRoot}.>`],
    ];
    // KV reads about the burst's objects: direct gets (the services' buckets allow them), counted apart from writes.
    this.subs.push(
      bus.nc.subscribe('$JS.API.DIRECT.GET.>', {
        callback: (err, msg) => {
          if (!err && msg.subject.includes('.burst-')) this.gets++;
        },
      }),
    );
    // Every JetStream API request in the window, by subject shape (printed with BENCH_WRITES_DETAIL=1).
    if (process.env.BENCH_WRITES_DETAIL === '1')
      this.subs.push(
        bus.nc.subscribe('$JS.API.>', {
          callback: (err, msg) => {
            if (err) return;
            const shape = `api ${msg.subject
              .split('.')
              .map((part) => (part.includes('burst-') ? '*' : part))
              .slice(0, 6)
              .join('.')}`;
            this.shapes.set(shape, (this.shapes.get(shape) ?? 0) + 1);
          },
        }),
      );
    for (const [label, subject] of families) {
      this.counts.set(label, 0);
      this.subs.push(
        bus.nc.subscribe(subject, {
          callback: (err, msg) => {
            if (err || !msg.subject.includes('.burst-')) return;
            if (/\.burst-0(-deployment)?\./.test(`${msg.subject}.`)) this.firstWorkload.push(msg.subject);
            if (label === 'events' && msg.subject.endsWith('.WorkloadStatusReported')) {
              const binding = msg.subject.split('.').at(-2)!;
              if (!this.reported.has(binding)) {
                this.reported.add(binding);
                this.lastFirstReportAt = performance.now();
              }
            }
            this.counts.set(label, (this.counts.get(label) ?? 0) + 1);
            const shape = msg.subject
              .split('.')
              .map((part) => (part.includes('burst-') ? '*' : /^[0-9a-f]{16}$/.test(part) ? '<digest>' : part))
              .join('.');
            this.shapes.set(shape, (this.shapes.get(shape) ?? 0) + 1);
            this.total++;
          },
        }),
      );
    }
  }

  /** Writes per binding by stream, their sum, and the KV gets per binding. */
  perBinding(bindings: number): { total: number; byStream: string; gets: number } {
    const byStream = [...this.counts].map(([label, n]) => `${label} ${(n / bindings).toFixed(2)}`).join(', ');
    return { total: this.total / bindings, byStream, gets: this.gets / bindings };
  }

  /** Writes per binding by subject shape, most first. */
  shapesPerBinding(bindings: number): string[] {
    return [...this.shapes].sort((a, b) => b[1] - a[1]).map(([shape, n]) => `${(n / bindings).toFixed(2)}  ${shape}`);
  }

  stop(): void {
    for (const sub of this.subs) sub.unsubscribe();
  }
}

/**
 * The services' NATS messages per binding, in (published, requests included) and out (deliveries of watches and
 * consumers, replies), in total and per service; the bench's own client is left out.
 */
function trafficRow(traffic: Map<string, ConnectionTraffic> | undefined, bindings: number): string {
  if (!traffic) return 'n/a (no NATS monitoring at NATS_MONITOR_URL: the scripts start NATS with it)';
  const services = [...traffic].filter(([name]) => !name.startsWith('bench-'));
  const per = (n: number) => (n / bindings).toFixed(2);
  const total = services.reduce((t, [, c]) => ({ in: t.in + c.in, out: t.out + c.out }), { in: 0, out: 0 });
  const each = services
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, c]) => `${name} ${per(c.in)} / ${per(c.out)}`)
    .join(', ');
  return `in ${per(total.in)} / out ${per(total.out)} (${each}; /connz, first apply until the writes settled, the clusters' own reports and leases included)`;
}

/** Until the count stays the same for `quietMs`: the work the burst set off has settled. */
async function settled(writes: BurstWrites, quietMs: number): Promise<void> {
  let last = -1;
  let since = performance.now();
  await waitFor(
    () => {
      if (writes.total !== last) {
        last = writes.total;
        since = performance.now();
      }
      return performance.now() - since >= quietMs;
    },
    "the burst's writes settled",
    TIMEOUT_MS,
  );
}

/** Until the status writer has folded every event stored so far (its durable consumer has nothing pending). */
async function statusWriterCaughtUp(bus: Bus): Promise<void> {
  await waitFor(
    async () => {
      const info = await bus.jsm.consumers.info(bus.names.eventsStream, 'status-writer');
      return info.num_pending === 0 && info.num_ack_pending === 0;
    },
    'the status writer caught up with the events',
    TIMEOUT_MS,
  );
}

const s = await startSuite(['gateway', 'status-writer', 'member-agent', 'affinity-scheduler'], {
  LOG_LEVEL: 'warn',
  SIM_TICK_MS,
  LEADER_LEASE_MS: LEASE_MS,
  ...(process.env.SCHEDULER_CONCURRENCY ? { SCHEDULER_CONCURRENCY: process.env.SCHEDULER_CONCURRENCY } : {}),
});
progress(`suite up on prefix ${s.env.FLOTILLA_PREFIX}`);
const bus = await connectBus({ url: NATS_URL, prefix: s.env.FLOTILLA_PREFIX, name: 'bench-scheduler-e2e' });
try {
  const client = new GatewayClient(bus.nc, { apiRoot: bus.names.apiRoot, timeoutMs: 60_000 });
  const pidOf = (name: string) => s.suite.processes.find((p) => p.name === name)?.child.pid;
  const tracker = new LatencyTracker((d) => d.slice(0, d.indexOf('-')));
  const root = bus.names.eventsRoot;
  const sub = bus.nc.subscribe(`${root}.ResourceBinding.*.*.BindingScheduled`, {
    callback: (err, msg) => {
      if (err) return;
      const binding = parseEventSubject(root, msg.subject).name;
      if (binding.endsWith('-deployment'))
        tracker.scheduled(binding.slice(0, -'-deployment'.length), performance.now());
    },
  });

  // The fleet, Ready before the first workload.
  await applyBenchFleet(bus, client, CLUSTERS, IN_FLIGHT, { deployments: BINDINGS + 2 * PACED });
  progress(`${CLUSTERS} clusters ready`);

  const apply = async (name: string, i: number) => {
    await client.apply(benchDeployment(name, i));
    tracker.acked(name, performance.now());
  };
  const paced = async (phase: string) => {
    const t0 = performance.now();
    const pending: Promise<void>[] = [];
    for (let i = 0; i < PACED; i++) {
      const wait = t0 + (i * 1000) / RATE - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      pending.push(apply(`${phase}-${i}`, i));
    }
    await Promise.all(pending);
    const achieved = PACED / ((performance.now() - t0) / 1000);
    await waitFor(
      () => tracker.count(phase) >= PACED,
      `${PACED} ${phase} bindings scheduled (have ${tracker.count(phase)})`,
      TIMEOUT_MS,
    );
    return achieved;
  };

  // 1. paced, nearly empty
  const pacedEmptyRate = PACED > 0 ? await paced('pacedempty') : NaN;
  progress('paced phase on the empty system done');

  // 2. burst, between two rounds of bare CAS with a payload the size of one Deployment
  const payload = encodeJson(benchDeployment('burst-0000000', 0));
  const casBefore = await bareCasRate(bus, BINDINGS, 0, payload);
  // Where the burst's CPU goes: each service's user + system time from the first apply until every binding is scheduled.
  const services = ['gateway', 'affinity-scheduler', 'status-writer', 'member-agent'] as const;
  const cpuBefore = services.map((name) => cpuOfPidSeconds(pidOf(name)));
  const benchCpuBefore = process.cpuUsage();
  const machineBefore = machineCpuSeconds();
  const burstWrites = new BurstWrites(bus);
  const trafficBefore = await natsTrafficOf(bus.names.prefix);
  // Starts each service's event-loop delay window (a scrape resets it).
  const portOf = (name: string) => s.suite.processes.find((p) => p.name === name)?.httpPort;
  await Promise.all(services.map((name) => eventLoopDelayOf(portOf(name))));
  await bus.nc.flush();
  const t0 = performance.now();
  await boundedRun(BINDINGS, IN_FLIGHT, (i) => apply(`burst-${i}`, i));
  const applyMs = performance.now() - t0;
  progress(`burst applied in ${fmt(applyMs)} ms; waiting for its bindings`);
  await waitFor(
    () => tracker.count('burst') >= BINDINGS,
    `${BINDINGS} burst bindings scheduled (have ${tracker.count('burst')})`,
    TIMEOUT_MS,
  );
  const burstWallS = (tracker.lastEventAt - t0) / 1000;
  const loopDelays = await Promise.all(services.map((name) => eventLoopDelayOf(portOf(name))));
  const loopMax = Math.max(...loopDelays.map((d) => d.max));
  const loopDelay = `${services.map((name, i) => `${name} ${fmt(loopDelays[i]!.p99)} / ${fmt(loopDelays[i]!.max)}`).join(', ')} ms  (target max <= 1,000 ms: ${loopMax <= 1000 ? 'met' : 'missed'})`;
  const e2eRate = BINDINGS / burstWallS;
  const machine = machineCpuSeconds();
  const servicesCpu = services.map((name, i) => cpuOfPidSeconds(pidOf(name)) - (cpuBefore[i] as number));
  const benchCpu = process.cpuUsage(benchCpuBefore);
  const benchCpuS = (benchCpu.user + benchCpu.system) / 1e6;
  const machineBusy = machine.busy - machineBefore.busy;
  const burstCpu = [
    ...services.map((name, i) => `${name} ${fmt(servicesCpu[i] as number)} s`),
    `this bench's client ${fmt(benchCpuS)} s`,
    `the rest (NATS, anything else) ${fmt(machineBusy - benchCpuS - servicesCpu.reduce((a, b) => a + b, 0))} s`,
    `machine busy ${fmt(machineBusy)} of ${fmt(machine.total - machineBefore.total)} s`,
  ].join(', ');
  // Writes per binding, the work moved after the burst included: until every binding's workload was reported by a
  // member agent (a lagging agent shows as lag, not as fewer writes), the status writer has folded every event and
  // nothing more is written about the burst's objects for 3 s.
  await waitFor(() => burstWrites.reported.size >= BINDINGS, "every burst binding's workload reported", TIMEOUT_MS);
  const reportLagMs = burstWrites.lastFirstReportAt - tracker.lastEventAt;
  await statusWriterCaughtUp(bus);
  await settled(burstWrites, 3000);
  const trafficAfter = await natsTrafficOf(bus.names.prefix);
  const traffic = trafficBefore && trafficAfter ? trafficSince(trafficAfter, trafficBefore) : undefined;
  burstWrites.stop();
  const writes = burstWrites.perBinding(BINDINGS);
  if (process.env.BENCH_WRITES_DETAIL === '1')
    progress(
      `the writes about burst-0, in order:\n  ${burstWrites.firstWorkload.join('\n  ')}\n` +
        `writes per binding by subject:\n  ${burstWrites.shapesPerBinding(BINDINGS).join('\n  ')}`,
    );
  await new Promise((r) => setTimeout(r, 3000));
  const rssBurst = rssOfPidMb(pidOf('affinity-scheduler'));
  const casAfter = await bareCasRate(bus, BINDINGS, 1, payload);
  const casRate = (casBefore + casAfter) / 2;
  const floorRate = await productFloorRate(bus, BINDINGS, payload);
  progress('burst done');

  // 3. paced, holding the burst's bindings
  const pacedLoadedRate = PACED > 0 ? await paced('pacedloaded') : NaN;
  await new Promise((r) => setTimeout(r, 3000));
  const rss = (name: string) => rssOfPidMb(pidOf(name));
  const heap = await heapOfServiceMb(s.suite.processes.find((p) => p.name === 'affinity-scheduler')?.httpPort);
  await sub.drain();
  // How often the scheduling controller reconciled, by outcome: a decision that cannot place a binding (no room) is
  // retried every 10 s, and a count far above the bindings shows work done more than once.
  const schedulerPort = s.suite.processes.find((p) => p.name === 'affinity-scheduler')?.httpPort;
  const schedulerMetrics = await (await fetch(`http://127.0.0.1:${schedulerPort}/metrics`)).text();
  const reconciles = [
    ...schedulerMetrics.matchAll(/^flotilla_reconcile_total\{controller="scheduling",result="(\w+)"[^}]*\} (\d+)$/gm),
  ]
    .map(([, result, n]) => `${result} ${fmt(Number(n))}`)
    .join(', ');
  const reconcileTotal = [
    ...schedulerMetrics.matchAll(/^flotilla_reconcile_total\{controller="scheduling",[^}]*\} (\d+)$/gm),
  ].reduce((sum, [, n]) => sum + Number(n), 0);
  // Keys a resync pass found up to date (kept, nothing changed since) and did not reconcile again.
  const passSkips = Number(
    /^flotilla_reconcile_pass_skips_total\{controller="scheduling"[^}]*\} (\d+)$/m.exec(schedulerMetrics)?.[1] ?? 0,
  );
  // The member side's work as counts: the kube driver's passes (reconciles of kube-member) and the bindings they looked
  // at, each look being desired objects, a plan, an observation and a report for one binding in one cluster.
  const agentPort = s.suite.processes.find((p) => p.name === 'member-agent')?.httpPort;
  const agentMetrics = await (await fetch(`http://127.0.0.1:${agentPort}/metrics`)).text();
  const memberPasses = [
    ...agentMetrics.matchAll(/^flotilla_reconcile_total\{controller="kube-member",[^}]*\} (\d+)$/gm),
  ].reduce((sum, [, n]) => sum + Number(n), 0);
  const looksByPass = [
    ...agentMetrics.matchAll(/^flotilla_kube_member_binding_looks_total\{[^}]*pass="(\w+)"[^}]*\} (\d+)$/gm),
  ].map(([, pass, n]) => [pass!, Number(n)] as const);
  // A usage read is no look: pod metrics due, a binding's usage is read again from its pods alone.
  const looks = looksByPass.filter(([pass]) => pass !== 'usage');
  const bindingLooks = looks.reduce((sum, [, n]) => sum + n, 0);
  const usageReads = looksByPass.find(([pass]) => pass === 'usage')?.[1] ?? 0;
  // What marked the bindings the `changed` looks took (a look may take several marks of one binding at once).
  const wakes = [
    ...agentMetrics.matchAll(/^flotilla_kube_member_binding_wakes_total\{[^}]*reason="([\w-]+)"[^}]*\} (\d+)$/gm),
  ].map(([, reason, n]) => [reason!, Number(n)] as const);
  const perBinding = (n: number) => (n / (BINDINGS + 2 * PACED)).toFixed(2);
  // Why each term ended ("deadline": no renewal answered in time, "lost": another holder), to tell a starved
  // process from a Redis that answered late.
  const demotions = s.logs
    .filter((l) => l.startsWith('[affinity-scheduler]') && l.includes('no longer leader'))
    .map((l) => /"reason":"([a-z]+)"/.exec(l)?.[1] ?? 'unknown');

  const p99 = (phase: string) =>
    percentile(
      [...(tracker.samples.get(phase) ?? [])].sort((a, b) => a - b),
      99,
    );
  report(
    `scheduling end to end: Divided (dynamic weight) over ${CLUSTERS} simulated clusters, member-agent tick ${SIM_TICK_MS} ms`,
    [
      [
        'burst',
        `${BINDINGS} Deployments, ${IN_FLIGHT} in flight: applies took ${fmt(applyMs)} ms (${fmt(BINDINGS / (applyMs / 1000))}/s)`,
      ],
      ['burst end-to-end rate', `${fmt(e2eRate)} bindings/s (first apply -> last BindingScheduled)`],
      [
        'bare KV CAS rate',
        `${fmt(casRate)} updates/s (before ${fmt(casBefore)}, after ${fmt(casAfter)}; ${IN_FLIGHT} in flight, ${payload.length} B values)`,
      ],
      ['end to end / bare CAS', `${((100 * e2eRate) / casRate).toFixed(1)} %  (target >= 50 %)`],
      [
        'the least the product allows',
        `${fmt(floorRate)} bindings/s = ${((100 * floorRate) / casRate).toFixed(1)} % of bare CAS (per binding: template create, binding create, binding CAS, event; one process, no services)`,
      ],
      [
        'burst CPU by service',
        `${burstCpu} (user + system, first apply to all scheduled; ${fmt(burstWallS)} s wall on ${os.availableParallelism()} cores)`,
      ],
      ['burst apply-to-BindingScheduled', latencySummary(tracker.samples.get('burst') ?? [])],
      [
        'last first report after',
        `${fmt(reportLagMs)} ms after the last BindingScheduled (every binding's first WorkloadStatusReported; the writes are counted until it came at least)`,
      ],
      ['event-loop delay p99 / max', `${loopDelay}, first apply to all scheduled`],
      [
        'stream writes per binding',
        `${writes.total.toFixed(2)} (${writes.byStream}; every write naming a burst object, until they settled)`,
      ],
      ['KV gets per binding', `${writes.gets.toFixed(2)} (direct gets of a burst object's key, in the same window)`],
      ['NATS messages per binding', trafficRow(traffic, BINDINGS)],
      [
        `paced ${RATE}/s, empty system`,
        `${latencySummary(tracker.samples.get('pacedempty') ?? [])}, achieved ${fmt(pacedEmptyRate)}/s  (target p99 <= 50 ms: ${p99('pacedempty') <= 50 ? 'met' : 'missed'})`,
      ],
      [
        `paced ${RATE}/s, holding ${BINDINGS} more`,
        `${latencySummary(tracker.samples.get('pacedloaded') ?? [])}, achieved ${fmt(pacedLoadedRate)}/s  (target p99 <= 50 ms: ${p99('pacedloaded') <= 50 ? 'met' : 'missed'})`,
      ],
      [
        'affinity-scheduler VmRSS',
        `${fmt(rssBurst)} MiB after the burst (${BINDINGS + PACED} bindings), ${fmt(rss('affinity-scheduler'))} MiB at the end (${BINDINGS + 2 * PACED}; RssAnon ${fmt(rssOfPidMb(pidOf('affinity-scheduler'), 'RssAnon'))} MiB, V8 heap in use ${fmt(heap.heapUsed)} MiB, external ${fmt(heap.external)} MiB)  (target <= 100 MiB at 10,000)`,
      ],
      [
        'scheduling reconciles',
        `${reconciles} (${BINDINGS + 2 * PACED} bindings: ${(reconcileTotal / (BINDINGS + 2 * PACED)).toFixed(2)} per binding; resync passes left ${passSkips} kept bindings alone)`,
      ],
      [
        'member passes',
        `${fmt(memberPasses)} passes looked at ${fmt(bindingLooks)} bindings (${BINDINGS + 2 * PACED} bindings: ${perBinding(bindingLooks)} looks per binding over all its clusters: ${looks.map(([pass, n]) => `${pass} ${perBinding(n)}`).join(', ')}; marked by ${wakes.map(([reason, n]) => `${reason} ${perBinding(n)}`).join(', ') || 'nothing'}; usage read again ${perBinding(usageReads)} per binding without a look; ${CLUSTERS} clusters, from the start)`,
      ],
      [
        'scheduler leadership lost',
        `${demotions.length} times (lease ${LEASE_MS} ms${demotions.length > 0 ? `; ${demotions.join(', ')}` : ''})`,
      ],
      [
        'other services VmRSS',
        `gateway ${fmt(rss('gateway'))} MiB, status-writer ${fmt(rss('status-writer'))} MiB, member-agent ${fmt(rss('member-agent'))} MiB (RssAnon ${['gateway', 'status-writer', 'member-agent'].map((n) => fmt(rssOfPidMb(pidOf(n), 'RssAnon'))).join(', ')} MiB)  (target <= 143 MiB each)`,
      ],
    ],
  );
} finally {
  await bus.close();
  await s.stop();
}
