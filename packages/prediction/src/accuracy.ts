/** Crane's penalty for under-prediction by the fraction x (0 < x < 1): 10 % under counts 0.472, 50 % 3.106. */
function amplify(x: number): number {
  return -Math.log(1 - x) / Math.log(1.25);
}

const EPSILON = 1e-3;

/**
 * Crane's `accuracy.PredictionError`: the asymmetric MAPE (over-prediction adds (p−a)/a, under-prediction the
 * amplified fraction), or, when some actual value is below 0.001, the mean absolute error. NaN when the lengths
 * differ (Crane's error, which makes estimator selection skip the estimator).
 */
export function predictionError(actual: ArrayLike<number>, predicted: ArrayLike<number>): number {
  const n = actual.length;
  if (predicted.length !== n) return Number.NaN;
  let mape = 0;
  let useMae = false;
  for (let i = 0; i < n; i++) {
    const a = actual[i]!;
    const p = predicted[i]!;
    if (a < EPSILON) {
      useMae = true;
      break;
    }
    mape += p < a ? amplify((a - p) / a) : (p - a) / a;
  }
  if (!useMae) return mape / n;
  let mae = 0;
  for (let i = 0; i < n; i++) mae += Math.abs(actual[i]! - predicted[i]!);
  return mae / n;
}
