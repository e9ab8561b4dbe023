import { DEFAULT_ESTIMATORS } from '@flotilla/prediction';
import { selectEstimator } from '../packages/prediction/src/select-estimator.js';
import { removeExtremeOutliers } from '../packages/prediction/src/preprocess.js';
import { truncateToPeriods } from '../packages/prediction/src/truncate.js';
const truth = (i: number) => 10 + 5 * Math.sin((2 * Math.PI * i) / 1440);
for (const n of [4320, 4380, 2880]) {
  const x = removeExtremeOutliers(Float64Array.from({ length: n }, (_, i) => truth(i)));
  const w = truncateToPeriods(x, 1 / 60, 86400);
  const { scores } = selectEstimator(DEFAULT_ESTIMATORS, w.samples!, w.multiple, 1 / 60);
  console.log(n, scores.map((s) => s.error.toPrecision(17)).join(' '));
}
