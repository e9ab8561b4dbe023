import { describe, expect, it } from 'vitest';
import { DEFAULT_DSP_CONFIG, DEFAULT_ESTIMATORS, estimatorName, resolveDspConfig } from './dsp-config.js';
import { parseCraneDuration } from './crane-duration.js';

describe("resolveDspConfig (Crane's makeInternalConfig)", () => {
  it.each([
    // id, dsp, resolution, history
    ['cfg-01', { sampleInterval: '60s', historyLength: '3d' }, 60, 259_200],
    ['cfg-04', { sampleInterval: '1m', historyLength: '2d' }, 60, 172_800],
  ])('%s: %j is valid with the default estimators', (_id, dsp, resolution, history) => {
    const { config, errors } = resolveDspConfig(dsp);
    expect(errors).toEqual([]);
    expect(config.sampleIntervalSeconds).toBe(resolution);
    expect(config.historyLengthSeconds).toBe(history);
    expect(config.estimators).toBe(DEFAULT_ESTIMATORS);
  });

  it.each([
    ['cfg-02', { sampleInterval: '2h', historyLength: '7d' }, 'sampleInterval', 'must be at most 1h'],
    ['cfg-03', { sampleInterval: '60s', historyLength: '47h' }, 'historyLength', 'must be at least 48h'],
  ])('%s: %j is invalid and falls back to the built-in default (60s, 15d, defaults)', (_id, dsp, field, message) => {
    const { config, errors } = resolveDspConfig(dsp);
    expect(errors).toEqual([
      { field: `spec.prediction.predictionAlgorithm.dsp.${field}`, message: expect.stringContaining(message) },
    ]);
    expect(config).toBe(DEFAULT_DSP_CONFIG);
    expect(config).toMatchObject({ sampleIntervalSeconds: 60, historyLengthSeconds: 1_296_000 });
  });

  it('cfg-05: maxValue estimators come before fft estimators whatever the order written, "" means default', () => {
    const { config, errors } = resolveDspConfig({
      sampleInterval: '60s',
      historyLength: '15d',
      estimators: {
        fft: [
          {
            marginFraction: '0.2',
            lowAmplitudeThreshold: '1.0',
            highFrequencyThreshold: '0.05',
            minNumOfSpectrumItems: 10,
            maxNumOfSpectrumItems: 20,
          },
        ],
        maxValue: [{ marginFraction: '' }],
      },
    });
    expect(errors).toEqual([]);
    expect(config.estimators).toEqual([
      { type: 'maxValue', marginFraction: 0 },
      {
        type: 'fft',
        minNumOfSpectrumItems: 10,
        maxNumOfSpectrumItems: 20,
        highFrequencyThreshold: 0.05,
        lowAmplitudeThreshold: 1.0,
        marginFraction: 0.2,
      },
    ]);
  });

  it("has Crane's 8 default FFT estimators in order", () => {
    const hf = 0.0002777777777777778;
    const want = [
      ...[0.01, 0.1, 0.15, 0.2].map((m) => [3, 1.0, m]),
      ...[0.01, 0.1, 0.15, 0.2].map((m) => [50, 0.05, m]),
    ].map(([minItems, lowAmp, margin]) => ({
      type: 'fft',
      minNumOfSpectrumItems: minItems,
      maxNumOfSpectrumItems: 100,
      highFrequencyThreshold: hf,
      lowAmplitudeThreshold: lowAmp,
      marginFraction: margin,
    }));
    expect(DEFAULT_ESTIMATORS).toEqual(want);
  });

  it('uses the defaults when nothing is given', () => {
    expect(resolveDspConfig(undefined)).toEqual({ config: DEFAULT_DSP_CONFIG, errors: [] });
    expect(resolveDspConfig({}).config).toMatchObject({ sampleIntervalSeconds: 60, historyLengthSeconds: 15 * 86_400 });
  });

  it('treats an FFT estimator\'s 0 as "unset", as Crane does', () => {
    const { config } = resolveDspConfig({
      estimators: { fft: [{ lowAmplitudeThreshold: '0', highFrequencyThreshold: '0', minNumOfSpectrumItems: 0 }] },
    });
    expect(config.estimators).toEqual([
      {
        type: 'fft',
        minNumOfSpectrumItems: 3,
        maxNumOfSpectrumItems: 100,
        highFrequencyThreshold: 1 / 3600,
        lowAmplitudeThreshold: 1,
        marginFraction: 0,
      },
    ]);
  });

  it('names every bad field with its path', () => {
    const { errors } = resolveDspConfig(
      {
        sampleInterval: 'soon',
        historyLength: '2w',
        estimators: {
          maxValue: [{ marginFraction: 'ten' }],
          fft: [{ lowAmplitudeThreshold: '1,5', maxNumOfSpectrumItems: -1 }],
        },
      },
      'dsp',
    );
    expect(errors.map((e) => e.field)).toEqual([
      'dsp.sampleInterval',
      'dsp.historyLength',
      'dsp.estimators.maxValue[0].marginFraction',
      'dsp.estimators.fft[0].lowAmplitudeThreshold',
      'dsp.estimators.fft[0].maxNumOfSpectrumItems',
    ]);
  });

  it('rejects a sample interval that is not a positive whole number of seconds', () => {
    expect(resolveDspConfig({ sampleInterval: '1500ms' }).errors[0]?.message).toContain(
      'positive whole number of seconds',
    );
    expect(resolveDspConfig({ sampleInterval: '0' }).errors[0]?.message).toContain('positive whole number of seconds');
  });

  it("prints estimators as Crane's String() does", () => {
    expect(estimatorName(DEFAULT_ESTIMATORS[0]!)).toBe(
      'FFT Estimator {minNumOfSpectrumItems: 3, maxNumOfSpectrumItems: 100, highFrequencyThreshold: 0.000278, ' +
        'lowAmplitudeThreshold: 1.000000, marginFraction: 0.010000}',
    );
    expect(estimatorName({ type: 'maxValue', marginFraction: 0.1 })).toBe(
      'Max Value Estimator {marginFraction: 0.100000}',
    );
  });
});

describe("parseCraneDuration (Crane's utils.ParseDuration)", () => {
  it.each([
    ['3d', 259_200],
    ['15d', 1_296_000],
    ['60s', 60],
    ['1m', 60],
    ['1h30m', 5400],
    ['1.5h', 5400],
    ['500ms', 0.5],
    ['0', 0],
    ['-2h', -7200],
  ])('%s = %d s', (text, seconds) => {
    expect(parseCraneDuration(text)).toBe(seconds);
  });

  it.each(['', '1', '2w', '1.5d', 'h', '1 h', '3D'])('rejects %j', (text) => {
    expect(parseCraneDuration(text)).toBeUndefined();
  });
});
