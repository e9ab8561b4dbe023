import { ScheduleAttemptError } from './errors.js';
import type { Placement, ReplicaSchedulingStrategy } from './types.js';

export type Strategy = 'Duplicated' | 'StaticWeight' | 'DynamicWeight' | 'Aggregated';

/**
 * Which division applies, as Karmada's newAssignState decides it. Absent replicaScheduling →
 * Duplicated. The admission defaults are applied here too (a present replicaScheduling without a
 * type is Divided; Divided without a preference is Weighted), so objects that never went through
 * admission — what-if files — schedule as they would after it.
 */
export function resolveStrategy(rs: ReplicaSchedulingStrategy | undefined): Strategy {
  if (!rs) return 'Duplicated';
  const type = rs.replicaSchedulingType || 'Divided';
  if (type === 'Duplicated') return 'Duplicated';
  if (type !== 'Divided') throw unsupported();
  const pref = rs.replicaDivisionPreference || 'Weighted';
  if (pref === 'Aggregated') return 'Aggregated';
  if (pref !== 'Weighted') throw unsupported();
  if (rs.weightPreference?.dynamicWeight) return 'DynamicWeight';
  return 'StaticWeight';
}

/** Spread constraints are ignored for static weights (or Weighted without any weightPreference). */
export function ignoresSpreadConstraints(placement: Placement): boolean {
  const rs = placement.replicaScheduling;
  if (!rs) return false;
  if ((rs.replicaSchedulingType || 'Divided') !== 'Divided') return false;
  if ((rs.replicaDivisionPreference || 'Weighted') !== 'Weighted') return false;
  const wp = rs.weightPreference;
  return !wp || ((wp.staticWeightList?.length ?? 0) > 0 && !wp.dynamicWeight);
}

function unsupported(): ScheduleAttemptError {
  return new ScheduleAttemptError('SchedulerError', 'unsupported replica scheduling strategy');
}
