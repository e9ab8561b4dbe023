import { describe, expect, it } from 'vitest';
import {
  canonicalQuantity,
  formatQuantity,
  isQuantity,
  parseQuantity,
  QuantityError,
  quantityFormat,
} from './quantity.js';

describe('parseQuantity', () => {
  it.each([
    ['500m', 0.5],
    ['2', 2],
    ['1.5', 1.5],
    ['32Gi', 32 * 2 ** 30],
    ['100Mi', 100 * 2 ** 20],
    ['1k', 1000],
    ['1e3', 1000],
    ['110', 110],
    [4, 4],
    ['0', 0],
  ])('%s -> %d', (input, expected) => {
    expect(parseQuantity(input)).toBeCloseTo(expected, 9);
  });
  it.each(['', 'abc', '1Xi', '--1', '1 Gi'])('rejects %j', (input) => {
    expect(() => parseQuantity(input)).toThrow(QuantityError);
    expect(isQuantity(input)).toBe(false);
  });
});

// Kubernetes' resource.Quantity prints in the format of its input, canonically: the largest suffix that keeps the
// mantissa whole (Kubernetes' quantity String()/CanonicalizeBytes).
describe('canonicalQuantity', () => {
  it.each([
    ['0', '0'],
    ['0Mi', '0'],
    ['1', '1'],
    ['1000m', '1'],
    ['1500m', '1500m'],
    ['0.5', '500m'],
    ['1.5', '1500m'],
    ['2000', '2k'],
    ['1500', '1500'],
    ['128M', '128M'],
    ['1.5G', '1500M'],
    ['1000k', '1M'],
    ['100n', '100n'],
    ['0.1n', '1n'],
    ['1u', '1u'],
    ['1E', '1E'],
    ['2000E', '2000E'],
    ['1e3', '1e3'],
    ['1.5e3', '1500'],
    ['1e-3', '1e-3'],
    ['1Gi', '1Gi'],
    ['1.5Gi', '1536Mi'],
    ['1024Mi', '1Gi'],
    ['1023Ki', '1023Ki'],
    ['1Ki', '1Ki'],
    ['0.5Ki', '512'],
    ['0.1Ki', '102400m'],
    ['1Ei', '1Ei'],
    ['2048Ei', '2048Ei'],
    ['-1.5Gi', '-1536Mi'],
    ['-500m', '-500m'],
    [4, '4'],
  ])('%s prints as %s', (input, expected) => {
    expect(canonicalQuantity(input)).toBe(expected);
  });
});

describe('formatQuantity', () => {
  it.each([
    [134217728, 'BinarySI', '128Mi'],
    [128e6, 'BinarySI', '125000Ki'],
    [128e6, 'DecimalSI', '128M'],
    [1e9, 'DecimalSI', '1G'],
    [1000, 'BinarySI', '1k'],
    [1025, 'BinarySI', '1025'],
    [2.5, 'DecimalSI', '2500m'],
    [5000, 'DecimalExponent', '5e3'],
  ] as const)('%d in %s is %s', (value, format, expected) => {
    expect(formatQuantity(value, format)).toBe(expected);
  });

  it('rejects what is not a finite number', () => {
    expect(() => formatQuantity(Number.NaN)).toThrow(QuantityError);
  });

  it.each([
    ['32Gi', 'BinarySI'],
    ['128M', 'DecimalSI'],
    ['2', 'DecimalSI'],
    ['1e3', 'DecimalExponent'],
    [2, 'DecimalSI'],
  ] as const)('%s is written in %s', (input, format) => expect(quantityFormat(input)).toBe(format));
});
