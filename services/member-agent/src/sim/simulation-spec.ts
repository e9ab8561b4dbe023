import type { ClusterSimulation, ForeignHorizontalPodAutoscaler } from '@flotilla/api';
import { SimulationSpecError } from './errors.js';
import { parseLoadModel, type LoadModel } from './load.js';
import { resourcesFrom, type Resources } from '../resources.js';

/** The workload template a load applies to (the binding's `spec.resource`). */
export interface WorkloadRef {
  kind: string;
  namespace: string;
  name: string;
}

export interface WorkloadLoad {
  workload: WorkloadRef;
  model: LoadModel;
}

/**
 * Flotilla's extension of Karmada's Cluster, `spec.simulation`: a Cluster that carries it is simulated by the
 * member-agent's `sim` driver. `allocatable` is the capacity its pods fit into; `failed` makes it unreachable.
 */
export interface SimulationSpec extends Required<Pick<ClusterSimulation, 'kubernetesVersion' | 'failed'>> {
  /** `allocatable` parsed. */
  allocatable: Resources;
  /** `loads` checked, their durations read. */
  loads: WorkloadLoad[];
  /** `foreignHorizontalPodAutoscalers` checked, with their namespace defaulted: reported, not run. */
  foreignHpas: ForeignHorizontalPodAutoscaler[];
}

export const DEFAULT_KUBERNETES_VERSION = 'v1.31.0';

const KNOWN = new Set(['allocatable', 'kubernetesVersion', 'failed', 'loads', 'foreignHorizontalPodAutoscalers']);

/** Reads `foreignHorizontalPodAutoscalers` (admission checked its shape; a stored object may predate it). */
function foreignHpas(raw: unknown, path: string): ForeignHorizontalPodAutoscaler[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw new SimulationSpecError(path, 'expected a list');
  return raw.map((h, i) => {
    const p = `${path}[${i}]`;
    const e = (h ?? {}) as Partial<ForeignHorizontalPodAutoscaler>;
    if (typeof e.name !== 'string' || e.name === '') throw new SimulationSpecError(`${p}.name`, 'required');
    const target = workloadRef(e.scaleTargetRef, `${p}.scaleTargetRef`);
    return {
      namespace: e.namespace || 'default',
      name: e.name,
      scaleTargetRef: {
        ...(e.scaleTargetRef?.apiVersion ? { apiVersion: e.scaleTargetRef.apiVersion } : {}),
        kind: target.kind,
        name: target.name,
      },
      ...(typeof e.minReplicas === 'number' ? { minReplicas: e.minReplicas } : {}),
      ...(typeof e.maxReplicas === 'number' ? { maxReplicas: e.maxReplicas } : {}),
    };
  });
}

function workloadRef(raw: unknown, path: string): WorkloadRef {
  if (typeof raw !== 'object' || raw === null) throw new SimulationSpecError(path, 'expected {kind, namespace, name}');
  const w = raw as Record<string, unknown>;
  for (const f of ['kind', 'name'] as const) {
    if (typeof w[f] !== 'string' || w[f] === '') throw new SimulationSpecError(`${path}.${f}`, 'required');
  }
  if (w.namespace !== undefined && typeof w.namespace !== 'string')
    throw new SimulationSpecError(`${path}.namespace`, 'expected a string');
  return {
    kind: w.kind as string,
    namespace: (w.namespace as string | undefined) || 'default',
    name: w.name as string,
  };
}

/** Validates and reads `spec.simulation`; every error names the field path. */
export function parseSimulation(raw: unknown, path = 'spec.simulation'): SimulationSpec {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new SimulationSpecError(path, 'expected an object');
  const s = raw as Record<string, unknown>;
  for (const k of Object.keys(s)) if (!KNOWN.has(k)) throw new SimulationSpecError(`${path}.${k}`, 'unknown field');
  if (s.allocatable === undefined) throw new SimulationSpecError(`${path}.allocatable`, 'required');
  const allocatable = resourcesFrom(s.allocatable, `${path}.allocatable`);
  if (s.kubernetesVersion !== undefined && typeof s.kubernetesVersion !== 'string')
    throw new SimulationSpecError(`${path}.kubernetesVersion`, 'expected a string');
  if (s.failed !== undefined && typeof s.failed !== 'boolean')
    throw new SimulationSpecError(`${path}.failed`, 'expected true or false');
  if (s.loads !== undefined && !Array.isArray(s.loads))
    throw new SimulationSpecError(`${path}.loads`, 'expected a list');
  const loads = ((s.loads as unknown[] | undefined) ?? []).map((l, i) => {
    const p = `${path}.loads[${i}]`;
    if (typeof l !== 'object' || l === null) throw new SimulationSpecError(p, 'expected {workload, model}');
    const entry = l as Record<string, unknown>;
    return { workload: workloadRef(entry.workload, `${p}.workload`), model: parseLoadModel(entry.model, `${p}.model`) };
  });
  return {
    allocatable,
    kubernetesVersion: (s.kubernetesVersion as string | undefined) ?? DEFAULT_KUBERNETES_VERSION,
    failed: s.failed === true,
    loads,
    foreignHpas: foreignHpas(s.foreignHorizontalPodAutoscalers, `${path}.foreignHorizontalPodAutoscalers`),
  };
}
