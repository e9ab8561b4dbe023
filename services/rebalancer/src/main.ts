import type { ServiceName } from '@flotilla/catalogue';
import { runBusService } from '@flotilla/controller';
import { openInformers } from '@flotilla/store';
import { configSchema } from './config.js';
import { RebalancerController } from './controller.js';

const SERVICE: ServiceName = 'rebalancer';

await runBusService({
  name: SERVICE,
  configSchema,
  // The TTL timers' connection; the lease has its own.
  redis: { gate: 'redis-timers' },
  // One informer per kind for the process; it closes its readiness gate while its cache cannot be trusted.
  open: openInformers,
  async run({ config, logger }, deps) {
    const controller = new RebalancerController({
      ...deps,
      concurrency: config.REBALANCER_CONCURRENCY,
      writeConcurrency: config.REBALANCER_WRITE_CONCURRENCY,
      resyncMs: config.REBALANCER_RESYNC_MS,
      failBackBudget: {
        max: config.REBALANCER_FAILBACK_BUDGET,
        periodMs: config.REBALANCER_FAILBACK_BUDGET_PERIOD_MS,
      },
    });
    await controller.start();
    logger.info({}, 'rebalancing as leader');
    return () => controller.stop();
  },
});
