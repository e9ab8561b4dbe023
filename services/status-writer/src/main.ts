import type { ServiceName } from '@flotilla/catalogue';
import { runBusService } from '@flotilla/controller';
import { baseConfigSchema, envInt } from '@flotilla/runtime';
import { Informers, KubeEventStore, ObjectStore, replicaWriterSpecs, StatusStore } from '@flotilla/store';
import { defaultReducers } from './default-reducers.js';
import { foldEvents } from './fold-events.js';
import { FoldLag } from './fold-lag.js';
import { StatusWriter } from './status-writer.js';
import { TRAIL_PROJECTOR_DEFAULTS, TrailProjector } from './trail-projector.js';

const SERVICE: ServiceName = 'status-writer';

const configSchema = baseConfigSchema.extend({
  /** Objects folded at once; the events of one object are always folded one at a time, in stream order. */
  STATUS_WRITER_CONCURRENCY: envInt({ default: 64, min: 1 }),
  /** A workload's replica trail is projected once an object had this many decisions since (TrailProjector). */
  TRAIL_PROJECT_AFTER_DECISIONS: envInt({ default: TRAIL_PROJECTOR_DEFAULTS.projectAfterDecisions, min: 1 }),
});

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
