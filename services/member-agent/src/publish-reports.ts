import { publishEvent, type Bus } from '@flotilla/bus';
import { mapLimited } from './kube/rate-limit.js';
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
 * Publishes reports with up to REPORTS_IN_FLIGHT objects' reports awaiting their acks. Each report is of one chain of ids (one object,
 * one cluster), so their order in the stream does not matter; each is committed once acknowledged, and the first
 * failure is thrown after the others settled (what failed is reported again by the next pass). Returns how many were
 * published.
 */
export async function publishReports(o: PublishReportsOptions): Promise<number> {
  const chunk = Math.max(1, o.between?.every ?? o.reports.length);
  let published = 0;
  let failure: PromiseRejectedResult | undefined;
  const publishOne = async (r: Report) => {
    if (o.stopped()) return;
    await publishEvent(o.bus, r.event);
    r.commit();
    published++;
  };
  for (let i = 0; i < o.reports.length && !o.stopped(); i += chunk) {
    // The reports of one object (its clusters') go out at once, in one turn: sent one lane's ack apart, they would
    // reach the status writer apart on a busy machine and be folded in a write each.
    const outcomes = await mapLimited(byObject(o.reports.slice(i, i + chunk)), REPORTS_IN_FLIGHT, async (group) => {
      const settled = await Promise.allSettled(group.map(publishOne));
      const failed = settled.find((x): x is PromiseRejectedResult => x.status === 'rejected');
      if (failed) throw failed.reason;
    });
    failure ??= outcomes.find((x): x is PromiseRejectedResult => x.status === 'rejected');
    if (o.between && i + chunk < o.reports.length) await o.between.call();
  }
  if (failure) throw failure.reason;
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
