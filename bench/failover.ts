// How long writes stop when a server dies: kill -9 of the NATS node leading the objects bucket of a 3-node JetStream
// cluster (R3), and kill -9 of the Redis primary behind three Sentinels, BENCH_KILLS times each. A write is a KV put
// through Flotilla's bus (NATS_TIMEOUT_MS 2000, as on a cluster) and a SET through Flotilla's Sentinel-aware Redis
// client; the figure is the time from the kill to the first write that, sent after it, is accepted. Between kills the
// dead server comes back and the topology settles (every node healthy; the Sentinels know the replica again).
import { connectBus } from '@flotilla/bus';
import { closeRedis, createRedis } from '@flotilla/runtime';
import { PrivateNatsCluster, PrivateRedisSentinel, uniquePrefix } from '@flotilla/testkit';
import { fmt, percentile, report } from './support.js';

const KILLS = Number(process.env.BENCH_KILLS ?? 10);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Tries `write` until it succeeds; the time from `since` to that success. */
async function firstAccepted(since: number, write: () => Promise<unknown>): Promise<number> {
  for (;;) {
    try {
      await write();
      return Date.now() - since;
    } catch {
      await sleep(20);
    }
  }
}

function summary(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  return `median ${fmt(percentile(sorted, 50) / 1000, 2)} s, max ${fmt((sorted.at(-1) ?? NaN) / 1000, 2)} s (${samples.length} kills: ${sorted.map((s) => fmt(s / 1000, 1)).join(', ')} s)`;
}

async function natsKills(): Promise<number[]> {
  const cluster = await PrivateNatsCluster.start();
  const bus = await connectBus({
    url: cluster.url,
    prefix: uniquePrefix('failover'),
    name: 'bench-failover',
    requestTimeoutMs: 2000,
  });
  const stream = `KV_${bus.names.objectsBucket}`;
  const samples: number[] = [];
  try {
    let n = 0;
    const put = () => bus.objects.put(`probe.${n++}`, 'x');
    for (let k = 0; k < KILLS; k++) {
      await firstAccepted(Date.now(), put);
      const leader = await cluster.streamLeader(stream);
      if (leader === undefined) throw new Error(`${stream} has no leader`);
      const killedAt = Date.now();
      await cluster.kill(leader);
      samples.push(await firstAccepted(killedAt, put));
      await cluster.restart(leader);
      await cluster.waitHealthy(120_000);
    }
  } finally {
    await bus.close().catch(() => undefined);
    await cluster.dispose();
  }
  return samples;
}

async function redisKills(): Promise<number[]> {
  const set = await PrivateRedisSentinel.start({ name: 'flotilla' });
  const redis = createRedis('redis://127.0.0.1:6379', {
    sentinel: { sentinels: set.sentinels.map((s) => ({ host: '127.0.0.1', port: s.port })), name: set.name },
    extra: { maxRetriesPerRequest: 0 },
  });
  redis.on('error', () => undefined);
  const samples: number[] = [];
  try {
    const write = () => redis.set('failover:probe', String(Date.now()));
    for (let k = 0; k < KILLS; k++) {
      await firstAccepted(Date.now(), write);
      const primary = await set.primary();
      if (!primary) throw new Error('the Sentinels name no primary');
      const killedAt = Date.now();
      await primary.stop('SIGKILL');
      samples.push(await firstAccepted(killedAt, write));
      // Back empty; the Sentinels make it a replica of the new primary.
      await primary.start();
      await set.waitSettled(120_000);
    }
  } finally {
    await closeRedis(redis);
    await set.dispose();
  }
  return samples;
}

const nats = await natsKills();
const redis = await redisKills();
report('time from kill -9 to the first write accepted again', [
  ['NATS node leading the objects (3 nodes, R3)', summary(nats)],
  ['Redis primary (Sentinel, down-after 1 s)', summary(redis)],
]);
