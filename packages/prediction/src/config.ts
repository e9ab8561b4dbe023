// The DSP block is part of the EffectiveHPA API, so admission (in @flotilla/api) and the predictor share one reading.
export {
  DEFAULT_DSP_CONFIG,
  DEFAULT_ESTIMATORS,
  DEFAULT_HIGH_FREQUENCY_THRESHOLD,
  DEFAULT_LOW_AMPLITUDE_THRESHOLD,
  DEFAULT_MAX_SPECTRUM_ITEMS,
  DEFAULT_MIN_SPECTRUM_ITEMS,
  DSP_SPEC_PATH,
  estimatorName,
  parseCraneDuration,
  resolveDspConfig,
  type DspConfig,
  type DspSpec,
  type Estimator,
  type FftEstimator,
  type MaxValueEstimator,
} from '@flotilla/api';
