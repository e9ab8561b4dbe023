import type { CronFederatedHPAStatus } from '@flotilla/api';
import { EventTypes, eventTypeOf } from '@flotilla/bus';
import { CronEventTypes, evolveHistory, type CronEvent } from '@flotilla/cron';
import { ReducerRegistry, workloadStatusReducer, type Reducer, type Status } from './reducers.js';

/** CronFederatedHPA execution history: the cron package owns its shape and limits. */
const cronHistory: Reducer = (status, event) =>
  evolveHistory(
    status as CronFederatedHPAStatus | undefined,
    { type: eventTypeOf(event), data: event.data } as CronEvent,
  ) as Status;

/** The reducers of every event type Flotilla publishes; types not listed fold by `statusPatch`. */
export function defaultReducers(): ReducerRegistry {
  const r = new ReducerRegistry().register(EventTypes.WorkloadStatusReported, workloadStatusReducer);
  for (const type of Object.values(CronEventTypes)) r.register(type, cronHistory);
  return r;
}
