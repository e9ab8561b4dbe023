// What the trail's addresses and the owner-conflict decisions both read of workloads and autoscalers, on its own so
// that neither imports the other for it.

/** A workload: a resource template with `spec.replicas`. */
export interface WorkloadRef {
  kind: string;
  namespace?: string | undefined;
  name: string;
}

/** An autoscaler as stored, of any of the kinds: its spec is read through `scaleTargetOf`. */
export interface AutoscalerLike {
  kind: string;
  metadata: { name: string; namespace?: string | undefined };
  spec?: unknown;
}

/** What an autoscaler's `spec.scaleTargetRef` names, its fields checked (a stored object of any shape may come). */
export function scaleTargetOf(a: AutoscalerLike): { kind?: string; name?: string } | undefined {
  const spec = a.spec;
  const ref = spec !== null && typeof spec === 'object' && 'scaleTargetRef' in spec ? spec.scaleTargetRef : undefined;
  if (ref === null || typeof ref !== 'object') return undefined;
  const { kind, name } = ref as { kind?: unknown; name?: unknown };
  return {
    ...(typeof kind === 'string' ? { kind } : {}),
    ...(typeof name === 'string' ? { name } : {}),
  };
}
