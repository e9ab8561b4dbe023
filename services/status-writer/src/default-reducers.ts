import { EventTypes } from '@flotilla/bus';
import { ReducerRegistry, workloadStatusReducer } from './reducers.js';

/** The reducers of every event type Flotilla publishes; types not listed fold by `statusPatch`. */
export function defaultReducers(): ReducerRegistry {
  return new ReducerRegistry().register(EventTypes.WorkloadStatusReported, workloadStatusReducer);
}
