import type { ServiceName } from '@flotilla/catalogue';
import { runBusService } from '@flotilla/controller';
import { Informers, KubeEventStore, ObjectStore, replicaWriterSpecs, StatusStore } from '@flotilla/store';
import { defaultReducers } from './default-reducers.js';
import { foldEvents } from './fold-events.js';
import { FoldLag } from './fold-lag.js';
import { StatusWriter } from './status-writer.js';
import { configSchema } from './config.js';
import { TrailProjector } from './trail-projector.js';

const SERVICE: ServiceName = 'status-writer';

// Only the leader folds; an object's status depends on the order of its events, so those go one at a time.
await runBusService({
  name: SERVICE,
  configSchema,
  // Per replica, not per term: a standby reports the lag too, and a metric is registered once per process.
  open: ({ registry }, { bus }) => ({ foldLag: new FoldLag(registry, bus, SERVICE) }),
  async run({ config, logger, registry }, { bus, foldLag }) {
    const writer = new StatusWriter(new StatusStore(bus), new KubeEventStore(bus), defaultReducers(), foldLag);
    // The replica-trail projections follow the folded events (`flotilla explain replicas` reads them). The autoscalers
    // aimed at each workload come from informers, as the gateway's admission reads them; projecting does not wait
    // for their first list (a cache not yet trusted is bypassed: the store is listed instead).
    const objects = new ObjectStore(bus);
    const autoscalers = replicaWriterSpecs({
      bus,
      informers: new Informers({ bus, logger, registry }),
      store: objects,
      registry,
      logger,
    });
    void autoscalers.start();
    const trails = new TrailProjector({
      bus,
      objects,
      autoscalers,
      projectAfterDecisions: config.TRAIL_PROJECT_AFTER_DECISIONS,
      onError: (err, workload) => logger.warn({ err, workload }, 'projecting a replica trail failed; readers fold it'),
    });
    const sub = await foldEvents({
      bus,
      writer,
      durable: SERVICE,
      concurrency: config.STATUS_WRITER_CONCURRENCY,
      logger,
      lag: foldLag,
      onFolded: (e) => trails.noticed(e),
    });
    return async () => {
      await sub.stop();
      await trails.stop();
      autoscalers.stop();
    };
  },
});
