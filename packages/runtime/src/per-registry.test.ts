import { Counter, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { perRegistry } from './per-registry.js';

describe('perRegistry', () => {
  it('builds the metrics once per registry, so a second leadership term reuses them instead of failing', () => {
    const counter = perRegistry((r) => new Counter({ name: 'flotilla_test_total', help: 'test', registers: [r] }));
    const [a, b] = [new Registry(), new Registry()];
    expect(counter(a)).toBe(counter(a));
    expect(counter(b)).not.toBe(counter(a));
    expect(() => new Counter({ name: 'flotilla_test_total', help: 'test', registers: [a] })).toThrow(
      /already been registered/,
    );
  });
});
