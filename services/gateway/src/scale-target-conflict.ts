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
