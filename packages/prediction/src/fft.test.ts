import { describe, expect, it } from 'vitest';
import { fft, ifft, magnitudes } from './fft.js';
import { seededRandom } from './random.js';

function naiveDft(re: number[], im: number[]): { re: number[]; im: number[] } {
  const n = re.length;
  const out = { re: [] as number[], im: [] as number[] };
  for (let k = 0; k < n; k++) {
    let sr = 0;
    let si = 0;
    for (let j = 0; j < n; j++) {
      const phase = (-2 * Math.PI * ((k * j) % n)) / n;
      sr += re[j]! * Math.cos(phase) - im[j]! * Math.sin(phase);
      si += re[j]! * Math.sin(phase) + im[j]! * Math.cos(phase);
    }
    out.re.push(sr);
    out.im.push(si);
  }
  return out;
}

describe('fft (go-dsp conventions: unnormalised forward, 1/N inverse)', () => {
  // Mixed-radix lengths (powers of two, Crane's 1,440-multiples, odd radices) and Bluestein ones (large primes).
  it.each([1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 25, 30, 49, 64, 96, 97, 100, 211, 360, 1000, 1440, 2 * 1009])(
    'matches a naive DFT for N = %i',
    (n) => {
      const r = seededRandom(n);
      const re = Array.from({ length: n }, () => r() - 0.5);
      const im = Array.from({ length: n }, () => r() - 0.5);
      const got = fft(re, im);
      const want = naiveDft(re, im);
      const tol = 1e-11 * Math.max(1, n);
      for (let k = 0; k < n; k++) {
        expect(Math.abs(got.re[k]! - want.re[k]!)).toBeLessThan(tol);
        expect(Math.abs(got.im[k]! - want.im[k]!)).toBeLessThan(tol);
      }
      const back = ifft(got.re, got.im);
      for (let k = 0; k < n; k++) {
        expect(back.re[k]).toBeCloseTo(re[k]!, 12);
        expect(back.im[k]).toBeCloseTo(im[k]!, 12);
      }
    },
  );

  it('puts a cosine of k cycles at bins k and N−k with N/2 magnitude', () => {
    const n = 20160;
    const x = Array.from({ length: n }, (_, i) => 3 * Math.cos((2 * Math.PI * 14 * i) / n));
    const m = magnitudes(fft(x));
    expect(m[14]).toBeCloseTo((3 * n) / 2, 6);
    expect(m[n - 14]).toBeCloseTo((3 * n) / 2, 6);
    expect(m[13]).toBeLessThan(1e-6);
  });

  it('rejects parts of different lengths', () => {
    expect(() => fft([1, 2, 3], [1, 2])).toThrow(RangeError);
  });
});
