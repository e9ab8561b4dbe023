import type { FieldError } from '@flotilla/api';

/** The kinds that scale a workload by its replicas: one of them per workload (Karmada's and Crane's webhooks). */
export const AUTOSCALER_KINDS = ['FederatedHPA', 'EffectiveHorizontalPodAutoscaler'] as const;

interface Autoscaler {
  kind: string;
  metadata: { name?: string | undefined; namespace?: string | undefined };
  spec?: unknown;
}
type Ref = { apiVersion?: string; kind?: string; name?: string } | undefined;
const targetOf = (o: Autoscaler): Ref => (o.spec as { scaleTargetRef?: Ref } | undefined)?.scaleTargetRef;

const group = (apiVersion: string | undefined) => (apiVersion?.includes('/') ? apiVersion.split('/')[0] : '');

/**
 * Two autoscalers on one workload would fight over its replicas, so admission refuses the second: a FederatedHPA
 * or an EffectiveHPA whose scaleTargetRef names the workload (group, kind, name) another one in its namespace
 * already scales. `others` are the stored autoscalers of the namespace; the object itself (same kind and name) is
 * not a conflict.
 */
export function scaleTargetConflict(object: Autoscaler, others: readonly Autoscaler[]): FieldError | undefined {
  const ref = targetOf(object);
  if (!ref?.kind || !ref.name) return undefined;
  const other = others.find((o) => {
    if (o.kind === object.kind && o.metadata.name === object.metadata.name) return false;
    const r = targetOf(o);
    return (
      r !== undefined && r.kind === ref.kind && r.name === ref.name && group(r.apiVersion) === group(ref.apiVersion)
    );
  });
  if (!other) return undefined;
  return {
    field: 'spec.scaleTargetRef',
    message:
      `Invalid value: "${ref.kind}/${ref.name}": already scaled by ${other.kind} ` +
      `${other.metadata.namespace ?? 'default'}/${other.metadata.name}; a workload takes one autoscaler`,
  };
}

/** The autoscalers that write a workload's `spec.replicas` themselves (an EffectiveHPA in Preview only reports). */
export function replicaWriters(
  workload: { kind: string; metadata: { name?: string | undefined } },
  autoscalers: readonly Autoscaler[],
): Autoscaler[] {
  return autoscalers.filter((a) => {
    if (!(AUTOSCALER_KINDS as readonly string[]).includes(a.kind)) return false;
    const r = targetOf(a);
    if (r?.kind !== workload.kind || r.name !== workload.metadata.name) return false;
    return (a.spec as { scaleStrategy?: string } | undefined)?.scaleStrategy !== 'Preview';
  });
}

/** What an apply of a workload does to its replicas. */
export interface ReplicasOfApply {
  /** The object to store: the applied one, with the autoscaler's count kept when one scales the workload. */
  object: { spec?: unknown };
  fromReplicas: number | null;
  requestedReplicas: number | undefined;
  toReplicas: number | undefined;
  /** `FederatedHPA default/web` when its count was kept instead of the requested one. */
  retainedBy?: string;
  /** That autoscaler, to record the conflict on it too. */
  retainedByRef?: { kind: string; namespace: string | undefined; name: string | undefined };
}

const replicasOf = (o: { spec?: unknown } | undefined): number | undefined => {
  const r = (o?.spec as { replicas?: unknown } | undefined)?.replicas;
  return typeof r === 'number' ? r : undefined;
};

/**
 * Karmada's retain for an autoscaled workload: an apply that would change the replicas of a workload an autoscaler
 * scales keeps the stored count, since the autoscaler owns it (it would scale it back and the two would fight).
 * A new workload takes what was applied; so does one no autoscaler writes.
 */
export function retainAutoscaledReplicas<T extends { spec?: unknown }>(
  applied: T,
  stored: { spec?: unknown } | undefined,
  writers: readonly Autoscaler[],
): ReplicasOfApply & { object: T } {
  const requested = replicasOf(applied);
  const before = replicasOf(stored);
  const base = { fromReplicas: before ?? null, requestedReplicas: requested };
  const writer = writers[0];
  if (!writer || before === undefined || requested === undefined || requested === before)
    return { ...base, object: applied, toReplicas: requested };
  return {
    ...base,
    object: { ...applied, spec: { ...(applied.spec as object), replicas: before } },
    toReplicas: before,
    retainedBy: `${writer.kind} ${writer.metadata.namespace ?? 'default'}/${writer.metadata.name}`,
    retainedByRef: { kind: writer.kind, namespace: writer.metadata.namespace, name: writer.metadata.name },
  };
}

const CRON_KIND = 'CronFederatedHPA';
const FHPA_API_VERSION = 'autoscaling.karmada.io/v1alpha1';

function aimInstead(writer: Autoscaler): string {
  return writer.kind === 'FederatedHPA'
    ? `aim it at the FederatedHPA instead (scaleTargetRef: {apiVersion: ${FHPA_API_VERSION}, kind: FederatedHPA, name: ${writer.metadata.name}}), whose min/max it may set`
    : `put the window in the EffectiveHPA's spec.crons instead`;
}

/**
 * Two writers of one replica field, caught at admission (Karmada's docs: a CronFederatedHPA of an autoscaled
 * workload aims at its FederatedHPA): a CronFederatedHPA aimed at a workload a FederatedHPA or EffectiveHPA scales,
 * or such an autoscaler aimed at a workload a CronFederatedHPA already scales. `others` are the stored autoscalers
 * and CronFederatedHPAs of the namespace.
 */
export function replicaOwnerConflict(object: Autoscaler, others: readonly Autoscaler[]): FieldError | undefined {
  const ref = targetOf(object);
  if (!ref?.kind || !ref.name) return undefined;
  const workload = { kind: ref.kind, metadata: { name: ref.name } };
  const ns = (o: Autoscaler) => `${o.metadata.namespace ?? 'default'}/${o.metadata.name}`;
  if (object.kind === CRON_KIND) {
    if (ref.kind === 'FederatedHPA') return undefined;
    const writer = replicaWriters(workload, others)[0];
    if (!writer) return undefined;
    return {
      field: 'spec.scaleTargetRef',
      message:
        `Invalid value: "${ref.kind}/${ref.name}": its spec.replicas is written by ${writer.kind} ${ns(writer)}; ` +
        `a CronFederatedHPA setting it too would fight it: ${aimInstead(writer)}`,
    };
  }
  if (!(AUTOSCALER_KINDS as readonly string[]).includes(object.kind)) return undefined;
  if ((object.spec as { scaleStrategy?: string } | undefined)?.scaleStrategy === 'Preview') return undefined;
  const cron = others.find((o) => {
    const r = targetOf(o);
    return o.kind === CRON_KIND && r?.kind === ref.kind && r?.name === ref.name;
  });
  if (!cron) return undefined;
  return {
    field: 'spec.scaleTargetRef',
    message:
      `Invalid value: "${ref.kind}/${ref.name}": its spec.replicas is already set by ${CRON_KIND} ${ns(cron)}; ` +
      `the two would fight over it: aim that CronFederatedHPA at this ${object.kind === 'FederatedHPA' ? 'FederatedHPA (its min/max)' : "EffectiveHPA's spec.crons"} first`,
  };
}
