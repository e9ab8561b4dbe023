/** A fail-back the gateway's `failbacks` operation lists (packages/preview's FailBackPreview), as the page reads it. */
export interface QueuedFailBackItem {
  namespace?: string;
  name: string;
  resource: string;
  fromGroup: string;
  toGroup: string;
  holdingSince: string;
  moveAt?: string;
  turn?: number;
  waitingFor: string;
  clusters: Array<{ name: string; replicas?: number }>;
  targetClusters?: Array<{ name: string; replicas?: number }>;
  targetGroup?: string;
  unschedulable?: string;
}

/** One row of the Fail-backs page. */
export interface FailBackRow {
  binding: string;
  resource: string;
  groups: string;
  since: string;
  moves: string;
  turn: string;
  reason: string;
  /** Where it runs now → where it would land: `away:2 → home:2`. */
  target: string;
}

const placement = (c: ReadonlyArray<{ name: string; replicas?: number }>) =>
  c.map((t) => `${t.name}:${t.replicas ?? 0}`).join(', ');

/** The page's rows, in the queue's turn order, times relative to `now`. */
export function failBackRows(items: readonly QueuedFailBackItem[], now: Date): FailBackRow[] {
  const inSeconds = (t: string) => Math.round((Date.parse(t) - now.getTime()) / 1000);
  return items.map((i) => {
    const moveIn = i.moveAt === undefined ? undefined : inSeconds(i.moveAt);
    return {
      binding: `${i.namespace ? `${i.namespace}/` : ''}${i.name}`,
      resource: i.resource,
      groups: `${i.fromGroup} → ${i.toGroup}`,
      since: `${i.holdingSince} (${-inSeconds(i.holdingSince)} s ago)`,
      moves:
        moveIn === undefined
          ? 'after one of its policy under way'
          : moveIn <= 0
            ? 'now'
            : `in ${moveIn} s (${i.moveAt})`,
      turn: i.turn === undefined ? '-' : String(i.turn),
      reason: i.waitingFor,
      target: i.targetClusters
        ? `${placement(i.clusters)} → ${placement(i.targetClusters)}${i.targetGroup ? ` (${i.targetGroup})` : ''}`
        : i.unschedulable !== undefined
          ? `no room now: ${i.unschedulable}`
          : 'stays where it is',
    };
  });
}
