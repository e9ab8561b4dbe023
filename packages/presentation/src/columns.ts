import type { StoredLike } from '@flotilla/client';

/** Extra `get` columns per kind, like a CRD's additionalPrinterColumns (`wide` adds the wide ones). */
export interface Column {
  header: string;
  wide?: boolean;
  value: (o: StoredLike) => string;
}

type Json = Record<string, unknown>;
const at = (o: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Json)[k] : undefined), o);
const str = (v: unknown) => (v === undefined || v === null || v === '' ? '<none>' : String(v));
const condition = (o: StoredLike, type: string) =>
  ((at(o, 'status.conditions') as Array<{ type: string; status: string }> | undefined) ?? []).find(
    (c) => c.type === type,
  )?.status ?? 'Unknown';
const targets = (o: StoredLike) =>
  ((at(o, 'spec.clusters') as Array<{ name: string; replicas?: number }> | undefined) ?? [])
    .map((c) => (c.replicas === undefined ? c.name : `${c.name}:${c.replicas}`))
    .join(',') || '<none>';

export const COLUMNS: Record<string, Column[]> = {
  Cluster: [
    { header: 'VERSION', value: (o) => str(at(o, 'status.kubernetesVersion')) },
    { header: 'MODE', value: (o) => str(at(o, 'spec.syncMode') ?? 'Push') },
    { header: 'READY', value: (o) => condition(o, 'Ready') },
    { header: 'SIMULATED', wide: true, value: (o) => (at(o, 'spec.simulation') ? 'true' : 'false') },
  ],
  ResourceBinding: [
    { header: 'SCHEDULED', value: (o) => condition(o, 'Scheduled') },
    { header: 'CLUSTERS', value: targets },
    { header: 'AFFINITY', wide: true, value: (o) => str(at(o, 'status.schedulerObservingAffinityName')) },
    { header: 'PODSSCHEDULED', wide: true, value: (o) => condition(o, 'PodsScheduled') },
  ],
  ClusterResourceBinding: [
    { header: 'SCHEDULED', value: (o) => condition(o, 'Scheduled') },
    { header: 'CLUSTERS', value: targets },
    { header: 'PODSSCHEDULED', wide: true, value: (o) => condition(o, 'PodsScheduled') },
  ],
  CronFederatedHPA: [
    { header: 'REFERENCE-KIND', value: (o) => str(at(o, 'spec.scaleTargetRef.kind')) },
    { header: 'REFERENCE-NAME', value: (o) => str(at(o, 'spec.scaleTargetRef.name')) },
  ],
  FederatedHPA: [
    { header: 'REFERENCE-KIND', value: (o) => str(at(o, 'spec.scaleTargetRef.kind')) },
    { header: 'REFERENCE-NAME', value: (o) => str(at(o, 'spec.scaleTargetRef.name')) },
    { header: 'MINPODS', value: (o) => str(at(o, 'spec.minReplicas')) },
    { header: 'MAXPODS', value: (o) => str(at(o, 'spec.maxReplicas')) },
    // Karmada's printer column: the replicas the FederatedHPA last saw across its member clusters.
    { header: 'REPLICAS', value: (o) => str(at(o, 'status.currentReplicas')) },
  ],
  // Crane's printer columns; REPLICAS is the replicas the EffectiveHPA last asked for.
  EffectiveHorizontalPodAutoscaler: [
    { header: 'STRATEGY', value: (o) => str(at(o, 'spec.scaleStrategy')) },
    { header: 'MINPODS', value: (o) => str(at(o, 'spec.minReplicas')) },
    { header: 'MAXPODS', value: (o) => str(at(o, 'spec.maxReplicas')) },
    { header: 'SPECIFICPODS', value: (o) => str(at(o, 'spec.specificReplicas')) },
    { header: 'REPLICAS', value: (o) => str(at(o, 'status.expectReplicas')) },
  ],
  Deployment: [{ header: 'REPLICAS', value: (o) => str(at(o, 'spec.replicas')) }],
  StatefulSet: [{ header: 'REPLICAS', value: (o) => str(at(o, 'spec.replicas')) }],
};
