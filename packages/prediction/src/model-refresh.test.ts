import { describe, expect, it } from 'vitest';
import { nextRefitAt, refitDue } from './model-refresh.js';

const H = 3600;
describe("refitDue (Crane's 12-hour model update and the TimeSeriesPrediction window check)", () => {
  it.each([
    ['never fitted', undefined, 0, true],
    ['fitted an hour ago, forecast reaching a day ahead', { fittedAt: 0, forecastEnd: 24 * H }, H, false],
    ['12 hours after the fit', { fittedAt: 0, forecastEnd: 48 * H }, 12 * H, true],
    ['the forecast no longer reaches now + window', { fittedAt: 0, forecastEnd: 10 * H }, 9 * H + 60, true],
    [
      'the forecast reaches now + window within the same minute',
      { fittedAt: 0, forecastEnd: 10 * H + 30 },
      9 * H + 59,
      false,
    ],
    ['no forecast (not ready): waits for the update interval', { fittedAt: 0, forecastEnd: undefined }, 6 * H, false],
  ])('%s → %s', (_name, model, now, want) => {
    expect(refitDue(model, now, H)).toBe(want);
  });

  it('schedules the next refit one interval after the fit', () => {
    expect(nextRefitAt({ fittedAt: 1000, forecastEnd: undefined })).toBe(1000 + 12 * H);
    expect(nextRefitAt({ fittedAt: 1000, forecastEnd: undefined }, 600)).toBe(1600);
  });
});
