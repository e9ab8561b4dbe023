import { seededRandom } from '@flotilla/prediction';
import type { HistorySample } from './what-if-ehpa.js';

/** A smooth step from 0 to 1 centred on `at` (hours of the day), `widthHours` from 10 % to 90 %. */
function rise(hour: number, at: number, widthHours: number): number {
  return 1 / (1 + Math.exp((-(hour - at) * 4.4) / widthHours));
}

/**
 * A working day's CPU demand in cores: 3 cores at night, a surge to 15 within minutes at 08:00, a lunch peak
 * of 21 from 12:00 to 13:00, back to 3 after 18:00; the same every day, with ±3 % seeded noise. Sharp ramps are where a
 * reactive HPA runs behind its new pods' start-up time.
 */
export function dailyDemandCores(unixSeconds: number, random: () => number): number {
  const hour = (unixSeconds % 86_400) / 3600;
  const base = 3 + 12 * rise(hour, 8, 0.05) - 12 * rise(hour, 18, 0.5);
  const lunch = 6 * (rise(hour, 12, 0.05) - rise(hour, 13, 0.3));
  return (base + lunch) * (1 + 0.03 * (2 * random() - 1));
}

/** `dailyDemandCores` sampled every `stepSeconds` over [start, start + days), reproducible by `seed`. */
export function syntheticDailyTrace(startSeconds: number, days: number, stepSeconds = 60, seed = 7): HistorySample[] {
  const random = seededRandom(seed);
  const out: HistorySample[] = [];
  for (let t = startSeconds; t < startSeconds + days * 86_400; t += stepSeconds) {
    out.push([t, Math.round(dailyDemandCores(t, random) * 1000) / 1000]);
  }
  return out;
}
