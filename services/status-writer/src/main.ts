import { busOptionsFromEnv, connectBus, consumeEvents } from '@flotilla/bus';
import { baseConfigSchema, runService, startLeaderWork } from '@flotilla/runtime';
import { KubeEventStore, StatusStore } from '@flotilla/store';
import { defaultReducers } from './default-reducers.js';
import { StatusWriter } from './status-writer.js';

await runService({
  name: 'status-writer',
  configSchema: baseConfigSchema,
  async start({ config, logger, setReady }) {
    const bus = await connectBus(busOptionsFromEnv(config, 'status-writer'));
    const writer = new StatusWriter(new StatusStore(bus), new KubeEventStore(bus), defaultReducers());
    // Only the leader folds, one event at a time: status depends on event order.
    const stopLeaderWork = await startLeaderWork({
      redisUrl: config.REDIS_URL,
      redisPassword: config.REDIS_PASSWORD,
      key: `${config.FLOTILLA_PREFIX}:leader:status-writer`,
      leaseMs: config.LEADER_LEASE_MS,
      logger,
      work: async () => {
        const sub = await consumeEvents(bus, {
          durable: 'status-writer',
          handler: (d) => writer.handle(d),
          onError: (err, d) => logger.error({ err, seq: d.seq, type: d.event.type }, 'folding an event failed; it will be redelivered'),
        });
        return () => sub.stop();
      },
    });
    setReady(true);
    return async () => {
      setReady(false);
      await stopLeaderWork();
      await bus.close();
    };
  },
});
