import { publishEvent, type Bus } from '@flotilla/bus';
import type { Report } from './reports.js';

/**
 * Reports awaiting their acks at once. One at a time, a thousand workloads' reports cost a thousand round trips to
 * JetStream, and the reports of one binding's clusters reached the status writer one round trip apart, each folded
 * in a status write of its own; sent together, they are folded in one.
 */
export const REPORTS_IN_FLIGHT = 64;

export interface PublishReportsOptions {
  bus: Bus;
  reports: readonly Report[];
  /** Asked before each report: a stopping agent publishes no more. */
  stopped: () => boolean;
  /** Awaited after every `every` reports (the simulated agent renews its leases there during a long burst). */
  between?: { every: number; call: () => Promise<void> };
}

/**
 * Publishes reports with up to REPORTS_IN_FLIGHT awaiting their acks, the reports of one object (its clusters') sent
 * together: sent one ack apart, they would reach the status writer apart on a busy machine and be folded in a write
 * each. An object with more reports than that goes out alone. Each report is of one chain of ids (one object, one
 * cluster), so their order in the stream does not matter; each is committed once acknowledged. After the first failure
 * no more are sent (NATS is likely gone: the next pass reports what was not); it is thrown once those under way
 * settled. Returns how many were published.
 */
export async function publishReports(o: PublishReportsOptions): Promise<number> {
  let published = 0;
  let failure: unknown;
  let failed = false;
  let inFlight = 0;
  let sinceBetween = 0;
  const freed: Array<() => void> = [];
  const underWay: Promise<void>[] = [];
  const send = async (group: readonly Report[]) => {
    try {
      await Promise.all(
        group.map(async (r) => {
          await publishEvent(o.bus, r.event);
          r.commit();
          published++;
        }),
      );
    } catch (err) {
      if (!failed) failure = err;
      failed = true;
    } finally {
      inFlight -= group.length;
      for (const wake of freed.splice(0)) wake();
    }
  };
  for (const group of byObject(o.reports)) {
    while (inFlight > 0 && inFlight + group.length > REPORTS_IN_FLIGHT && !failed)
      await new Promise<void>((r) => freed.push(r));
    if (failed || o.stopped()) break;
    inFlight += group.length;
    underWay.push(send(group));
    sinceBetween += group.length;
    if (o.between && sinceBetween >= o.between.every) {
      sinceBetween = 0;
      await o.between.call();
    }
  }
  await Promise.all(underWay);
  if (failed) throw failure;
  return published;
}

/** Reports grouped by the object they are about, in the order each object first comes. */
function byObject(reports: readonly Report[]): Report[][] {
  const groups = new Map<string, Report[]>();
  for (const r of reports) {
    const key = `${r.event.flotillakind}/${r.event.flotillanamespace ?? ''}/${r.event.flotillaname}`;
    const group = groups.get(key);
    if (group) group.push(r);
    else groups.set(key, [r]);
  }
  return [...groups.values()];
}
