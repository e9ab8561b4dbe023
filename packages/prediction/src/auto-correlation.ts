import { fft, ifft } from './fft.js';

/**
 * Crane's `AutoCorrelation`: the circular autocorrelation of the standardised series (mean, population standard
 * deviation) computed as IFFT(|FFT(z)|²)/N, so lag 0 is 1. A constant series has no deviation and gives NaN
 * everywhere, as in Crane, which then finds no peak.
 */
export function autoCorrelation(samples: Float64Array): Float64Array {
  const n = samples.length;
  if (n === 0) return new Float64Array(0);
  let mean = 0;
  for (let i = 0; i < n; i++) mean += samples[i]!;
  mean /= n;
  let variance = 0;
  for (let i = 0; i < n; i++) variance += (samples[i]! - mean) ** 2;
  const std = Math.sqrt(variance / n);
  const z = new Float64Array(n);
  for (let i = 0; i < n; i++) z[i] = (samples[i]! - mean) / std;
  const spectrum = fft(z);
  const power = new Float64Array(n);
  for (let k = 0; k < n; k++) power[k] = spectrum.re[k]! ** 2 + spectrum.im[k]! ** 2;
  const back = ifft(power, new Float64Array(n));
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = back.re[i]! / n;
  return out;
}
