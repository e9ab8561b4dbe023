import { matchesLabelSelector, matchesRequirement } from '@flotilla/api/core';
import type { Cluster, ClusterAffinity, LabelSelectorRequirement } from './types.js';

/**
 * Karmada's ClusterMatches: `exclude` is checked first and always wins, then labelSelector, then
 * fieldSelector (provider / region / zone), then clusterNames (empty = any cluster).
 */
export function clusterMatchesAffinity(cluster: Cluster, affinity: ClusterAffinity | undefined): boolean {
  if (!affinity) return true;
  const name = cluster.metadata.name ?? '';
  if (affinity.exclude?.includes(name)) return false;
  if (affinity.labelSelector && !matchesLabelSelector(affinity.labelSelector, cluster.metadata.labels)) return false;
  const fe = affinity.fieldSelector?.matchExpressions;
  if (fe && fe.length > 0) {
    for (const r of fe) if (!matchesField(r, cluster)) return false;
  }
  const names = affinity.clusterNames;
  return !names || names.length === 0 || names.includes(name);
}

/** Zones of a cluster: `spec.zones`, else the deprecated single `spec.zone`. */
export function clusterZones(cluster: Cluster): string[] {
  const s = cluster.spec;
  if (s?.zones && s.zones.length > 0) return s.zones;
  return s?.zone ? [s.zone] : [];
}

function matchesField(r: LabelSelectorRequirement, cluster: Cluster): boolean {
  if (r.key === 'zone') return matchesZones(r, clusterZones(cluster));
  if (r.key !== 'provider' && r.key !== 'region') return false;
  // An unset provider/region is an absent field, so In fails and NotIn passes, as with labels.
  const fields: Record<string, string> = {};
  const v = r.key === 'provider' ? cluster.spec?.provider : cluster.spec?.region;
  if (v) fields[r.key] = v;
  return matchesRequirement(r, fields);
}

// Upstream semantics for a cluster with several zones: In needs ALL of them listed, NotIn needs none.
function matchesZones(r: LabelSelectorRequirement, zones: string[]): boolean {
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
      return zones.length > 0 && zones.every((z) => values.includes(z));
    case 'NotIn':
      return zones.every((z) => !values.includes(z));
    case 'Exists':
      return zones.length > 0;
    case 'DoesNotExist':
      return zones.length === 0;
    default:
      return false;
  }
}
