// Where the affinity scheduler's memory goes: the controller in-process over BENCH_BINDINGS Deployments and
// BENCH_CLUSTERS Ready clusters; V8 heap in use (after a full GC) before and after, per binding. Run with
// `node --expose-gc`, as bench/run does.
import { admit } from '@flotilla/api';
import { publishEvent } from '@flotilla/bus';
import { ObjectStore, StatusStore, type StoredObject } from '@flotilla/store';
import { AffinitySchedulerController } from '@flotilla/affinity-scheduler';
import {
  benchCluster,
  benchDeployment,
  benchPolicy,
  boundedRun,
  fmt,
  report,
  rssMb,
  waitFor,
  withBenchBus,
} from './support.js';

const CLUSTERS = Number(process.env.BENCH_CLUSTERS ?? 100);
const BINDINGS = Number(process.env.BENCH_BINDINGS ?? 10_000);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const heapMb = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 1048576;
};
const silent = { info: () => undefined, warn: () => undefined, error: (o: object, m: string) => console.error(m, o) };

await withBenchBus('sched-mem', async (bus) => {
  const store = new ObjectStore(bus);
  const statuses = new StatusStore(bus);
  await boundedRun(CLUSTERS, 32, async (i) => {
    const c = admit(benchCluster(i)) as StoredObject;
    await store.apply(c);
    await statuses.fold({ kind: 'Cluster', name: c.metadata.name }, i + 1, () => ({
      conditions: [
        { type: 'Ready', status: 'True', reason: 'ClusterReady', lastTransitionTime: '2026-01-01T00:00:00Z' },
      ],
      resourceSummary: {
        allocatable: { cpu: '64', memory: '512Gi', pods: '2000' },
        allocated: { cpu: '0', memory: '0', pods: '0' },
      },
    }));
  });
  await store.apply(admit(benchPolicy) as StoredObject);
  const controller = new AffinitySchedulerController({
    bus,
    store,
    publish: (e) => publishEvent(bus, e),
    logger: silent,
    failoverGraceMs: 30_000,
    resyncMs: 3_600_000,
    concurrency: 64,
  });
  await controller.start();
  await controller.idle();
  const before = heapMb();
  await boundedRun(BINDINGS, 64, async (i) => {
    await store.apply(admit(benchDeployment(`d-${i}`, i)) as StoredObject);
  });
  await waitFor(
    async () =>
      (await bus.objects.keys('ResourceBinding.>').then(async (it) => {
        let n = 0;
        for await (const _ of it) n++;
        return n;
      })) >= BINDINGS,
    'bindings',
    120_000,
    1000,
  );
  await new Promise((r) => setTimeout(r, 2000));
  await controller.idle();
  const after = heapMb();
  report(`affinity scheduler memory, in-process: ${BINDINGS} bindings over ${CLUSTERS} clusters`, [
    [
      'V8 heap in use',
      `${fmt(before)} MiB before, ${fmt(after)} MiB after: ${fmt(((after - before) * 1048576) / BINDINGS)} B per binding`,
    ],
    ['process RSS', `${fmt(rssMb())} MiB (this process also holds the benchmark's own client)`],
  ]);
  await controller.stop();
});
