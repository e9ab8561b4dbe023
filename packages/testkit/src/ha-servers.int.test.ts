// The HA test topology itself: a 3-node JetStream cluster that survives a kill -9 of one node, and Redis whose
// Sentinels promote the replica when the primary is killed.
import { afterAll, describe, expect, it } from 'vitest';
import { PrivateNatsCluster, PrivateRedisSentinel, redisCommand } from './ha-servers.js';

describe('PrivateNatsCluster', () => {
  let cluster: PrivateNatsCluster | undefined;
  afterAll(async () => cluster?.dispose());

  it('starts 3 routed nodes, loses one to kill -9 and takes it back', async () => {
    cluster = await PrivateNatsCluster.start();
    expect(cluster.url.split(',')).toHaveLength(3);
    await cluster.kill(1);
    expect(await cluster.healthy(1)).toBe(false);
    await cluster.waitHealthy(30_000, [0, 2]);
    await cluster.restart(1);
    await cluster.waitHealthy();
  }, 120_000);
});

describe('PrivateRedisSentinel', () => {
  let set: PrivateRedisSentinel | undefined;
  afterAll(async () => set?.dispose());

  it('promotes the replica when the primary is killed, and the old primary comes back as a replica', async () => {
    set = await PrivateRedisSentinel.start();
    const [first, second] = set.servers;
    expect(await set.primaryPort()).toBe(first.port);
    await redisCommand(first.port, ['SET', 'k', 'v']);
    await first.stop('SIGKILL');
    const deadline = Date.now() + 30_000;
    while ((await set.primaryPort()) !== second.port && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect(await set.primaryPort()).toBe(second.port);
    expect(await redisCommand(second.port, ['GET', 'k'])).toBe('v');
    await first.start();
    await set.waitSettled();
  }, 120_000);
});
