import { formatQuantity, parseQuantity, QuantityError, type ResourceList } from '@flotilla/api';
import { SimulationSpecError } from './sim/errors.js';

/**
 * The three resources the simulator accounts for, in integer units so that sums never drift:
 * cpu in millicores (the unit Karmada's estimator divides in), memory in bytes, pods as a count.
 */
export interface Resources {
  cpuMilli: number;
  memoryBytes: number;
  pods: number;
}

/** A Kubernetes ResourceList as the simulation writes it into `status.resourceSummary`: quantities as strings. */
export type FormattedResourceList = Record<keyof ResourceList, string>;

export const ZERO: Resources = Object.freeze({ cpuMilli: 0, memoryBytes: 0, pods: 0 });

export function addResources(a: Resources, b: Resources): Resources {
  return { cpuMilli: a.cpuMilli + b.cpuMilli, memoryBytes: a.memoryBytes + b.memoryBytes, pods: a.pods + b.pods };
}

function quantity(value: unknown, path: string): number {
  if (typeof value !== 'string' && typeof value !== 'number')
    throw new SimulationSpecError(
      path,
      `invalid quantity ${JSON.stringify(value)}: expected a string such as 500m, 2 or 32Gi`,
    );
  try {
    const n = parseQuantity(value);
    if (n < 0) throw new SimulationSpecError(path, `invalid quantity ${JSON.stringify(value)}: must not be negative`);
    return n;
  } catch (err) {
    if (err instanceof QuantityError)
      throw new SimulationSpecError(
        path,
        `invalid quantity ${JSON.stringify(value)}: expected a number with an optional suffix such as 500m, 2 or 32Gi`,
      );
    throw err;
  }
}

/** Kubernetes rounds a quantity up to its smallest unit: 0.1m of cpu is 1m, half a byte is a byte. */
export function cpuMilli(value: unknown, path: string): number {
  return Math.ceil(quantity(value, path) * 1000 - 1e-9);
}

export function bytes(value: unknown, path: string): number {
  return Math.ceil(quantity(value, path) - 1e-9);
}

export function count(value: unknown, path: string): number {
  const n = quantity(value, path);
  if (!Number.isInteger(n))
    throw new SimulationSpecError(path, `invalid count ${JSON.stringify(value)}: expected a whole number`);
  return n;
}

/** Reads `{cpu, memory, pods}` (each optional, absent = 0) from a resource list. */
export function resourcesFrom(list: unknown, path: string): Resources {
  if (list === undefined || list === null) return { ...ZERO };
  if (typeof list !== 'object' || Array.isArray(list))
    throw new SimulationSpecError(path, 'expected a map of resource name to quantity');
  const l = list as Record<string, unknown>;
  return {
    cpuMilli: l.cpu === undefined ? 0 : cpuMilli(l.cpu, `${path}.cpu`),
    memoryBytes: l.memory === undefined ? 0 : bytes(l.memory, `${path}.memory`),
    pods: l.pods === undefined ? 0 : count(l.pods, `${path}.pods`),
  };
}

/** Canonical cpu text, as the API server prints it: whole cores plain ("3"), otherwise millicores ("2500m"). */
export function formatCpu(milli: number): string {
  return formatQuantity(milli / 1000, 'DecimalSI');
}

/**
 * Canonical memory text. The simulator keeps bytes, not the format they were written in, so it prints the shorter
 * of the binary and the decimal canonical forms ("32Gi", "1536Mi", "128M"; binary on a tie): never a raw byte count
 * where a suffix fits.
 */
export function formatMemory(b: number): string {
  const binary = formatQuantity(b, 'BinarySI');
  const decimal = formatQuantity(b, 'DecimalSI');
  return decimal.length < binary.length ? decimal : binary;
}

export function toResourceList(r: Resources): FormattedResourceList {
  return { cpu: formatCpu(r.cpuMilli), memory: formatMemory(r.memoryBytes), pods: String(r.pods) };
}
