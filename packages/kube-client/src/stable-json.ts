import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted and undefined fields left out: equal values give equal text whatever order their fields
 * were written in. Written as loops (not map/filter/join): the member agent hashes every manifest it applies with it,
 * and the text must stay byte for byte what stored hashes were made from (stable-json.test.ts holds it to that).
 */
export function stableJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      // An element JSON has no text for (undefined, a function) adds nothing, as it did through join.
      out += stableJson(value[i]) ?? '';
    }
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let out = '{';
  let first = true;
  for (const k of keys) {
    const v = record[k];
    if (v === undefined) continue;
    if (!first) out += ',';
    first = false;
    out += `${JSON.stringify(k)}:${stableJson(v)}`;
  }
  return `${out}}`;
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
