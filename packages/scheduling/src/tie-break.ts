const encoder = new TextEncoder();

/**
 * 32-bit FNV-1a over the UTF-8 bytes of `s`. Karmada breaks Webster ties by the parity of this
 * hash of the template's UID, so the same workload always resolves ties the same way while
 * different workloads do not all favour the same cluster.
 */
export function fnv1a32(s: string): number {
  let h = 0x811c9dc5;
  // UIDs are ASCII, whose UTF-8 bytes are the char codes: skip the encoder on the hot path.
  if (/^\p{ASCII}*$/u.test(s)) {
    for (let i = 0; i < s.length; i++) {
      h ^= s.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    return h >>> 0;
  }
  const bytes = encoder.encode(s);
  for (let i = 0; i < bytes.length; i++) {
    h ^= bytes[i]!;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * True when ties between equally-seated parties go to the alphabetically LARGER name. An empty
 * UID is special-cased to ascending, as Karmada does (its hash would be odd).
 */
export function prefersDescendingNames(uid: string | undefined): boolean {
  if (!uid) return false;
  return (fnv1a32(uid) & 1) === 1;
}
