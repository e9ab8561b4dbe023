// Prometheus histograms read from a /metrics page (the text format), for benches that time what a server measures
// itself: the gateway's answers to the admission webhook, the API server's calls to it.

/** Cumulative bucket counts by upper bound (`le`), +Inf last. */
export type Buckets = Array<[le: number, count: number]>;

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/**
 * The buckets of histogram `name` in a /metrics page, summed over every series whose labels include `labels`
 * (e.g. every webhook the API server called, allowed or rejected).
 */
export function histogramBuckets(text: string, name: string, labels: Record<string, string> = {}): Buckets {
  const byLe = new Map<number, number>();
  for (const line of text.split('\n')) {
    const m = SAMPLE.exec(line);
    if (!m || m[1] !== `${name}_bucket`) continue;
    const seen = Object.fromEntries([...(m[2] ?? '').matchAll(LABEL)].map((l) => [l[1]!, l[2]!]));
    if (seen.le === undefined || !Object.entries(labels).every(([k, v]) => seen[k] === v)) continue;
    const le = seen.le === '+Inf' ? Number.POSITIVE_INFINITY : Number(seen.le);
    byLe.set(le, (byLe.get(le) ?? 0) + Number(m[3]));
  }
  return [...byLe].sort(([a], [b]) => a - b);
}

/** What was observed between two readings of the same histogram (`before` may lack series `after` has). */
export function bucketsSince(after: Buckets, before: Buckets): Buckets {
  const earlier = new Map(before);
  return after.map(([le, count]) => [le, count - (earlier.get(le) ?? 0)]);
}

/** How many observations the buckets hold. */
export const observations = (buckets: Buckets): number => buckets.at(-1)?.[1] ?? 0;

/** The share of observations at most `le` (a bucket's upper bound), NaN without observations. */
export function shareAtMost(buckets: Buckets, le: number): number {
  const bucket = buckets.find(([b]) => b === le);
  if (!bucket) throw new Error(`no bucket with le=${le} (bounds: ${buckets.map(([b]) => b).join(', ')})`);
  return bucket[1] / observations(buckets);
}

/**
 * The q-quantile as Prometheus' histogram_quantile computes it: linear inside the bucket the rank falls in (the
 * first bucket starting at 0), the highest finite bound when it falls in +Inf. NaN without observations.
 */
export function histogramQuantile(buckets: Buckets, q: number): number {
  const total = observations(buckets);
  if (total === 0) return Number.NaN;
  const rank = q * total;
  let [lower, below] = [0, 0];
  for (const [le, count] of buckets) {
    if (count >= rank) {
      if (le === Number.POSITIVE_INFINITY) return lower;
      return count === below ? le : lower + ((le - lower) * (rank - below)) / (count - below);
    }
    [lower, below] = [le, count];
  }
  return lower;
}
