import { z } from 'zod';
import { int32 } from './kinds/common.js';
import { toYaml } from './manifests.js';
import { admissionOf, listKinds } from './registry.js';
import type { KindInfo } from './registry-types.js';

/**
 * CustomResourceDefinitions generated from the kinds' zod schemas, so that what the API server stores and what
 * Flotilla admits cannot drift apart (deploy/crds/ is this module's output; a test compares them).
 *
 * The schemas are structural (every node typed, as apiextensions.k8s.io/v1 requires) and carry the structure, the
 * required fields and the enums: the API server prunes and reports unknown fields, missing fields and unsupported
 * values in the same words Flotilla's admission uses. Value rules (ranges, lengths, cron expressions, time zones,
 * cross-field checks) are deliberately left out: the validating webhook runs Flotilla's admission on every create
 * and update, so `kubectl apply` gets exactly the field-path message `flotilla apply` gets, not a second wording.
 */

/** An OpenAPI v3 schema node, as a CRD's `openAPIV3Schema` holds it. */
export interface OpenApiSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: 'int32' | 'int64';
  description?: string;
  properties?: Record<string, OpenApiSchema>;
  required?: string[];
  additionalProperties?: OpenApiSchema;
  items?: OpenApiSchema;
  enum?: (string | number | boolean)[];
  nullable?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: true;
  'x-kubernetes-int-or-string'?: true;
}

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'date';
  jsonPath: string;
  description?: string;
}

/** Thrown when a schema uses a zod construct that has no structural OpenAPI equivalent here. */
export class CrdSchemaError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path || '(root)'}: ${message}`);
    this.name = 'CrdSchemaError';
  }
}

type Def = { type: string; [k: string]: unknown };
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** The check every int32 (and every schema derived from it with .min/.max) carries; it marks the integer. */
const INT32_CHECK = (defOf(int32).checks as unknown[]).at(-1);

function numberSchema(def: Def): OpenApiSchema {
  if (def.check === 'number_format') return { type: 'integer', format: 'int64' };
  if ((def.checks as unknown[] | undefined)?.includes(INT32_CHECK)) return { type: 'integer', format: 'int32' };
  return { type: 'number' };
}

/** Wrappers that change presence, not shape. */
function unwrap(s: z.ZodType): { inner: z.ZodType; optional: boolean; nullable: boolean } {
  let optional = false;
  let nullable = false;
  let cur = s;
  for (;;) {
    const def = defOf(cur);
    if (def.type === 'optional' || def.type === 'default' || def.type === 'prefault') optional = true;
    else if (def.type === 'nullable') nullable = true;
    else if (def.type === 'pipe') {
      cur = def.in as z.ZodType;
      continue;
    } else return { inner: cur, optional, nullable };
    cur = def.innerType as z.ZodType;
  }
}

/**
 * The field's `.describe()` text, on the schema or on any wrapper around it (`int32.min(0).optional().describe(…)`
 * and `int32.describe(…).optional()` read the same): what `kubectl explain` prints for the field.
 */
function descriptionOf(s: z.ZodType): string | undefined {
  let cur = s;
  for (;;) {
    const found = z.globalRegistry.get(cur)?.description;
    if (found) return found;
    const def = defOf(cur);
    if (def.type === 'pipe') cur = def.in as z.ZodType;
    else if (['optional', 'default', 'prefault', 'nullable'].includes(def.type)) cur = def.innerType as z.ZodType;
    else return undefined;
  }
}

const isUnknown = (s: z.ZodType) => ['unknown', 'any'].includes(defOf(unwrap(s).inner).type);

function objectSchema(def: Def, path: string): OpenApiSchema {
  const shape = def.shape as Record<string, z.ZodType>;
  const properties: Record<string, OpenApiSchema> = {};
  const required: string[] = [];
  for (const [key, field] of Object.entries(shape)) {
    properties[key] = toOpenApi(field, joinField(path, key));
    if (!unwrap(field).optional && !isUnknown(field)) required.push(key);
  }
  const out: OpenApiSchema = { type: 'object' };
  if (Object.keys(properties).length) out.properties = properties;
  if (required.length) out.required = required;
  // looseObject: the catch-all keeps whatever else arrives (status written by the system, settings kept as given).
  const catchall = def.catchall as z.ZodType | undefined;
  if (catchall && defOf(catchall).type !== 'never') out['x-kubernetes-preserve-unknown-fields'] = true;
  return out;
}

const joinField = (path: string, key: string) => (path ? `${path}.${key}` : key);

/** The same field in two variants of a union: equal, or two enums of strings (a discriminator) joined. */
function mergeVariants(a: OpenApiSchema, b: OpenApiSchema, path: string): OpenApiSchema {
  if (JSON.stringify(a) === JSON.stringify(b)) return a;
  if (a.type === 'string' && b.type === 'string' && a.enum && b.enum)
    return { ...a, enum: [...new Set([...a.enum, ...b.enum])] };
  throw new CrdSchemaError(path, 'union variants disagree on this field');
}

/** A union of scalars (quantity: string | number; effect: enum | "") or of objects (a discriminated union). */
function unionSchema(def: Def, path: string): OpenApiSchema {
  const all = def.options as z.ZodType[];
  const withoutNull = all.filter((o) => defOf(o).type !== 'null');
  if (withoutNull.length < all.length) {
    const rest =
      withoutNull.length === 1 ? toOpenApi(withoutNull[0]!, path) : unionSchema({ ...def, options: withoutNull }, path);
    return { ...rest, nullable: true };
  }
  const options = all.map((o) => toOpenApi(o, path));
  const types = new Set(options.map((o) => o.type));
  if (types.size === 1 && types.has('object')) {
    // One object with every variant's fields; which combination is valid is admission's to say.
    const properties: Record<string, OpenApiSchema> = {};
    for (const o of options) {
      for (const [k, v] of Object.entries(o.properties ?? {})) {
        properties[k] = properties[k] ? mergeVariants(properties[k], v, joinField(path, k)) : v;
      }
    }
    const required = options.reduce<string[]>(
      (acc, o, i) => (i === 0 ? [...(o.required ?? [])] : acc.filter((r) => o.required?.includes(r))),
      [],
    );
    const out: OpenApiSchema = { type: 'object', properties };
    if (required.length) out.required = required;
    if (options.some((o) => o['x-kubernetes-preserve-unknown-fields']))
      out['x-kubernetes-preserve-unknown-fields'] = true;
    return out;
  }
  if ([...types].every((t) => t === 'string' || t === 'integer' || t === 'number')) {
    if (types.size === 1 && types.has('string')) {
      // Enums and literals together stay an enum; any free string makes it a plain string.
      if (options.every((o) => o.enum)) return { type: 'string', enum: options.flatMap((o) => o.enum ?? []) };
      return { type: 'string' };
    }
    if (types.has('string')) return { 'x-kubernetes-int-or-string': true };
    return { type: 'number' };
  }
  throw new CrdSchemaError(path, `a union of ${[...types].join(', ')} has no structural schema`);
}

/** The structural OpenAPI schema of a zod schema. `path` names the place in errors. */
export function toOpenApi(schema: z.ZodType, path = ''): OpenApiSchema {
  const { inner, nullable } = unwrap(schema);
  const def = defOf(inner);
  let out: OpenApiSchema;
  switch (def.type) {
    case 'string':
      out = { type: 'string' };
      break;
    case 'number':
      out = numberSchema(def);
      break;
    case 'boolean':
      out = { type: 'boolean' };
      break;
    case 'enum':
      out = { type: 'string', enum: Object.values(def.entries as Record<string, string>) };
      break;
    case 'literal': {
      const values = def.values as unknown[];
      const t = typeof values[0];
      if (t !== 'string' && t !== 'number' && t !== 'boolean')
        throw new CrdSchemaError(path, `literal of type ${t} has no structural schema`);
      out = { type: t === 'string' ? 'string' : t === 'number' ? 'number' : 'boolean', enum: values as string[] };
      break;
    }
    case 'object':
      out = objectSchema(def, path);
      break;
    case 'record':
      out = { type: 'object', additionalProperties: toOpenApi(def.valueType as z.ZodType, `${path}[*]`) };
      break;
    case 'array':
      out = { type: 'array', items: toOpenApi(def.element as z.ZodType, `${path}[*]`) };
      break;
    case 'union':
      out = unionSchema(def, path);
      break;
    case 'unknown':
    case 'any':
      // Any JSON value at all (a member cluster's workload status, for instance).
      out = { 'x-kubernetes-preserve-unknown-fields': true };
      break;
    default:
      throw new CrdSchemaError(path, `zod type "${def.type}" has no structural schema`);
  }
  if (nullable) out.nullable = true;
  const description = descriptionOf(schema);
  return description ? { description, ...out } : out;
}

/** How Karmada and Crane present each kind: kubectl's columns, categories and a one-line description. */
interface Presentation {
  description: string;
  categories: string[];
  columns: PrinterColumn[];
  /**
   * Fields the kind's defaulting accepts and rewrites, which the schema itself does not name: their place (`*` is an
   * array's item), their schemas, and the required fields they may stand in for.
   */
  inputAliases?: { at: string[]; properties: Record<string, OpenApiSchema>; standsFor: string[] };
}

const AGE: PrinterColumn = { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' };
const KARMADA = ['karmada-io', 'flotilla'];
const condition = (type: string): string => `.status.conditions[?(@.type=="${type}")].status`;
const policyColumns: PrinterColumn[] = [
  { name: 'CONFLICT-RESOLUTION', type: 'string', jsonPath: '.spec.conflictResolution' },
  { name: 'PRIORITY', type: 'string', jsonPath: '.spec.priority' },
  AGE,
];
const bindingColumns: PrinterColumn[] = [
  { name: 'Scheduled', type: 'string', jsonPath: condition('Scheduled') },
  { name: 'FullyApplied', type: 'string', jsonPath: condition('FullyApplied') },
  // Flotilla's: FullyApplied means applied, not running; PodsScheduled is False while a member leaves pods Pending.
  { name: 'PodsScheduled', type: 'string', jsonPath: condition('PodsScheduled') },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];
const scaleTargetColumns: PrinterColumn[] = [
  { name: 'REFERENCE-KIND', type: 'string', jsonPath: '.spec.scaleTargetRef.kind' },
  { name: 'REFERENCE-NAME', type: 'string', jsonPath: '.spec.scaleTargetRef.name' },
];

/** Karmada's and Crane's own printer columns and categories (their CRDs, and Karmada's aggregated Cluster API). */
const PRESENTATION: Record<string, Presentation> = {
  Cluster: {
    description: 'Cluster is a member cluster Flotilla schedules to (simulated when spec.simulation is set).',
    categories: KARMADA,
    columns: [
      { name: 'VERSION', type: 'string', jsonPath: '.status.kubernetesVersion' },
      { name: 'MODE', type: 'string', jsonPath: '.spec.syncMode' },
      { name: 'READY', type: 'string', jsonPath: condition('Ready') },
      AGE,
    ],
  },
  PropagationPolicy: {
    description: 'PropagationPolicy places the resource templates it selects in this namespace onto member clusters.',
    categories: KARMADA,
    columns: policyColumns,
  },
  ClusterPropagationPolicy: {
    description:
      'ClusterPropagationPolicy places the resource templates it selects, in any namespace, onto member clusters.',
    categories: KARMADA,
    columns: policyColumns,
  },
  ResourceBinding: {
    description: 'ResourceBinding is the scheduling result of one namespaced resource template (written by Flotilla).',
    categories: KARMADA,
    columns: bindingColumns,
  },
  ClusterResourceBinding: {
    description: 'ClusterResourceBinding is the scheduling result of one cluster-scoped resource template.',
    categories: KARMADA,
    columns: bindingColumns,
  },
  FederatedHPA: {
    description:
      'FederatedHPA scales a workload across member clusters and assigns each cluster a share of its min/max.',
    categories: KARMADA,
    columns: [
      ...scaleTargetColumns,
      { name: 'MINPODS', type: 'integer', jsonPath: '.spec.minReplicas' },
      { name: 'MAXPODS', type: 'integer', jsonPath: '.spec.maxReplicas' },
      { name: 'REPLICAS', type: 'integer', jsonPath: '.status.currentReplicas' },
      AGE,
    ],
  },
  CronFederatedHPA: {
    description: "CronFederatedHPA scales a workload, or sets a FederatedHPA's min/max, on cron schedules.",
    categories: KARMADA,
    columns: [...scaleTargetColumns, AGE],
    // Karmada's CronFederatedHPA proposal names a rule `ruleName`; admission's defaulting renames it to `name`.
    inputAliases: {
      at: ['spec', 'rules', '*'],
      properties: {
        ruleName: {
          type: 'string',
          description:
            "The rule's name as Karmada's CronFederatedHPA proposal writes it; taken as name when name is unset.",
        },
      },
      standsFor: ['name'],
    },
  },
  WorkloadRebalancer: {
    description: 'WorkloadRebalancer triggers a fresh rescheduling of the workloads it names.',
    categories: ['flotilla'],
    columns: [],
  },
  EffectiveHorizontalPodAutoscaler: {
    description: "EffectiveHorizontalPodAutoscaler scales ahead of predicted load and on cron windows (Crane's EHPA).",
    categories: ['flotilla'],
    columns: [
      { name: 'STRATEGY', type: 'string', jsonPath: '.spec.scaleStrategy' },
      { name: 'MINPODS', type: 'integer', jsonPath: '.spec.minReplicas' },
      { name: 'MAXPODS', type: 'integer', jsonPath: '.spec.maxReplicas' },
      { name: 'SPECIFICPODS', type: 'integer', jsonPath: '.spec.specificReplicas' },
      { name: 'REPLICAS', type: 'integer', jsonPath: '.status.expectReplicas' },
      AGE,
    ],
  },
};

/** The kinds Flotilla serves as custom resources: every strict kind, under Karmada's and Crane's groups. */
export function customResourceKinds(): KindInfo[] {
  return listKinds().filter((k) => k.strict && PRESENTATION[k.kind]);
}

function addAliases(root: OpenApiSchema, aliases: NonNullable<Presentation['inputAliases']>, kind: string): void {
  let node = root;
  for (const seg of aliases.at) {
    const next = seg === '*' ? node.items : node.properties?.[seg];
    if (!next) throw new CrdSchemaError(aliases.at.join('.'), `${kind} has no such field for its aliases`);
    node = next;
  }
  node.properties = { ...node.properties, ...aliases.properties };
  // A required field an alias stands in for is required no longer: admission's defaulting fills it in.
  node.required = node.required?.filter((r) => !aliases.standsFor.includes(r));
  if (!node.required?.length) delete node.required;
}

/** The descriptions controller-gen gives every kind's apiVersion and kind (Kubernetes' TypeMeta). */
const TYPE_META_DESCRIPTIONS = {
  apiVersion:
    'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values.',
  kind: 'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase.',
} as const;

/**
 * The top of a kind's schema: apiVersion, kind, metadata, spec and status, as controller-gen lays them out. Spec and
 * status take their schema's `.describe()`, else the wording Karmada's kinds use; metadata has none (as
 * controller-gen's: the API server describes ObjectMeta itself).
 */
function kindSchema(info: KindInfo, p: Presentation): OpenApiSchema {
  const generated = toOpenApi(admissionOf(info.kind)!.schema, '');
  const spec = generated.properties?.spec;
  if (!spec) throw new CrdSchemaError('spec', `${info.kind} has no spec`);
  const status = generated.properties?.status ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const out: OpenApiSchema = {
    type: 'object',
    description: p.description,
    properties: {
      apiVersion: { type: 'string', description: TYPE_META_DESCRIPTIONS.apiVersion },
      kind: { type: 'string', description: TYPE_META_DESCRIPTIONS.kind },
      metadata: { type: 'object' },
      spec: { description: `Spec represents the desired behavior of ${info.kind}.`, ...spec },
      status: { description: `Status represents the most recently observed status of ${info.kind}.`, ...status },
    },
    required: ['spec'],
  };
  if (p.inputAliases) addAliases(out, p.inputAliases, info.kind);
  return out;
}

/** The CustomResourceDefinition of one kind, ready to serialise. */
export function customResourceDefinition(info: KindInfo): Record<string, unknown> {
  const p = PRESENTATION[info.kind];
  if (!p) throw new Error(`${info.kind} is not served as a custom resource`);
  const version: Record<string, unknown> = {
    name: info.version,
    served: true,
    storage: true,
    subresources: { status: {} },
  };
  if (p.columns.length) version.additionalPrinterColumns = p.columns;
  version.schema = { openAPIV3Schema: kindSchema(info, p) };
  const names: Record<string, unknown> = {
    kind: info.kind,
    listKind: `${info.kind}List`,
    plural: info.plural,
    singular: info.singular,
  };
  if (info.shortNames.length) names.shortNames = info.shortNames;
  names.categories = p.categories;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${info.plural}.${info.group}`,
      labels: { 'app.kubernetes.io/name': 'flotilla', 'app.kubernetes.io/part-of': 'flotilla' },
    },
    spec: { group: info.group, names, scope: info.namespaced ? 'Namespaced' : 'Cluster', versions: [version] },
  };
}

/** deploy/crds/<group>_<plural>.yaml for a kind, as controller-gen names its files. */
export function crdFileName(info: KindInfo): string {
  return `${info.group}_${info.plural}.yaml`;
}

/** Every CRD file's text by file name: what `pnpm run gen:crds` writes to deploy/crds/ and the Helm chart's crds/. */
export function renderCrdFiles(): Map<string, string> {
  const header = [
    '# Generated from the schemas in packages/api by `pnpm run gen:crds`; do not edit (a test compares them).',
    '# Structure, required fields and enums are checked by the API server; every value rule by the validating',
    "# webhook (Flotilla's admission), so kubectl and the CLI report the same field-path errors.",
  ].join('\n');
  return new Map(
    customResourceKinds().map((info) => [crdFileName(info), `${header}\n${toYaml(customResourceDefinition(info))}`]),
  );
}
