/** Least-squares slope of y over x = from..to (inclusive). */
function slope(y: Float64Array, from: number, to: number): number {
  let sumX = 0;
  let sumY = 0;
  let sumXY = 0;
  let sumXX = 0;
  for (let j = from; j <= to; j++) {
    sumX += j;
    sumY += y[j]!;
    sumXY += j * y[j]!;
    sumXX += j * j;
  }
  const n = to - from + 1;
  return (n * sumXY - sumX * sumY) / (n * sumXX - sumX * sumX);
}

/**
 * Crane's `isPeak`: `i` is a peak of `x` when a line fitted over [i−r, i] rises and one over [i, i+r] falls, both
 * ranges clipped to the array. As in Crane, a one-point range has an undefined (NaN) slope, which fails neither
 * test.
 */
export function isPeak(x: Float64Array, i: number, r: number): boolean {
  const n = x.length;
  if (i < 1 || i > n - 1) return false;
  if (slope(x, Math.max(0, i - r), i) <= 0) return false;
  if (slope(x, i, Math.min(n - 1, i + r)) >= 0) return false;
  return true;
}
