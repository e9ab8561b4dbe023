import { compareNames } from './webster.js';
import type { Cluster } from './types.js';

/** A cluster that passed the filters, with what the division needs to know about it. */
export interface Candidate {
  name: string;
  cluster: Cluster;
  /** Free capacity: how many MORE replicas fit (the workload's running pods already count as used). */
  free: number;
  /** Replicas this workload has there in the previous assignment. */
  own: number;
  /** 100 when the cluster is in the previous assignment (ClusterLocality), else 0. */
  score: number;
  /** Overflow tier: 0 for the term's own clusters, i+1 for its i-th overflowAffinities entry; absent = 0. */
  tier?: number;
}

/** Tier capacity: free capacity plus what the workload already runs there. */
export function tierCapacity(c: Candidate): number {
  return c.free + c.own;
}

/**
 * Karmada's candidate order: overflow tier ascending, score descending, tier capacity descending, name ascending (a
 * total order, so deterministic).
 */
export function compareCandidates(a: Candidate, b: Candidate): number {
  const ka = a.tier ?? 0;
  const kb = b.tier ?? 0;
  if (ka !== kb) return ka - kb;
  if (a.score !== b.score) return b.score - a.score;
  const ta = tierCapacity(a);
  const tb = tierCapacity(b);
  if (ta !== tb) return tb - ta;
  return compareNames(a.name, b.name);
}
