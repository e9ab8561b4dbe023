import type { ServiceName } from '@flotilla/catalogue';
import { runBusService } from '@flotilla/controller';
import { openInformers } from '@flotilla/store';
import { configSchema } from './config.js';
import { CronController } from './controller.js';

const SERVICE: ServiceName = 'cron-scheduler';

await runBusService({
  name: SERVICE,
  configSchema,
  // The timers' connection; the lease has its own.
  redis: { gate: 'redis-timers' },
  // One informer per kind for the process; it closes its readiness gate while its cache cannot be trusted.
  open: openInformers,
  async run({ config, logger }, deps) {
    const controller = new CronController({
      ...deps,
      catchUpWindowMs: config.CRON_CATCHUP_WINDOW_MS,
      defaultTimeZone: config.CRON_DEFAULT_TIME_ZONE,
      resyncMs: config.CRON_RESYNC_MS,
      concurrency: config.CRON_CONCURRENCY,
    });
    await controller.start();
    logger.info(
      { defaultTimeZone: config.CRON_DEFAULT_TIME_ZONE, catchUpWindowMs: config.CRON_CATCHUP_WINDOW_MS },
      'scheduling cron rules as leader',
    );
    return () => controller.stop();
  },
});
