import { eventTypeOf, type CloudEvent } from '@flotilla/bus';

/** Folds one domain event into an object's status. Pure: the same events in the same order give the same status. */
export type Reducer = (status: Status | undefined, event: CloudEvent) => Status;
export type Status = Record<string, unknown>;

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
}

/**
 * What every domain event may carry for the status writer (see docs/design/events.md):
 * `statusPatch` replaces top-level status fields, except `conditions`, which merge by type with Kubernetes
 * semantics (lastTransitionTime moves only when the condition's status changes, taken from the event's time).
 * A field set to null is removed, as in a JSON merge patch.
 */
export interface StatusData {
  statusPatch?: Status;
  kubeEvent?: { type: 'Normal' | 'Warning'; reason: string; message: string };
}

export function mergeConditions(current: Condition[] | undefined, updates: Condition[], at: string): Condition[] {
  const out = [...(current ?? [])];
  for (const u of updates) {
    const i = out.findIndex((c) => c.type === u.type);
    const prev = i >= 0 ? out[i] : undefined;
    const lastTransitionTime = prev && prev.status === u.status ? prev.lastTransitionTime : u.lastTransitionTime ?? at;
    const next = { ...u, lastTransitionTime };
    if (i >= 0) out[i] = next;
    else out.push(next);
  }
  return out;
}

/** The reducer for every event without a dedicated one: apply `data.statusPatch`. */
export const patchReducer: Reducer = (status, event) => {
  const patch = (event.data as StatusData | undefined)?.statusPatch;
  if (!patch) return status ?? {};
  const { conditions, ...fields } = patch as Status & { conditions?: Condition[] };
  const next: Status = { ...(status ?? {}), ...fields };
  for (const [k, v] of Object.entries(fields)) if (v === null) delete next[k];
  if (conditions) next.conditions = mergeConditions((status?.conditions as Condition[] | undefined) ?? undefined, conditions, event.time);
  return next;
};

/**
 * `WorkloadStatusReported` (from member-agents): one entry of Karmada's `status.aggregatedStatus` per member
 * cluster, kept sorted by cluster name.
 */
export const workloadStatusReducer: Reducer = (status, event) => {
  const d = event.data as { clusterName: string; applied: boolean; health?: string; status?: unknown; appliedMessage?: string; removed?: boolean };
  const items = ((status?.aggregatedStatus as Array<{ clusterName: string }> | undefined) ?? []).filter((i) => i.clusterName !== d.clusterName);
  if (!d.removed) {
    items.push({
      clusterName: d.clusterName,
      applied: d.applied,
      ...(d.health ? { health: d.health } : {}),
      ...(d.appliedMessage ? { appliedMessage: d.appliedMessage } : {}),
      ...(d.status !== undefined ? { status: d.status } : {}),
    } as { clusterName: string });
  }
  items.sort((a, b) => a.clusterName.localeCompare(b.clusterName));
  return patchReducer({ ...(status ?? {}), aggregatedStatus: items }, event);
};

export class ReducerRegistry {
  private readonly byType = new Map<string, Reducer>();
  constructor(private readonly fallback: Reducer = patchReducer) {}
  register(type: string, r: Reducer): this {
    this.byType.set(type, r);
    return this;
  }
  fold(status: Status | undefined, event: CloudEvent): Status {
    return (this.byType.get(eventTypeOf(event)) ?? this.fallback)(status, event);
  }
}
