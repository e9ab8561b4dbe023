import { busOptionsFromEnv, connectBus, consumeEvents } from '@flotilla/bus';
import { baseConfigSchema, envInt, runService, startLeaderWork } from '@flotilla/runtime';
import { KubeEventStore, objectKey, StatusStore } from '@flotilla/store';
import { defaultReducers } from './default-reducers.js';
import { FoldLag } from './fold-lag.js';
import { refOfEvent, StatusWriter } from './status-writer.js';

const configSchema = baseConfigSchema.extend({
  /** Objects folded at once; the events of one object are always folded one at a time, in stream order. */
  STATUS_WRITER_CONCURRENCY: envInt({ default: 64, min: 1 }),
});

await runService({
  name: 'status-writer',
  configSchema,
  async start({ config, logger, setReady, registry }) {
    const bus = await connectBus(busOptionsFromEnv(config, 'status-writer'));
    const writer = new StatusWriter(new StatusStore(bus), new KubeEventStore(bus), defaultReducers(), new FoldLag(registry, bus, 'status-writer'));
    // Only the leader folds; an object's status depends on the order of its events, so those go one at a time.
    const stopLeaderWork = await startLeaderWork({
      redisUrl: config.REDIS_URL,
      redisPassword: config.REDIS_PASSWORD,
      key: `${config.FLOTILLA_PREFIX}:leader:status-writer`,
      leaseMs: config.LEADER_LEASE_MS,
      logger,
      registry,
      work: async () => {
        const sub = await consumeEvents(bus, {
          durable: 'status-writer',
          // The fold skips an event older than what it folded last for the object: a handover must not reorder.
          exclusive: true,
          concurrency: config.STATUS_WRITER_CONCURRENCY,
          orderKey: (d) => objectKey(refOfEvent(d.event)),
          handler: (d) => writer.handle(d),
          onError: (err, d) => logger.error({ err, seq: d.seq, type: d.event.type }, 'folding an event failed; retrying it before later events of its object'),
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
