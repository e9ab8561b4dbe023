import { busOptionsFromEnv, connectBus, consumeEvents } from '@flotilla/bus';
import { baseConfigSchema, connectRedis, LeaderElector, runService, runWhileLeader } from '@flotilla/runtime';
import { KubeEventStore, StatusStore } from '@flotilla/store';
import { defaultReducers } from './default-reducers.js';
import { StatusWriter } from './status-writer.js';

await runService({
  name: 'status-writer',
  configSchema: baseConfigSchema,
  async start({ config, logger, setReady }) {
    const bus = await connectBus(busOptionsFromEnv(config, 'status-writer'));
    const redis = await connectRedis(config.REDIS_URL, { password: config.REDIS_PASSWORD });
    const writer = new StatusWriter(new StatusStore(bus), new KubeEventStore(bus), defaultReducers());
    const elector = new LeaderElector({
      redis,
      key: `${config.FLOTILLA_PREFIX}:leader:status-writer`,
      leaseMs: config.LEADER_LEASE_MS,
      logger,
    });
    // Only the leader folds, one event at a time: status depends on event order.
    const stopWork = runWhileLeader(elector, async (signal) => {
      const sub = await consumeEvents(bus, {
        durable: 'status-writer',
        handler: (d) => writer.handle(d),
        onError: (err, d) => logger.error({ err, seq: d.seq, type: d.event.type }, 'folding an event failed; it will be redelivered'),
      });
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      await sub.stop();
    });
    await elector.start();
    setReady(true);
    return async () => {
      setReady(false);
      await stopWork();
      await elector.stop();
      await bus.close();
      await redis.quit();
    };
  },
});
