export interface Room {
  name: string;
  available: number;
}

/**
 * Fills `total` units into clusters in the given order, each up to its free capacity; what does not fit goes to
 * the first cluster (the most preferred one). Aggregated and Prioritized differ only in the order. `caps` bounds a
 * min fill by the max fill; units that still find no room are dropped (only possible when caps sum below total).
 */
export function fillInOrder(total: number, ordered: readonly Room[], caps?: ReadonlyMap<string, number>): Map<string, number> {
  const shares = new Map<string, number>();
  let remaining = total;
  for (const r of ordered) {
    const cap = caps?.get(r.name) ?? Infinity;
    const give = Math.max(0, Math.min(r.available, cap, remaining));
    shares.set(r.name, give);
    remaining -= give;
  }
  for (const r of ordered) {
    if (remaining <= 0) break;
    const cap = caps?.get(r.name) ?? Infinity;
    const share = shares.get(r.name)!;
    const give = Math.min(cap - share, remaining);
    shares.set(r.name, share + give);
    remaining -= give;
  }
  return shares;
}
