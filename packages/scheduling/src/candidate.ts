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
}

/** Tier capacity: free capacity plus what the workload already runs there. */
export function tierCapacity(c: Candidate): number {
  return c.free + c.own;
}

/**
 * Karmada's candidate order: score descending, tier capacity descending, name ascending (a total
 * order, so deterministic). Overflow tiers are not modelled, so the tier key is always 0.
 */
export function compareCandidates(a: Candidate, b: Candidate): number {
  if (a.score !== b.score) return b.score - a.score;
  const ta = tierCapacity(a);
  const tb = tierCapacity(b);
  if (ta !== tb) return tb - ta;
  return compareNames(a.name, b.name);
}
