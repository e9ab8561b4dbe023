import { formatQuantity, isPlainObject, parseQuantity } from '@flotilla/api/core';
import { SchedulingInputError } from './errors.js';
import type { ResourceList } from './types.js';

/**
 * The per-replica request of a pod spec, as Karmada writes a binding's
 * `replicaRequirements.resourceRequest` (`pkg/util/helper/binding.go : GenerateReplicaRequirements`,
 * which calls `pkg/util/resource.go : Resource.AddPodTemplateRequest`, `AddPodRequest` and
 * `ResourceList`):
 *
 * 1. in every container and init container, a resource with a limit but no request requests its
 *    limit (a member cluster's API server defaults the pods' requests so, and they will take that);
 * 2. the containers' requests are added up;
 * 3. per resource, each init container's request replaces that sum when larger — restartable
 *    (`restartPolicy: Always`, "sidecar") init containers included: Karmada does not tell them
 *    apart (Kubernetes' own scheduler adds them to the sum), and placements must match Karmada's;
 * 4. `spec.overhead` is added on top;
 * 5. only cpu, memory, ephemeral-storage, pods and the names Kubernetes calls scalar resources
 *    (extended `vendor.example/name`, `hugepages-*`, `*kubernetes.io/*`, `attachable-volumes-*`)
 *    are counted; any other name is dropped;
 * 6. every quantity is rounded up on its own before it is added (millicores for cpu, whole units
 *    otherwise), as `Quantity.MilliValue()` / `Value()` do;
 * 7. resources that total 0 are left out; nothing left → undefined (no replica requirements).
 *
 * Each total prints as Karmada's `Resource.ResourceList` builds it: cpu and counts decimal ("1500m", "2"), memory,
 * ephemeral-storage and hugepages binary ("1088Mi"), in Kubernetes' canonical form.
 * Throws SchedulingInputError naming the field (under `path`) of an unparsable or negative quantity.
 */
export function podSpecRequests(podSpec: unknown, path = 'spec.template.spec'): ResourceList | undefined {
  if (!isPlainObject(podSpec)) return undefined;
  const total = new Map<string, number>();
  for (const [i, c] of list(podSpec.containers)) {
    for (const [name, v] of containerRequests(c, `${path}.containers[${i}]`))
      total.set(name, (total.get(name) ?? 0) + v);
  }
  for (const [i, c] of list(podSpec.initContainers)) {
    for (const [name, v] of containerRequests(c, `${path}.initContainers[${i}]`))
      if (v > (total.get(name) ?? 0)) total.set(name, v);
  }
  for (const [name, v] of quantities(podSpec.overhead, `${path}.overhead`)) total.set(name, (total.get(name) ?? 0) + v);

  const out: ResourceList = {};
  let any = false;
  for (const [name, v] of total) {
    if (v <= 0) continue;
    out[name] = formatQuantity(name === 'cpu' ? v / 1000 : v, isBinaryResource(name) ? 'BinarySI' : 'DecimalSI');
    any = true;
  }
  return any ? out : undefined;
}

function containerRequests(container: unknown, path: string): Map<string, number> {
  const resources = isPlainObject(container) && isPlainObject(container.resources) ? container.resources : {};
  const requests = quantities(resources.requests, `${path}.resources.requests`);
  for (const [name, v] of quantities(resources.limits, `${path}.resources.limits`))
    if (!requests.has(name)) requests.set(name, v);
  return requests;
}

/** The counted resources of one resource list, each in the integer unit it is added in. */
function quantities(resourceList: unknown, path: string): Map<string, number> {
  const out = new Map<string, number>();
  if (!isPlainObject(resourceList)) return out;
  for (const [name, q] of Object.entries(resourceList)) {
    const field = `${path}.${name}`;
    // A quantity that does not parse fails Karmada's conversion to a typed object, counted or not.
    if (typeof q !== 'string' && typeof q !== 'number')
      throw new SchedulingInputError(field, `invalid quantity ${JSON.stringify(q)}`);
    let v: number;
    try {
      v = parseQuantity(q);
    } catch (e) {
      throw new SchedulingInputError(field, (e as Error).message);
    }
    if (v < 0) throw new SchedulingInputError(field, `must not be negative, got ${JSON.stringify(q)}`);
    if (isCountedResource(name)) out.set(name, roundUp(name === 'cpu' ? v * 1000 : v));
  }
  return out;
}

const NATIVE = new Set(['cpu', 'memory', 'ephemeral-storage', 'pods']);

/** The resources Karmada's `Resource.ResourceList` builds as BinarySI quantities; the rest are DecimalSI. */
function isBinaryResource(name: string): boolean {
  return name === 'memory' || name === 'ephemeral-storage' || name.startsWith('hugepages-');
}

/** Karmada's `Resource.Add` switch: the four native resources, then `lifted.IsScalarResourceName`. */
function isCountedResource(name: string): boolean {
  if (NATIVE.has(name)) return true;
  return (
    isExtendedResourceName(name) ||
    name.startsWith('hugepages-') ||
    name.includes('kubernetes.io/') ||
    name.startsWith('attachable-volumes-')
  );
}

/** Kubernetes' IsExtendedResourceName: outside the kubernetes.io namespace and a qualified name once prefixed "requests.". */
function isExtendedResourceName(name: string): boolean {
  if (!name.includes('/') || name.includes('kubernetes.io/') || name.startsWith('requests.')) return false;
  return isQualifiedName(`requests.${name}`);
}

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

function isQualifiedName(value: string): boolean {
  const parts = value.split('/');
  if (parts.length > 2) return false;
  const name = parts.length === 2 ? parts[1]! : parts[0]!;
  if (parts.length === 2) {
    const prefix = parts[0]!;
    if (prefix.length === 0 || prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix)) return false;
  }
  return name.length > 0 && name.length <= 63 && QUALIFIED_NAME.test(name);
}

// Quantities arrive as binary floats ("0.3" cores is 300.00000000000006 millicores): a value within
// float noise of an integer is that integer, anything else rounds up as Kubernetes does.
function roundUp(x: number): number {
  const r = Math.round(x);
  return Math.abs(x - r) <= Math.abs(x) * 1e-12 ? r : Math.ceil(x);
}

function list(v: unknown): Array<[number, unknown]> {
  return Array.isArray(v) ? v.map((x, i) => [i, x] as [number, unknown]) : [];
}
