import { DEFAULT_CATCH_UP_WINDOW_MS, timeZoneError } from '@flotilla/cron';
import { baseConfigSchema, envInt, envString } from '@flotilla/runtime';
import { DEFAULT_CRON_CONCURRENCY, DEFAULT_RESYNC_MS } from './controller.js';

export const configSchema = baseConfigSchema.extend({
  /** How late a missed schedule may still be applied on recovery. */
  CRON_CATCHUP_WINDOW_MS: envInt({ default: DEFAULT_CATCH_UP_WINDOW_MS, min: 0 }),
  /** The zone of rules without `timeZone` (an IANA name). */
  CRON_DEFAULT_TIME_ZONE: envString({ default: 'UTC' }).refine(
    (z) => z === 'UTC' || (z !== '' && timeZoneError(z) === undefined),
    {
      message: 'expected an IANA time zone name such as UTC or Asia/Shanghai',
    },
  ),
  /** Every object is reconsidered and its timers re-armed this often. */
  CRON_RESYNC_MS: envInt({ default: DEFAULT_RESYNC_MS, min: 1000 }),
  /** CronFederatedHPAs reconciled at once. */
  CRON_CONCURRENCY: envInt({ default: DEFAULT_CRON_CONCURRENCY, min: 1 }),
});
