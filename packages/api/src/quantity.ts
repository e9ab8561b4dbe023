/**
 * Kubernetes resource quantities ("500m", "2", "32Gi", "1e3") as plain numbers in base units
 * (cores for cpu, bytes for memory, a count for pods).
 */
const SUFFIX: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};
const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?)$/;

export class QuantityError extends Error {
  constructor(readonly input: unknown) {
    super(`invalid quantity ${JSON.stringify(input)}: expected a number with an optional suffix such as 500m, 2, 32Gi`);
    this.name = 'QuantityError';
  }
}

/** Parses a quantity (string or number) into base units; throws QuantityError on anything else. */
export function parseQuantity(q: string | number): number {
  if (typeof q === 'number') {
    if (!Number.isFinite(q)) throw new QuantityError(q);
    return q;
  }
  const m = QUANTITY.exec(q.trim());
  if (!m) throw new QuantityError(q);
  const value = Number(m[1]) * (m[2] ? Number(`1${m[2]}`) : SUFFIX[m[3] ?? '']!);
  return value;
}

/** True when `q` parses as a quantity. */
export function isQuantity(q: unknown): q is string | number {
  if (typeof q !== 'string' && typeof q !== 'number') return false;
  try {
    parseQuantity(q);
    return true;
  } catch {
    return false;
  }
}
