import { createHash } from 'node:crypto';

/** JSON with object keys sorted and undefined fields left out: equal values give equal text whatever order their fields were written in. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

export interface StableDigestOptions {
  /** How the sha256 is written: hex (the member agent's applied-hash annotation) or base64url (the bridge's records). */
  encoding: 'hex' | 'base64url';
  /** Characters kept of it: what is already stored elsewhere was written at this length, so it must not change. */
  length: number;
}

/** sha256 of the value's stable JSON, cut to `length` characters of `encoding`. */
export function stableDigest(value: unknown, { encoding, length }: StableDigestOptions): string {
  return createHash('sha256').update(stableJson(value)).digest(encoding).slice(0, length);
}
