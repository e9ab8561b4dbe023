// Crane's DSP prediction for one workload (issue: EffectiveHPA): fit and forecast over 14 days of one-minute
// history (20,160 samples) of a synthetic daily workload with noise, in-process on one thread. Timing covers
// predict() only (pre-processing, period detection with its 100 significance shuffles, estimator selection,
// forecast); building the history is outside it. Target: ≤ 50 ms per workload on one core.
import { DEFAULT_DSP_CONFIG, gaussian, predict, seededRandom, type Sample } from '@flotilla/prediction';
import { fmt, percentile, report } from './support.js';

const DAYS = Number(process.env.BENCH_DAYS ?? 14);
const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const WARMUP = 5;
const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z

/** A workload peaking at 14:00 and (less) at 20:00, quieter at weekends, with noise of sd 0.5 and a few spikes. */
function workload(days: number, seed: number): Sample[] {
  const rand = seededRandom(seed);
  return Array.from({ length: days * 1440 }, (_, i) => {
    const minute = i % 1440;
    const weekend = Math.floor(i / 1440) % 7 >= 5 ? 0.6 : 1;
    const peaks =
      15 * Math.exp(-((minute - 840) ** 2) / (2 * 120 ** 2)) + 8 * Math.exp(-((minute - 1200) ** 2) / (2 * 60 ** 2));
    const spike = rand() < 0.0005 ? 30 : 0;
    return { timestamp: T0 + 60 * i, value: 10 + weekend * peaks + 0.5 * gaussian(rand) + spike };
  });
}

const histories = Array.from({ length: 4 }, (_, i) => workload(DAYS, 100 + i));
for (let i = 0; i < WARMUP; i++) predict(histories[i % histories.length]!, DEFAULT_DSP_CONFIG);
const times: number[] = [];
const cpuTimes: number[] = [];
let periodic = 0;
let estimator = '';
for (let i = 0; i < RUNS; i++) {
  const h = histories[i % histories.length]!;
  const t = performance.now();
  const cpu = process.cpuUsage();
  const res = predict(h, DEFAULT_DSP_CONFIG, { seed: i + 1 });
  const used = process.cpuUsage(cpu);
  times.push(performance.now() - t);
  cpuTimes.push((used.user + used.system) / 1000);
  if (res.periodic) periodic++;
  estimator = res.estimator ?? estimator;
}
times.sort((a, b) => a - b);
cpuTimes.sort((a, b) => a - b);
report(
  `DSP fit + forecast: ${DAYS} days of one-minute history (${(DAYS * 1440).toLocaleString('en-US')} samples) per workload, one thread`,
  [
    [
      'per workload (wall)',
      `median ${fmt(percentile(times, 50))} ms, p99 ${fmt(percentile(times, 99))} ms, min ${fmt(times[0]!)} ms (n=${RUNS})  (target <= 50 ms)`,
    ],
    // CPU time of this process: what one core spends, also when other processes share the machine
    [
      'per workload (CPU)',
      `median ${fmt(percentile(cpuTimes, 50))} ms, p99 ${fmt(percentile(cpuTimes, 99))} ms (n=${RUNS})`,
    ],
    ['result', `${periodic}/${RUNS} periodic (daily), e.g. ${estimator}`],
  ],
);
