import { readEvents, type Bus } from '@flotilla/bus';
import { KubeEventStore, StatusStore } from '@flotilla/store';
import type { ReducerRegistry } from './reducers.js';
import { ReplayFold } from './status-writer.js';

export interface RebuildResult {
  events: number;
  objects: number;
  /** Milliseconds spent reading and folding, and writing the result. */
  foldMs: number;
  writeMs: number;
}

/**
 * Wipes every status and Kubernetes-style event, and rebuilds them from the event log. Run it with the live
 * writer stopped (the service does so by holding the leader lease while rebuilding).
 */
export async function rebuildStatus(
  bus: Bus,
  reducers: ReducerRegistry,
  now: () => number = () => performance.now(),
): Promise<RebuildResult> {
  const t0 = now();
  const fold = new ReplayFold(reducers);
  for await (const d of readEvents(bus)) fold.add(d);
  const t1 = now();
  const statuses = new StatusStore(bus);
  const kubeEvents = new KubeEventStore(bus);
  await Promise.all([statuses.wipe(), kubeEvents.wipe()]);
  await statuses.putAll(fold.statuses);
  await kubeEvents.putAll(fold.kubeEvents);
  return { events: fold.events, objects: fold.statuses.size, foldMs: t1 - t0, writeMs: now() - t1 };
}
