import type { ControllerLogger, FailureEvents } from '@flotilla/controller';
import type { Registry } from 'prom-client';

/** What every controller of the scheduler is built with: the kit's shared options, the clock and key ownership. */
export interface SchedulerKit {
  /** defineController's options every controller shares. */
  controller: { logger: ControllerLogger; registry?: Registry | undefined; failureEvents: FailureEvents };
  now: () => Date;
  /** A reconcile that skips what another replica owns; the informers still hold everything. */
  owned: <A extends unknown[], R>(
    reconcile: (key: string, ...rest: A) => Promise<R>,
  ) => (key: string, ...rest: A) => Promise<R | undefined>;
}
