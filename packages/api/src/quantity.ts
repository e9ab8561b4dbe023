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

/** Kubernetes' three quantity formats: a quantity prints in the format its input was written in. */
export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

const BINARY_SUFFIX = /(Ki|Mi|Gi|Ti|Pi|Ei)$/;
const EXPONENT = /\d[eE][+-]?\d+$/;

/** The format Kubernetes keeps for `q`: binary for a Ki…Ei suffix, exponent for `1e3`, decimal otherwise. */
export function quantityFormat(q: string | number): QuantityFormat {
  if (typeof q === 'number') return 'DecimalSI';
  const t = q.trim();
  if (BINARY_SUFFIX.test(t)) return 'BinarySI';
  return EXPONENT.test(t) ? 'DecimalExponent' : 'DecimalSI';
}

const DECIMAL_SUFFIX: Record<number, string> = {
  [-9]: 'n',
  [-6]: 'u',
  [-3]: 'm',
  0: '',
  3: 'k',
  6: 'M',
  9: 'G',
  12: 'T',
  15: 'P',
  18: 'E',
};
const BINARY_SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

/**
 * `|value|` as digits × 10^exponent. Integers are taken exactly (memory in bytes may pass 2^53); fractions to 15
 * significant digits, which drops the binary noise of products such as 100 × 1e-9.
 */
function decimalParts(value: number): { digits: bigint; exponent: number } {
  const abs = Math.abs(value);
  if (Number.isInteger(abs)) return { digits: BigInt(abs), exponent: 0 };
  const [mantissa = '0', exp = '0'] = abs.toPrecision(15).split('e');
  const [whole = '0', fraction = ''] = mantissa.split('.');
  return { digits: BigInt(whole + fraction), exponent: Number(exp) - fraction.length };
}

/**
 * Kubernetes' canonical decimal form (resource.Quantity's CanonicalizeBytes): an integer mantissa and an exponent
 * that is a multiple of 3 between -9 and 18, rounded up to the nano unit, as `1500m`, `128M` or `1e3`.
 */
function formatDecimal(value: number, format: 'DecimalSI' | 'DecimalExponent'): string {
  let { digits, exponent } = decimalParts(value);
  if (exponent < -9) {
    const scale = 10n ** BigInt(-9 - exponent);
    digits = digits / scale + (digits % scale === 0n ? 0n : 1n);
    exponent = -9;
  }
  while (digits !== 0n && digits % 10n === 0n && exponent < 18) {
    digits /= 10n;
    exponent += 1;
  }
  while (exponent > 18 || ((exponent % 3) + 3) % 3 !== 0) {
    digits *= 10n;
    exponent -= 1;
  }
  if (digits === 0n) return '0';
  const sign = value < 0 ? '-' : '';
  const suffix = format === 'DecimalSI' ? DECIMAL_SUFFIX[exponent] : exponent === 0 ? '' : `e${exponent}`;
  return `${sign}${digits}${suffix}`;
}

/**
 * Prints a quantity in base units as Kubernetes does: `128Mi` rather than `134217728`, `1536Mi` for 1.5Gi, and a
 * decimal input stays decimal (`128M`). Like Kubernetes, a binary quantity under 1024 or with a fraction prints in
 * decimal (`512`, `500m`) so that nothing is rounded.
 */
export function formatQuantity(value: number, format: QuantityFormat = 'DecimalSI'): string {
  if (!Number.isFinite(value)) throw new QuantityError(value);
  if (format !== 'BinarySI') return formatDecimal(value, format);
  if (Math.abs(value) < 1024 || !Number.isInteger(value)) return formatDecimal(value, 'DecimalSI');
  let digits = BigInt(Math.abs(value));
  let power = 0;
  while (digits % 1024n === 0n && power < BINARY_SUFFIXES.length - 1) {
    digits /= 1024n;
    power += 1;
  }
  return `${value < 0 ? '-' : ''}${digits}${BINARY_SUFFIXES[power]}`;
}

/** `q` in Kubernetes' canonical form, keeping its format: `1.5Gi` → `1536Mi`, `128M` → `128M`, `0.5` → `500m`. */
export function canonicalQuantity(q: string | number): string {
  return formatQuantity(parseQuantity(q), quantityFormat(q));
}
