/**
 * Which replica of a service owns a key, when every replica works at once (the affinity scheduler's active mode):
 * rendezvous (highest random weight) hashing over the live replicas' names. Every replica computes the same answer
 * from the same member list, without talking to the others, and a replica that joins or leaves moves only the keys it
 * gains or loses (about 1/n of them), so the others keep their queues and caches warm.
 */

/** FNV-1a, 32 bits: the hash NATS's own `partition()` subject mapping uses; cheap and well spread for short keys. */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  // A final avalanche (murmur3's fmix32): FNV alone leaves the weights of keys differing in their last character close.
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b) >>> 0;
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35) >>> 0;
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/** The member that owns `key`: the one whose weight for it is highest (ties go to the smaller name). */
export function ownerOf(key: string, members: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestWeight = -1;
  for (const member of members) {
    const weight = fnv1a32(`${member}\u0000${key}`);
    if (weight > bestWeight || (weight === bestWeight && best !== undefined && member < best)) {
      best = member;
      bestWeight = weight;
    }
  }
  return best;
}

/** Whether `self` owns `key` among `members` (self counts as a member even before the list shows it). */
export function ownsKey(key: string, self: string, members: readonly string[]): boolean {
  return ownerOf(key, members.includes(self) ? members : [...members, self]) === self;
}

/** The members that joined and left between two lists (each sorted or not). */
export function membershipChange(
  before: readonly string[],
  after: readonly string[],
): { joined: string[]; left: string[] } {
  const was = new Set(before);
  const is = new Set(after);
  return { joined: after.filter((m) => !was.has(m)).sort(), left: before.filter((m) => !is.has(m)).sort() };
}
