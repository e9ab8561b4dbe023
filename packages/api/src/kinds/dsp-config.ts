import type { FieldError } from '../errors.js';
import { parseCraneDuration } from './crane-duration.js';

/** The `dsp` block of an EHPA's `prediction.predictionAlgorithm`, as written (Crane's strings included). */
export interface DspSpec {
  sampleInterval?: string;
  historyLength?: string;
  estimators?: {
    maxValue?: Array<{ marginFraction?: string }>;
    fft?: Array<{
      marginFraction?: string;
      lowAmplitudeThreshold?: string;
      highFrequencyThreshold?: string;
      minNumOfSpectrumItems?: number;
      maxNumOfSpectrumItems?: number;
    }>;
  };
}

/** Crane's max-value estimator: per phase, the maximum over all whole periods, times 1 + margin. */
export interface MaxValueEstimator {
  readonly type: 'maxValue';
  readonly marginFraction: number;
}

/** Crane's FFT estimator: the last period of the history with low, high-frequency spectrum components removed. */
export interface FftEstimator {
  readonly type: 'fft';
  readonly minNumOfSpectrumItems: number;
  readonly maxNumOfSpectrumItems: number;
  /** Hz. */
  readonly highFrequencyThreshold: number;
  readonly lowAmplitudeThreshold: number;
  readonly marginFraction: number;
}

export type Estimator = MaxValueEstimator | FftEstimator;

/** A resolved DSP configuration: every default applied, every string parsed. */
export interface DspConfig {
  readonly sampleIntervalSeconds: number;
  readonly historyLengthSeconds: number;
  readonly estimators: readonly Estimator[];
}

export const DEFAULT_MIN_SPECTRUM_ITEMS = 3;
export const DEFAULT_MAX_SPECTRUM_ITEMS = 100;
export const DEFAULT_HIGH_FREQUENCY_THRESHOLD = 1 / 3600;
export const DEFAULT_LOW_AMPLITUDE_THRESHOLD = 1.0;
const MAX_SAMPLE_INTERVAL_SECONDS = 3600;
const MIN_HISTORY_LENGTH_SECONDS = 48 * 3600;

function fftEstimator(minItems: number, lowAmp: number, margin: number): FftEstimator {
  return {
    type: 'fft',
    minNumOfSpectrumItems: minItems,
    maxNumOfSpectrumItems: DEFAULT_MAX_SPECTRUM_ITEMS,
    highFrequencyThreshold: DEFAULT_HIGH_FREQUENCY_THRESHOLD,
    lowAmplitudeThreshold: lowAmp,
    marginFraction: margin,
  };
}

/** Crane's 8 default estimators (`config.go`), in its order: the four `minItems 3` ones first. */
export const DEFAULT_ESTIMATORS: readonly Estimator[] = Object.freeze([
  ...[0.01, 0.1, 0.15, 0.2].map((m) => fftEstimator(3, 1.0, m)),
  ...[0.01, 0.1, 0.15, 0.2].map((m) => fftEstimator(50, 0.05, m)),
]);

/** What Crane uses when a query has no valid configuration: 1-minute resolution, 15 days, default estimators. */
export const DEFAULT_DSP_CONFIG: DspConfig = Object.freeze({
  sampleIntervalSeconds: 60,
  historyLengthSeconds: 15 * 86_400,
  estimators: DEFAULT_ESTIMATORS,
});

export const DSP_SPEC_PATH = 'spec.prediction.predictionAlgorithm.dsp';

/** Go's strconv.ParseFloat for the decimal forms people write; "" means the default. */
function parseFloatField(text: string | undefined, fallback: number, field: string, errors: FieldError[]): number {
  if (text === undefined || text === '') return fallback;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) {
    errors.push({ field, message: `Invalid value: ${JSON.stringify(text)}: must be a decimal number` });
    return fallback;
  }
  return Number(text);
}

function countField(value: number | undefined, fallback: number, field: string, errors: FieldError[]): number {
  if (value === undefined || value === 0) return fallback;
  if (!Number.isInteger(value) || value < 0) {
    errors.push({ field, message: `Invalid value: ${value}: must be a non-negative integer` });
    return fallback;
  }
  return value;
}

function durationField(text: string | undefined, fallback: number, field: string, errors: FieldError[]): number {
  if (text === undefined || text === '') return fallback;
  const seconds = parseCraneDuration(text);
  if (seconds === undefined) {
    const message = `Invalid value: ${JSON.stringify(text)}: must be a duration such as "60s", "1h" or "3d"`;
    errors.push({ field, message });
    return fallback;
  }
  return seconds;
}

/**
 * Resolves an EHPA's DSP settings as Crane's `makeInternalConfig` does: durations in Go syntax or `<N>d`,
 * `sampleInterval` ≤ 1h, `historyLength` ≥ 48h, max-value estimators before FFT estimators, empty strings and
 * zero counts meaning the defaults, and the 8 default estimators when none are given.
 *
 * Crane only logs an invalid configuration and keeps predicting with its built-in default; `config` does the same
 * (it is {@link DEFAULT_DSP_CONFIG} whenever `errors` is non-empty) while `errors` names every bad field, so
 * admission can reject what Crane would silently ignore. Deliberately unlike Crane, an unset `sampleInterval` or
 * `historyLength` takes its default (1m, 15d) instead of invalidating the whole block, and the sample interval
 * must be a positive whole number of seconds (history timestamps are whole seconds).
 */
export function resolveDspConfig(
  spec: DspSpec | undefined,
  path: string = DSP_SPEC_PATH,
): { config: DspConfig; errors: FieldError[] } {
  const errors: FieldError[] = [];
  if (!spec) return { config: DEFAULT_DSP_CONFIG, errors };
  const interval = durationField(spec.sampleInterval, 60, `${path}.sampleInterval`, errors);
  if (errors.length === 0) {
    if (interval > MAX_SAMPLE_INTERVAL_SECONDS) {
      errors.push({
        field: `${path}.sampleInterval`,
        message: `Invalid value: "${spec.sampleInterval}": must be at most 1h`,
      });
    } else if (interval <= 0 || !Number.isInteger(interval)) {
      errors.push({
        field: `${path}.sampleInterval`,
        message: `Invalid value: "${spec.sampleInterval}": must be a positive whole number of seconds`,
      });
    }
  }
  const before = errors.length;
  const history = durationField(spec.historyLength, 15 * 86_400, `${path}.historyLength`, errors);
  if (errors.length === before && history < MIN_HISTORY_LENGTH_SECONDS) {
    errors.push({
      field: `${path}.historyLength`,
      message: `Invalid value: "${spec.historyLength}": must be at least 48h`,
    });
  }

  const estimators: Estimator[] = [];
  spec.estimators?.maxValue?.forEach((e, i) => {
    const at = `${path}.estimators.maxValue[${i}]`;
    estimators.push({
      type: 'maxValue',
      marginFraction: parseFloatField(e.marginFraction, 0, `${at}.marginFraction`, errors),
    });
  });
  spec.estimators?.fft?.forEach((e, i) => {
    const at = `${path}.estimators.fft[${i}]`;
    // Crane's FFT estimator treats 0 as "unset" for every parameter, so a written 0 resolves to the default here.
    const or = (v: number, d: number) => (v === 0 ? d : v);
    estimators.push({
      type: 'fft',
      marginFraction: parseFloatField(e.marginFraction, 0, `${at}.marginFraction`, errors),
      highFrequencyThreshold: or(
        parseFloatField(e.highFrequencyThreshold, 0, `${at}.highFrequencyThreshold`, errors),
        DEFAULT_HIGH_FREQUENCY_THRESHOLD,
      ),
      lowAmplitudeThreshold: or(
        parseFloatField(e.lowAmplitudeThreshold, 0, `${at}.lowAmplitudeThreshold`, errors),
        DEFAULT_LOW_AMPLITUDE_THRESHOLD,
      ),
      minNumOfSpectrumItems: countField(
        e.minNumOfSpectrumItems,
        DEFAULT_MIN_SPECTRUM_ITEMS,
        `${at}.minNumOfSpectrumItems`,
        errors,
      ),
      maxNumOfSpectrumItems: countField(
        e.maxNumOfSpectrumItems,
        DEFAULT_MAX_SPECTRUM_ITEMS,
        `${at}.maxNumOfSpectrumItems`,
        errors,
      ),
    });
  });
  if (errors.length > 0) return { config: DEFAULT_DSP_CONFIG, errors };
  return {
    config: {
      sampleIntervalSeconds: interval,
      historyLengthSeconds: history,
      estimators: estimators.length > 0 ? estimators : DEFAULT_ESTIMATORS,
    },
    errors,
  };
}

const fixed = (x: number) => x.toFixed(6);

/** The estimator as Crane's `String()` prints it, used as its name in results and logs. */
export function estimatorName(e: Estimator): string {
  if (e.type === 'maxValue') return `Max Value Estimator {marginFraction: ${fixed(e.marginFraction)}}`;
  return (
    `FFT Estimator {minNumOfSpectrumItems: ${e.minNumOfSpectrumItems}, ` +
    `maxNumOfSpectrumItems: ${e.maxNumOfSpectrumItems}, ` +
    `highFrequencyThreshold: ${fixed(e.highFrequencyThreshold)}, ` +
    `lowAmplitudeThreshold: ${fixed(e.lowAmplitudeThreshold)}, ` +
    `marginFraction: ${fixed(e.marginFraction)}}`
  );
}
