import type { RebalanceEvent } from './events.js';

/**
 * Splits events that list workloads into events of at most `maxItems` each, in order, so that a rebalancer over
 * thousands of workloads never publishes a message beyond the bus's payload limit. Folding the pieces in order
 * gives the status folding the whole would (each piece names its own workloads; observedGeneration repeats).
 */
export function chunkEvents(events: readonly RebalanceEvent[], maxItems: number): RebalanceEvent[] {
  if (!Number.isInteger(maxItems) || maxItems < 1)
    throw new RangeError(`chunkEvents: maxItems must be an integer >= 1, got ${maxItems}`);
  const out: RebalanceEvent[] = [];
  for (const e of events) {
    switch (e.type) {
      case 'RebalanceObserved': {
        const { added, dropped } = e.data;
        if (added.length + dropped.length <= maxItems) {
          out.push(e);
          break;
        }
        for (let i = 0; i < dropped.length; i += maxItems)
          out.push({ ...e, data: { ...e.data, added: [], dropped: dropped.slice(i, i + maxItems) } });
        for (let i = 0; i < added.length; i += maxItems)
          out.push({ ...e, data: { ...e.data, added: added.slice(i, i + maxItems), dropped: [] } });
        break;
      }
      case 'RebalanceTriggered':
        for (let i = 0; i < e.data.workloads.length; i += maxItems)
          out.push({ ...e, data: { ...e.data, workloads: e.data.workloads.slice(i, i + maxItems) } });
        break;
      case 'RebalanceBindingNotFound':
        for (let i = 0; i < e.data.workloads.length; i += maxItems)
          out.push({ ...e, data: { ...e.data, workloads: e.data.workloads.slice(i, i + maxItems) } });
        break;
      default:
        out.push(e);
    }
  }
  return out;
}
