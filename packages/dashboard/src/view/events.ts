/** One domain event as the dashboard's event stream sends it (the gateway's `/dashboard/api/stream`). */
export interface FeedEvent {
  /** The stream sequence: the order, and the SSE id a reconnect resumes after. */
  seq: number;
  time: string;
  /** The event type without its prefix, e.g. `BindingScheduled`. */
  type: string;
  kind: string;
  namespace: string;
  name: string;
  /** The event in words, as `flotilla events` prints it. */
  message: string;
}

export interface EventFilter {
  /** A kind, matched exactly; empty for every kind. */
  kind?: string;
  /** A part of `namespace/name`, case-insensitive; empty for every object. */
  object?: string;
}

/** `Kind/namespace/name`, or `Kind/name` for a cluster-scoped object: the OBJECT column of `flotilla events`. */
export const eventObject = (e: Pick<FeedEvent, 'kind' | 'namespace' | 'name'>) =>
  `${e.kind}/${e.namespace ? `${e.namespace}/` : ''}${e.name}`;

export function matchesEventFilter(e: FeedEvent, f: EventFilter): boolean {
  if (f.kind && e.kind !== f.kind) return false;
  if (f.object) {
    const needle = f.object.toLowerCase();
    const object = `${e.namespace ? `${e.namespace}/` : ''}${e.name}`.toLowerCase();
    if (!object.includes(needle)) return false;
  }
  return true;
}

/**
 * The feed after one more event: newest first, one entry per sequence (a reconnect may deliver an event twice), at
 * most `limit` long so that a page left open for days stays small.
 */
export function addToFeed(feed: readonly FeedEvent[], e: FeedEvent, limit: number): FeedEvent[] {
  if (feed.some((x) => x.seq === e.seq)) return [...feed];
  const next = [e, ...feed].sort((a, b) => b.seq - a.seq);
  return next.slice(0, limit);
}
