export interface Room {
  name: string;
  available: number;
}

/**
 * Fills `total` units into clusters in the given order, each up to its free capacity; what does not fit goes to
 * the first cluster (the most preferred one). Aggregated and Prioritized differ only in the order. Shares are
 * aligned with `ordered`. `caps` (aligned too) bounds a min fill by the max fill; units that still find no room
 * are dropped (only possible when the caps sum below total).
 */
export function fillInOrder(total: number, ordered: readonly Room[], caps?: readonly number[]): number[] {
  const shares = new Array<number>(ordered.length).fill(0);
  let remaining = total;
  for (let i = 0; i < ordered.length && remaining > 0; i++) {
    const give = Math.max(0, Math.min(ordered[i]!.available, caps ? caps[i]! : Infinity, remaining));
    shares[i] = give;
    remaining -= give;
  }
  for (let i = 0; i < ordered.length && remaining > 0; i++) {
    const give = Math.min((caps ? caps[i]! : Infinity) - shares[i]!, remaining);
    shares[i]! += give;
    remaining -= give;
  }
  return shares;
}
