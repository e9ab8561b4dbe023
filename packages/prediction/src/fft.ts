import FFT from 'fft.js';

/**
 * Discrete Fourier transforms of any length, unnormalised forward (`X[k] = Σ x[n]·e^(−2πikn/N)`) and `1/N`
 * inverse, as mjibson/go-dsp (the library Crane's DSP predictor uses) defines them.
 *
 * Crane's lengths are whole days or weeks of samples (1,440·d at one-minute resolution: 2^5·3^2·5·d), never
 * powers of two. fft.js only does powers of two, and Bluestein's method on top of it costs two 65,536-point
 * transforms for 20,160 samples (about 7 ms here), which 100 significance shuffles cannot afford. So lengths whose
 * prime factors are all at most 31 take a mixed-radix Stockham path (radix-4 and radix-2 stages, a symmetric odd-radix
 * stage for 3, 5, 7, …); any other length goes through Bluestein on fft.js.
 */
export interface Spectrum {
  readonly re: Float64Array;
  readonly im: Float64Array;
}

const MAX_MIXED_RADIX_FACTOR = 31;

interface MixedRadixPlan {
  readonly kind: 'mixed';
  readonly n: number;
  /** Radices in the order the stages apply them. */
  readonly factors: readonly number[];
  readonly twRe: Float64Array;
  readonly twIm: Float64Array;
  /** Reused copy of the input, which the stages overwrite (fresh buffers per call cost more than the stages). */
  readonly workRe: Float64Array;
  readonly workIm: Float64Array;
}

interface BluesteinPlan {
  readonly kind: 'bluestein';
  readonly n: number;
  readonly m: number;
  readonly fft: FFT;
  /** e^(−πik²/N), the chirp. */
  readonly chirpRe: Float64Array;
  readonly chirpIm: Float64Array;
  /** FFT of the conjugate chirp laid out circularly over m points (interleaved). */
  readonly kernel: Float64Array;
}

type Plan = MixedRadixPlan | BluesteinPlan;

const plans = new Map<number, Plan>();
const MAX_PLANS = 64;

function factorize(n: number): number[] | undefined {
  const out: number[] = [];
  let rest = n;
  let p = 4;
  while (rest > 1) {
    while (rest % p !== 0) {
      p = p === 4 ? 2 : p === 2 ? 3 : p + 2;
      if (p > MAX_MIXED_RADIX_FACTOR) return undefined;
    }
    rest /= p;
    out.push(p);
  }
  return out;
}

function twiddles(n: number, sign: number): { re: Float64Array; im: Float64Array } {
  const re = new Float64Array(n);
  const im = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const phase = (sign * 2 * Math.PI * k) / n;
    re[k] = Math.cos(phase);
    im[k] = Math.sin(phase);
  }
  return { re, im };
}

function planFor(n: number): Plan {
  const known = plans.get(n);
  if (known) return known;
  const factors = factorize(n);
  let plan: Plan;
  if (factors) {
    const tw = twiddles(n, -1);
    plan = {
      kind: 'mixed',
      n,
      factors,
      twRe: tw.re,
      twIm: tw.im,
      workRe: new Float64Array(n),
      workIm: new Float64Array(n),
    };
  } else {
    let m = 2;
    while (m < 2 * n - 1) m *= 2;
    const chirpRe = new Float64Array(n);
    const chirpIm = new Float64Array(n);
    for (let k = 0; k < n; k++) {
      // k² mod 2N keeps the phase argument small, so large k lose no precision.
      const phase = (-Math.PI * ((k * k) % (2 * n))) / n;
      chirpRe[k] = Math.cos(phase);
      chirpIm[k] = Math.sin(phase);
    }
    const fft = new FFT(m);
    const b = new Float64Array(2 * m);
    for (let k = 0; k < n; k++) {
      b[2 * k] = chirpRe[k]!;
      b[2 * k + 1] = -chirpIm[k]!;
      if (k > 0) {
        b[2 * (m - k)] = chirpRe[k]!;
        b[2 * (m - k) + 1] = -chirpIm[k]!;
      }
    }
    const kernel = new Float64Array(2 * m);
    fft.transform(kernel, b);
    plan = { kind: 'bluestein', n, m, fft, chirpRe, chirpIm, kernel };
  }
  if (plans.size >= MAX_PLANS) plans.clear();
  plans.set(n, plan);
  return plan;
}

/** cos and sin of 2πj/p for j < p, per odd radix p. */
const rootsByRadix = new Map<number, { re: Float64Array; im: Float64Array }>();
const scratchRe = new Float64Array(MAX_MIXED_RADIX_FACTOR + 1);
const scratchIm = new Float64Array(MAX_MIXED_RADIX_FACTOR + 1);

/**
 * One decimation-in-frequency Stockham stage (autosorting, so no bit reversal): sub-sequences of length `n` at
 * stride `s` are split by `radix`; `y[q + s(radix·p + k)] = (Σ_j x[q + s(p + j·m)]·W_radix^(jk))·W_n^(pk)`.
 * Reads and writes run along q, which keeps memory access sequential.
 */
function stage(
  plan: MixedRadixPlan,
  xRe: Float64Array,
  xIm: Float64Array,
  yRe: Float64Array,
  yIm: Float64Array,
  n: number,
  s: number,
  radix: number,
) {
  const { twRe, twIm } = plan;
  const m = n / radix;
  const step = plan.n / n;
  if (radix === 4) {
    for (let p = 0; p < m; p++) {
      const w1r = twRe[p * step]!;
      const w1i = twIm[p * step]!;
      const w2r = twRe[2 * p * step]!;
      const w2i = twIm[2 * p * step]!;
      const w3r = twRe[3 * p * step]!;
      const w3i = twIm[3 * p * step]!;
      const i0 = s * p;
      const i1 = s * (p + m);
      const i2 = s * (p + 2 * m);
      const i3 = s * (p + 3 * m);
      const o0 = s * 4 * p;
      const o1 = o0 + s;
      const o2 = o1 + s;
      const o3 = o2 + s;
      for (let q = 0; q < s; q++) {
        const a0r = xRe[i0 + q]!;
        const a0i = xIm[i0 + q]!;
        const a1r = xRe[i1 + q]!;
        const a1i = xIm[i1 + q]!;
        const a2r = xRe[i2 + q]!;
        const a2i = xIm[i2 + q]!;
        const a3r = xRe[i3 + q]!;
        const a3i = xIm[i3 + q]!;
        const t0r = a0r + a2r;
        const t0i = a0i + a2i;
        const t1r = a0r - a2r;
        const t1i = a0i - a2i;
        const t2r = a1r + a3r;
        const t2i = a1i + a3i;
        // (a1 − a3)·(−i)
        const t3r = a1i - a3i;
        const t3i = a3r - a1r;
        yRe[o0 + q] = t0r + t2r;
        yIm[o0 + q] = t0i + t2i;
        const b1r = t1r + t3r;
        const b1i = t1i + t3i;
        yRe[o1 + q] = b1r * w1r - b1i * w1i;
        yIm[o1 + q] = b1r * w1i + b1i * w1r;
        const b2r = t0r - t2r;
        const b2i = t0i - t2i;
        yRe[o2 + q] = b2r * w2r - b2i * w2i;
        yIm[o2 + q] = b2r * w2i + b2i * w2r;
        const b3r = t1r - t3r;
        const b3i = t1i - t3i;
        yRe[o3 + q] = b3r * w3r - b3i * w3i;
        yIm[o3 + q] = b3r * w3i + b3i * w3r;
      }
    }
    return;
  }
  if (radix === 2) {
    for (let p = 0; p < m; p++) {
      const wr = twRe[p * step]!;
      const wi = twIm[p * step]!;
      const i0 = s * p;
      const i1 = s * (p + m);
      const o0 = s * 2 * p;
      const o1 = o0 + s;
      for (let q = 0; q < s; q++) {
        const ar = xRe[i0 + q]!;
        const ai = xIm[i0 + q]!;
        const br = xRe[i1 + q]!;
        const bi = xIm[i1 + q]!;
        yRe[o0 + q] = ar + br;
        yIm[o0 + q] = ai + bi;
        const dr = ar - br;
        const di = ai - bi;
        yRe[o1 + q] = dr * wr - di * wi;
        yIm[o1 + q] = dr * wi + di * wr;
      }
    }
    return;
  }
  // Odd radix (the factorisation takes 4s and 2s first): pair inputs j and radix−j, so output k is
  // A_k − iB_k and output radix−k is A_k + iB_k with A_k = a0 + Σ cos(2πjk/r)(a_j + a_(r−j)) and
  // B_k = Σ sin(2πjk/r)(a_j − a_(r−j)): half the multiplications of a plain small DFT.
  let roots = rootsByRadix.get(radix);
  if (!roots) {
    roots = twiddles(radix, 1);
    rootsByRadix.set(radix, roots);
  }
  const cos = roots.re;
  const sin = roots.im;
  const h = (radix - 1) / 2;
  const span = s * m;
  for (let p = 0; p < m; p++) {
    for (let q = 0; q < s; q++) {
      const i0 = s * p + q;
      const a0r = xRe[i0]!;
      const a0i = xIm[i0]!;
      let sumR = a0r;
      let sumI = a0i;
      for (let j = 1; j <= h; j++) {
        const u = i0 + j * span;
        const v = i0 + (radix - j) * span;
        const br = xRe[u]! + xRe[v]!;
        const bi = xIm[u]! + xIm[v]!;
        scratchRe[j] = br;
        scratchIm[j] = bi;
        scratchRe[h + j] = xRe[u]! - xRe[v]!;
        scratchIm[h + j] = xIm[u]! - xIm[v]!;
        sumR += br;
        sumI += bi;
      }
      const o0 = s * radix * p + q;
      yRe[o0] = sumR;
      yIm[o0] = sumI;
      for (let k = 1; k <= h; k++) {
        let ar = a0r;
        let ai = a0i;
        let br = 0;
        let bi = 0;
        let idx = 0;
        for (let j = 1; j <= h; j++) {
          idx += k;
          if (idx >= radix) idx -= radix;
          const c = cos[idx]!;
          const sn = sin[idx]!;
          ar += c * scratchRe[j]!;
          ai += c * scratchIm[j]!;
          br += sn * scratchRe[h + j]!;
          bi += sn * scratchIm[h + j]!;
        }
        // y_k = A − iB (forward transform), y_(r−k) = A + iB; then the stage twiddles W_n^(p·k).
        const ykr = ar + bi;
        const yki = ai - br;
        const ymr = ar - bi;
        const ymi = ai + br;
        const t1 = p * k * step;
        const t2 = p * (radix - k) * step;
        const ok = o0 + k * s;
        const om = o0 + (radix - k) * s;
        yRe[ok] = ykr * twRe[t1]! - yki * twIm[t1]!;
        yIm[ok] = ykr * twIm[t1]! + yki * twRe[t1]!;
        yRe[om] = ymr * twRe[t2]! - ymi * twIm[t2]!;
        yIm[om] = ymr * twIm[t2]! + ymi * twRe[t2]!;
      }
    }
  }
}

// Radix 3, 5 and 7 (every factor of Crane's day and week lengths) unrolled: the same pairing as the odd-radix
// stage with the small-DFT coefficients in locals.
function oddStage3(
  plan: MixedRadixPlan,
  xRe: Float64Array,
  xIm: Float64Array,
  yRe: Float64Array,
  yIm: Float64Array,
  n: number,
  s: number,
) {
  const { twRe, twIm } = plan;
  const m = n / 3;
  const step = plan.n / n;
  const span = s * m;
  const c11 = Math.cos((2 * Math.PI * 1) / 3);
  const s11 = Math.sin((2 * Math.PI * 1) / 3);
  for (let p = 0; p < m; p++) {
    const o0 = s * 3 * p;
    const t1 = p * 1 * step;
    const w1r = twRe[t1]!;
    const w1i = twIm[t1]!;
    const t2 = p * 2 * step;
    const w2r = twRe[t2]!;
    const w2i = twIm[t2]!;
    for (let q = 0; q < s; q++) {
      const i0 = s * p + q;
      const a0r = xRe[i0]!;
      const a0i = xIm[i0]!;
      const u1r = xRe[i0 + 1 * span]!;
      const u1i = xIm[i0 + 1 * span]!;
      const v1r = xRe[i0 + 2 * span]!;
      const v1i = xIm[i0 + 2 * span]!;
      const b1r = u1r + v1r;
      const b1i = u1i + v1i;
      const d1r = u1r - v1r;
      const d1i = u1i - v1i;
      const o = o0 + q;
      yRe[o] = a0r + b1r;
      yIm[o] = a0i + b1i;
      const A1r = a0r + c11 * b1r;
      const A1i = a0i + c11 * b1i;
      const B1r = s11 * d1r;
      const B1i = s11 * d1i;
      const y1r = A1r + B1i;
      const y1i = A1i - B1r;
      const z1r = A1r - B1i;
      const z1i = A1i + B1r;
      yRe[o + 1 * s] = y1r * w1r - y1i * w1i;
      yIm[o + 1 * s] = y1r * w1i + y1i * w1r;
      yRe[o + 2 * s] = z1r * w2r - z1i * w2i;
      yIm[o + 2 * s] = z1r * w2i + z1i * w2r;
    }
  }
}

function oddStage5(
  plan: MixedRadixPlan,
  xRe: Float64Array,
  xIm: Float64Array,
  yRe: Float64Array,
  yIm: Float64Array,
  n: number,
  s: number,
) {
  const { twRe, twIm } = plan;
  const m = n / 5;
  const step = plan.n / n;
  const span = s * m;
  const c11 = Math.cos((2 * Math.PI * 1) / 5);
  const s11 = Math.sin((2 * Math.PI * 1) / 5);
  const c12 = Math.cos((2 * Math.PI * 2) / 5);
  const s12 = Math.sin((2 * Math.PI * 2) / 5);
  const c21 = Math.cos((2 * Math.PI * 2) / 5);
  const s21 = Math.sin((2 * Math.PI * 2) / 5);
  const c22 = Math.cos((2 * Math.PI * 4) / 5);
  const s22 = Math.sin((2 * Math.PI * 4) / 5);
  for (let p = 0; p < m; p++) {
    const o0 = s * 5 * p;
    const t1 = p * 1 * step;
    const w1r = twRe[t1]!;
    const w1i = twIm[t1]!;
    const t2 = p * 2 * step;
    const w2r = twRe[t2]!;
    const w2i = twIm[t2]!;
    const t3 = p * 3 * step;
    const w3r = twRe[t3]!;
    const w3i = twIm[t3]!;
    const t4 = p * 4 * step;
    const w4r = twRe[t4]!;
    const w4i = twIm[t4]!;
    for (let q = 0; q < s; q++) {
      const i0 = s * p + q;
      const a0r = xRe[i0]!;
      const a0i = xIm[i0]!;
      const u1r = xRe[i0 + 1 * span]!;
      const u1i = xIm[i0 + 1 * span]!;
      const v1r = xRe[i0 + 4 * span]!;
      const v1i = xIm[i0 + 4 * span]!;
      const b1r = u1r + v1r;
      const b1i = u1i + v1i;
      const d1r = u1r - v1r;
      const d1i = u1i - v1i;
      const u2r = xRe[i0 + 2 * span]!;
      const u2i = xIm[i0 + 2 * span]!;
      const v2r = xRe[i0 + 3 * span]!;
      const v2i = xIm[i0 + 3 * span]!;
      const b2r = u2r + v2r;
      const b2i = u2i + v2i;
      const d2r = u2r - v2r;
      const d2i = u2i - v2i;
      const o = o0 + q;
      yRe[o] = a0r + b1r + b2r;
      yIm[o] = a0i + b1i + b2i;
      const A1r = a0r + c11 * b1r + c12 * b2r;
      const A1i = a0i + c11 * b1i + c12 * b2i;
      const B1r = s11 * d1r + s12 * d2r;
      const B1i = s11 * d1i + s12 * d2i;
      const y1r = A1r + B1i;
      const y1i = A1i - B1r;
      const z1r = A1r - B1i;
      const z1i = A1i + B1r;
      yRe[o + 1 * s] = y1r * w1r - y1i * w1i;
      yIm[o + 1 * s] = y1r * w1i + y1i * w1r;
      yRe[o + 4 * s] = z1r * w4r - z1i * w4i;
      yIm[o + 4 * s] = z1r * w4i + z1i * w4r;
      const A2r = a0r + c21 * b1r + c22 * b2r;
      const A2i = a0i + c21 * b1i + c22 * b2i;
      const B2r = s21 * d1r + s22 * d2r;
      const B2i = s21 * d1i + s22 * d2i;
      const y2r = A2r + B2i;
      const y2i = A2i - B2r;
      const z2r = A2r - B2i;
      const z2i = A2i + B2r;
      yRe[o + 2 * s] = y2r * w2r - y2i * w2i;
      yIm[o + 2 * s] = y2r * w2i + y2i * w2r;
      yRe[o + 3 * s] = z2r * w3r - z2i * w3i;
      yIm[o + 3 * s] = z2r * w3i + z2i * w3r;
    }
  }
}

function oddStage7(
  plan: MixedRadixPlan,
  xRe: Float64Array,
  xIm: Float64Array,
  yRe: Float64Array,
  yIm: Float64Array,
  n: number,
  s: number,
) {
  const { twRe, twIm } = plan;
  const m = n / 7;
  const step = plan.n / n;
  const span = s * m;
  const c11 = Math.cos((2 * Math.PI * 1) / 7);
  const s11 = Math.sin((2 * Math.PI * 1) / 7);
  const c12 = Math.cos((2 * Math.PI * 2) / 7);
  const s12 = Math.sin((2 * Math.PI * 2) / 7);
  const c13 = Math.cos((2 * Math.PI * 3) / 7);
  const s13 = Math.sin((2 * Math.PI * 3) / 7);
  const c21 = Math.cos((2 * Math.PI * 2) / 7);
  const s21 = Math.sin((2 * Math.PI * 2) / 7);
  const c22 = Math.cos((2 * Math.PI * 4) / 7);
  const s22 = Math.sin((2 * Math.PI * 4) / 7);
  const c23 = Math.cos((2 * Math.PI * 6) / 7);
  const s23 = Math.sin((2 * Math.PI * 6) / 7);
  const c31 = Math.cos((2 * Math.PI * 3) / 7);
  const s31 = Math.sin((2 * Math.PI * 3) / 7);
  const c32 = Math.cos((2 * Math.PI * 6) / 7);
  const s32 = Math.sin((2 * Math.PI * 6) / 7);
  const c33 = Math.cos((2 * Math.PI * 2) / 7);
  const s33 = Math.sin((2 * Math.PI * 2) / 7);
  for (let p = 0; p < m; p++) {
    const o0 = s * 7 * p;
    const t1 = p * 1 * step;
    const w1r = twRe[t1]!;
    const w1i = twIm[t1]!;
    const t2 = p * 2 * step;
    const w2r = twRe[t2]!;
    const w2i = twIm[t2]!;
    const t3 = p * 3 * step;
    const w3r = twRe[t3]!;
    const w3i = twIm[t3]!;
    const t4 = p * 4 * step;
    const w4r = twRe[t4]!;
    const w4i = twIm[t4]!;
    const t5 = p * 5 * step;
    const w5r = twRe[t5]!;
    const w5i = twIm[t5]!;
    const t6 = p * 6 * step;
    const w6r = twRe[t6]!;
    const w6i = twIm[t6]!;
    for (let q = 0; q < s; q++) {
      const i0 = s * p + q;
      const a0r = xRe[i0]!;
      const a0i = xIm[i0]!;
      const u1r = xRe[i0 + 1 * span]!;
      const u1i = xIm[i0 + 1 * span]!;
      const v1r = xRe[i0 + 6 * span]!;
      const v1i = xIm[i0 + 6 * span]!;
      const b1r = u1r + v1r;
      const b1i = u1i + v1i;
      const d1r = u1r - v1r;
      const d1i = u1i - v1i;
      const u2r = xRe[i0 + 2 * span]!;
      const u2i = xIm[i0 + 2 * span]!;
      const v2r = xRe[i0 + 5 * span]!;
      const v2i = xIm[i0 + 5 * span]!;
      const b2r = u2r + v2r;
      const b2i = u2i + v2i;
      const d2r = u2r - v2r;
      const d2i = u2i - v2i;
      const u3r = xRe[i0 + 3 * span]!;
      const u3i = xIm[i0 + 3 * span]!;
      const v3r = xRe[i0 + 4 * span]!;
      const v3i = xIm[i0 + 4 * span]!;
      const b3r = u3r + v3r;
      const b3i = u3i + v3i;
      const d3r = u3r - v3r;
      const d3i = u3i - v3i;
      const o = o0 + q;
      yRe[o] = a0r + b1r + b2r + b3r;
      yIm[o] = a0i + b1i + b2i + b3i;
      const A1r = a0r + c11 * b1r + c12 * b2r + c13 * b3r;
      const A1i = a0i + c11 * b1i + c12 * b2i + c13 * b3i;
      const B1r = s11 * d1r + s12 * d2r + s13 * d3r;
      const B1i = s11 * d1i + s12 * d2i + s13 * d3i;
      const y1r = A1r + B1i;
      const y1i = A1i - B1r;
      const z1r = A1r - B1i;
      const z1i = A1i + B1r;
      yRe[o + 1 * s] = y1r * w1r - y1i * w1i;
      yIm[o + 1 * s] = y1r * w1i + y1i * w1r;
      yRe[o + 6 * s] = z1r * w6r - z1i * w6i;
      yIm[o + 6 * s] = z1r * w6i + z1i * w6r;
      const A2r = a0r + c21 * b1r + c22 * b2r + c23 * b3r;
      const A2i = a0i + c21 * b1i + c22 * b2i + c23 * b3i;
      const B2r = s21 * d1r + s22 * d2r + s23 * d3r;
      const B2i = s21 * d1i + s22 * d2i + s23 * d3i;
      const y2r = A2r + B2i;
      const y2i = A2i - B2r;
      const z2r = A2r - B2i;
      const z2i = A2i + B2r;
      yRe[o + 2 * s] = y2r * w2r - y2i * w2i;
      yIm[o + 2 * s] = y2r * w2i + y2i * w2r;
      yRe[o + 5 * s] = z2r * w5r - z2i * w5i;
      yIm[o + 5 * s] = z2r * w5i + z2i * w5r;
      const A3r = a0r + c31 * b1r + c32 * b2r + c33 * b3r;
      const A3i = a0i + c31 * b1i + c32 * b2i + c33 * b3i;
      const B3r = s31 * d1r + s32 * d2r + s33 * d3r;
      const B3i = s31 * d1i + s32 * d2i + s33 * d3i;
      const y3r = A3r + B3i;
      const y3i = A3i - B3r;
      const z3r = A3r - B3i;
      const z3i = A3i + B3r;
      yRe[o + 3 * s] = y3r * w3r - y3i * w3i;
      yIm[o + 3 * s] = y3r * w3i + y3i * w3r;
      yRe[o + 4 * s] = z3r * w4r - z3i * w4i;
      yIm[o + 4 * s] = z3r * w4i + z3i * w4r;
    }
  }
}

/** Runs every stage, ping-ponging between the input copy and the output; the result always ends in `o`. */
function mixedRadix(plan: MixedRadixPlan, xRe: Float64Array, xIm: Float64Array, oRe: Float64Array, oIm: Float64Array) {
  let aRe = xRe;
  let aIm = xIm;
  let bRe = oRe;
  let bIm = oIm;
  let n = plan.n;
  let s = 1;
  for (const radix of plan.factors) {
    if (radix === 3) oddStage3(plan, aRe, aIm, bRe, bIm, n, s);
    else if (radix === 5) oddStage5(plan, aRe, aIm, bRe, bIm, n, s);
    else if (radix === 7) oddStage7(plan, aRe, aIm, bRe, bIm, n, s);
    else stage(plan, aRe, aIm, bRe, bIm, n, s, radix);
    [aRe, bRe] = [bRe, aRe];
    [aIm, bIm] = [bIm, aIm];
    n /= radix;
    s *= radix;
  }
  if (aRe !== oRe) {
    oRe.set(aRe);
    oIm.set(aIm);
  }
}

function bluestein(p: BluesteinPlan, xRe: Float64Array, xIm: Float64Array, oRe: Float64Array, oIm: Float64Array) {
  const { n, m, fft, chirpRe, chirpIm, kernel } = p;
  const a = new Float64Array(2 * m);
  for (let k = 0; k < n; k++) {
    a[2 * k] = xRe[k]! * chirpRe[k]! - xIm[k]! * chirpIm[k]!;
    a[2 * k + 1] = xRe[k]! * chirpIm[k]! + xIm[k]! * chirpRe[k]!;
  }
  const fa = new Float64Array(2 * m);
  fft.transform(fa, a);
  for (let k = 0; k < m; k++) {
    const ar = fa[2 * k]!;
    const ai = fa[2 * k + 1]!;
    const br = kernel[2 * k]!;
    const bi = kernel[2 * k + 1]!;
    fa[2 * k] = ar * br - ai * bi;
    fa[2 * k + 1] = ar * bi + ai * br;
  }
  fft.inverseTransform(a, fa);
  for (let k = 0; k < n; k++) {
    const cr = a[2 * k]!;
    const ci = a[2 * k + 1]!;
    oRe[k] = cr * chirpRe[k]! - ci * chirpIm[k]!;
    oIm[k] = cr * chirpIm[k]! + ci * chirpRe[k]!;
  }
}

/**
 * Forward transform of a complex sequence (`im` may be omitted for a real one). Inputs are not modified. `out`, when
 * given, receives the result instead of new arrays (for loops that transform many series of one length).
 */
export function fft(re: ArrayLike<number>, im?: ArrayLike<number>, out?: Spectrum): Spectrum {
  const n = re.length;
  if (im && im.length !== n) throw new RangeError(`fft: re has ${n} values but im has ${im.length}`);
  if (out && out.re.length !== n) throw new RangeError(`fft: out has ${out.re.length} values, input ${n}`);
  const oRe = out?.re ?? new Float64Array(n);
  const oIm = out?.im ?? new Float64Array(n);
  if (n <= 1) {
    if (n === 1) {
      oRe[0] = re[0]!;
      oIm[0] = im ? im[0]! : 0;
    }
    return { re: oRe, im: oIm };
  }
  const plan = planFor(n);
  const xRe = plan.kind === 'mixed' ? plan.workRe : new Float64Array(n);
  const xIm = plan.kind === 'mixed' ? plan.workIm : new Float64Array(n);
  xRe.set(re);
  if (im) xIm.set(im);
  else xIm.fill(0);
  if (plan.kind === 'mixed') mixedRadix(plan, xRe, xIm, oRe, oIm);
  else bluestein(plan, xRe, xIm, oRe, oIm);
  return { re: oRe, im: oIm };
}

/** Inverse transform with go-dsp's `1/N` scaling: `ifft(fft(x)) = x`. */
export function ifft(re: ArrayLike<number>, im: ArrayLike<number>): Spectrum {
  const n = re.length;
  const conj = new Float64Array(n);
  for (let k = 0; k < n; k++) conj[k] = -im[k]!;
  const out = fft(re, conj);
  for (let k = 0; k < n; k++) {
    out.re[k] = out.re[k]! / n;
    out.im[k] = -out.im[k]! / n;
  }
  return out;
}

/** |X[k]|, the modulus go-dsp's callers take with cmplx.Abs. */
export function magnitudes(s: Spectrum): Float64Array {
  const out = new Float64Array(s.re.length);
  for (let k = 0; k < out.length; k++) {
    const r = s.re[k]!;
    const i = s.im[k]!;
    out[k] = Math.sqrt(r * r + i * i);
  }
  return out;
}
