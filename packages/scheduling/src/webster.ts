/** A party (cluster) in a Webster apportionment. */
export interface Party {
  name: string;
  /** Votes (weight); a party with 0 votes never wins a seat. */
  weight: number;
  /** Seats held before the apportionment starts. */
  initial?: number;
}

export interface Seat {
  name: string;
  replicas: number;
}

/**
 * Webster / Sainte-Laguë apportionment of `seats` new seats, as Karmada's AllocateWebsterSeats with
 * its UID tie-breaker: each seat goes to the highest votes / (2·held + 1); equal priorities go to
 * the party holding fewer seats, then to the smaller name (or the larger one when
 * `descendingNames`, i.e. the template UID's FNV-1a hash is odd). Returns every party sorted by
 * name ascending, zero-seat parties included; no parties, or no votes at all → seats unallocated.
 *
 * Implemented with a binary heap over that same total order, so it hands out seats exactly as the
 * one-seat-at-a-time scan does, in O((n + seats) log n) instead of O(n · seats).
 */
export function websterSeats(seats: number, parties: readonly Party[], descendingNames = false): Seat[] {
  // Sort once by name: the output wants that order, and duplicate names (one party upstream,
  // which keys parties by name) become neighbours to merge.
  const order = Array.from({ length: parties.length }, (_, i) => i).sort((a, b) =>
    compareNames(parties[a]!.name, parties[b]!.name),
  );
  const names: string[] = [];
  const weight: number[] = [];
  const held: number[] = [];
  for (const i of order) {
    const p = parties[i]!;
    const w = Math.max(p.weight, 0);
    const last = names.length - 1;
    if (last >= 0 && names[last] === p.name) {
      weight[last]! += w;
      held[last]! += p.initial ?? 0;
    } else {
      names.push(p.name);
      weight.push(w);
      held.push(p.initial ?? 0);
    }
  }
  const n = names.length;

  // Only parties with votes can win; the others keep their initial seats.
  const heap: number[] = [];
  for (let i = 0; i < n; i++) if (weight[i]! > 0) heap.push(i);
  if (heap.length > 0 && seats > 0) {
    // a before b (a wins) under Karmada's order: higher priority, fewer seats, then name order.
    const before = (a: number, b: number): boolean => {
      const pa = weight[a]! / (2 * held[a]! + 1);
      const pb = weight[b]! / (2 * held[b]! + 1);
      if (pa !== pb) return pa > pb;
      if (held[a] !== held[b]) return held[a]! < held[b]!;
      return descendingNames ? names[a]! > names[b]! : names[a]! < names[b]!;
    };
    const siftDown = (start: number): void => {
      const len = heap.length;
      let i = start;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= len) return;
        const r = l + 1;
        const m = r < len && before(heap[r]!, heap[l]!) ? r : l;
        if (!before(heap[m]!, heap[i]!)) return;
        const t = heap[i]!;
        heap[i] = heap[m]!;
        heap[m] = t;
        i = m;
      }
    };
    for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(i);
    for (let s = 0; s < seats; s++) {
      const top = heap[0]!;
      held[top] = held[top]! + 1;
      siftDown(0);
    }
  }

  const out: Seat[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = { name: names[i]!, replicas: held[i]! };
  return out;
}

/** Byte-wise ascending order, as Go compares strings (not locale order). */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
