import { describe, expect, it } from 'vitest';
import { parseGoDuration } from './duration.js';

// The cases of Go's time.ParseDuration tests (src/time/time_test.go), in milliseconds.
describe("parseGoDuration (Go's time.ParseDuration)", () => {
  it.each<[string, number]>([
    ['0', 0],
    ['5s', 5000],
    ['30s', 30_000],
    ['1478s', 1_478_000],
    ['-5s', -5000],
    ['+5s', 5000],
    ['-0', -0],
    ['+0', 0],
    ['5.0s', 5000],
    ['5.6s', 5600],
    ['5.s', 5000],
    ['.5s', 500],
    ['1.0s', 1000],
    ['1.00s', 1000],
    ['1.004s', 1004],
    ['100.00100s', 100_001],
    ['10ns', 10e-6],
    ['11us', 11e-3],
    ['12µs', 12e-3],
    ['12μs', 12e-3],
    ['13ms', 13],
    ['14s', 14_000],
    ['15m', 900_000],
    ['16h', 57_600_000],
    ['3h30m', 12_600_000],
    ['10.5s4m', 250_500],
    ['-2m3.4s', -123_400],
    ['1h2m3s4ms5us6ns', 3_723_004.005006],
    ['39h9m14.425s', 140_954_425],
    ['1.5h', 5_400_000],
  ])('%s is %d ms', (text, ms) => {
    expect(parseGoDuration(text)).toBeCloseTo(ms, 9);
  });

  it.each(['', '3', '-', 's', '.', '-.', '.s', '+.s', '1d', '3000000h1d', '10 m', '1h30', ' 1s', '1S'])(
    'refuses %j',
    (text) => {
      expect(parseGoDuration(text)).toBeUndefined();
    },
  );

  it('takes a bare number as seconds only when asked (kubectl flags, YAML numbers)', () => {
    expect(parseGoDuration('90')).toBeUndefined();
    expect(parseGoDuration('90', { bareNumberSeconds: true })).toBe(90_000);
    expect(parseGoDuration('1.5', { bareNumberSeconds: true })).toBe(1500);
    expect(parseGoDuration('1m', { bareNumberSeconds: true })).toBe(60_000);
  });
});
