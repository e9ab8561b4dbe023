import { isQuantity, parseQuantity as parseApiQuantity } from '@flotilla/api';

/** A Kubernetes resource quantity (`500m`, `32Gi`, `1.5`) as a number, read as admission reads it; NaN when it is not one. */
export function parseQuantity(q: unknown): number {
  return isQuantity(q) ? parseApiQuantity(q) : Number.NaN;
}

/** A quantity for people: `2.5`, `31.9Gi`, `110` (binary suffixes for memory, plain numbers otherwise). */
export function readableQuantity(value: number, resource: string): string {
  if (!Number.isFinite(value)) return '?';
  if (resource === 'memory') {
    for (const [suffix, f] of [
      ['Ti', 2 ** 40],
      ['Gi', 2 ** 30],
      ['Mi', 2 ** 20],
      ['Ki', 2 ** 10],
    ] as const)
      if (Math.abs(value) >= f) return `${round(value / f)}${suffix}`;
  }
  return String(round(value));
}

const round = (v: number) => Math.round(v * 10) / 10;
