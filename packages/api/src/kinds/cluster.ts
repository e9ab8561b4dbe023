import { z } from 'zod';
import type { FieldError } from '../errors.js';
import { timeSchema } from '../meta.js';
import type { KubeObject } from '../object.js';
import { parseQuantity } from '../quantity.js';
import { conditionSchema, int32, int64, quantitySchema, resourceListSchema, taintSchema } from './common.js';
import type { KindAdmission } from './kind-admission.js';
import { objAt } from './kind-admission.js';

const localSecretReferenceSchema = z.strictObject({ namespace: z.string(), name: z.string() });

const resourceModelSchema = z.strictObject({
  grade: int32.min(0),
  ranges: z.array(z.strictObject({ name: z.string().min(1), min: quantitySchema, max: quantitySchema })),
});

/** Where a model's time starts (RFC 3339): fixes the phase of a periodic load, as the member-agent's sim reads it. */
const startTime = { startTime: z.string().min(1).optional() };

/** A workload's load in a simulated cluster, as total CPU demand in cores (see the CLI's `cluster load`). */
const loadModelSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('constant'), cores: z.number().min(0), ...startTime }),
  z.strictObject({
    type: z.literal('step'),
    cores: z.number().min(0),
    stepCores: z.number().min(0),
    stepAfter: z.string().min(1),
    ...startTime,
  }),
  z.strictObject({
    type: z.literal('sine'),
    cores: z.number().min(0),
    amplitude: z.number().min(0),
    period: z.string().min(1),
    ...startTime,
  }),
  z.strictObject({
    type: z.literal('series'),
    values: z.array(z.number().min(0)).min(1),
    interval: z.string().min(1),
    ...startTime,
  }),
]);

/**
 * Flotilla's extension: a HorizontalPodAutoscaler in a member cluster that Flotilla did not create (no binding
 * annotation), as a member-agent reports it in the Cluster's `status.foreignHorizontalPodAutoscalers` (and as a
 * simulated cluster declares it). An autoscaler of Flotilla's aimed at the same workload has an owner conflict.
 */
export const foreignHorizontalPodAutoscalerSchema = z.strictObject({
  namespace: z.string().optional(),
  name: z.string().min(1),
  scaleTargetRef: z.strictObject({
    apiVersion: z.string().optional(),
    kind: z.string().min(1),
    name: z.string().min(1),
  }),
  minReplicas: z.number().int().min(0).optional(),
  maxReplicas: z.number().int().min(1).optional(),
});
export type ForeignHorizontalPodAutoscaler = z.infer<typeof foreignHorizontalPodAutoscalerSchema>;

/**
 * Flotilla's extension: a Cluster with `spec.simulation` has no real API server behind it; the sim driver of the
 * member-agent plays it with this capacity, version, failure switch and per-workload load.
 */
export const clusterSimulationSchema = z.strictObject({
  allocatable: z.strictObject({ cpu: quantitySchema, memory: quantitySchema, pods: quantitySchema }),
  kubernetesVersion: z.string().optional(),
  failed: z.boolean().optional(),
  loads: z
    .array(
      z.strictObject({
        workload: z.strictObject({
          apiVersion: z.string().optional(),
          kind: z.string().min(1),
          namespace: z.string().optional(),
          name: z.string().min(1),
        }),
        model: loadModelSchema,
      }),
    )
    .optional(),
  /**
   * HorizontalPodAutoscalers someone made in the simulated cluster without Flotilla (kubectl on the member, say):
   * reported in the Cluster's `status.foreignHorizontalPodAutoscalers`, where an autoscaler aimed at the same
   * workload finds its owner conflict. They are reported, not run.
   */
  foreignHorizontalPodAutoscalers: z.array(foreignHorizontalPodAutoscalerSchema).optional(),
});
export type ClusterSimulation = z.infer<typeof clusterSimulationSchema>;

export const clusterSpecSchema = z.strictObject({
  id: z.string().optional(),
  syncMode: z.enum(['Push', 'Pull']),
  apiEndpoint: z.string().optional(),
  secretRef: localSecretReferenceSchema.optional(),
  impersonatorSecretRef: localSecretReferenceSchema.optional(),
  insecureSkipTLSVerification: z.boolean().optional(),
  proxyURL: z.string().optional(),
  proxyHeader: z.record(z.string(), z.string()).optional(),
  provider: z.string().optional(),
  region: z.string().optional(),
  zone: z.string().optional(),
  zones: z.array(z.string()).optional(),
  taints: z.array(taintSchema).optional(),
  resourceModels: z.array(resourceModelSchema).optional(),
  simulation: clusterSimulationSchema.optional(),
});
export type ClusterSpec = z.infer<typeof clusterSpecSchema>;

/** Status is written by the member-agent; known fields are type-checked, unknown ones kept. */
export const clusterStatusSchema = z.looseObject({
  kubernetesVersion: z.string().optional(),
  apiEnablements: z
    .array(
      z.looseObject({
        groupVersion: z.string(),
        resources: z.array(z.looseObject({ name: z.string(), kind: z.string() })).optional(),
      }),
    )
    .optional(),
  conditions: z.array(conditionSchema).optional(),
  nodeSummary: z.looseObject({ totalNum: int32.optional(), readyNum: int32.optional() }).optional(),
  resourceSummary: z
    .looseObject({
      allocatable: resourceListSchema.optional(),
      allocating: resourceListSchema.optional(),
      allocated: resourceListSchema.optional(),
      allocatableModelings: z.array(z.looseObject({ grade: int32, count: int64 })).optional(),
    })
    .optional(),
  remedyActions: z.array(z.string()).optional(),
  /** The member cluster's HPAs Flotilla did not create, sorted by namespace and name; absent when there are none. */
  foreignHorizontalPodAutoscalers: z.array(foreignHorizontalPodAutoscalerSchema).optional(),
  lastHeartbeatTime: timeSchema.optional(),
});
export type ClusterStatus = z.infer<typeof clusterStatusSchema>;

export type Cluster = KubeObject<ClusterSpec, ClusterStatus>;

export const clusterSchema = z.strictObject({
  apiVersion: z.string(),
  kind: z.string(),
  metadata: z.unknown(),
  spec: clusterSpecSchema,
  status: clusterStatusSchema.optional(),
});

export const clusterAdmission: KindAdmission = {
  schema: clusterSchema,
  // Karmada builds the execution namespace `karmada-es-<name>` from it, hence a label of at most 48 characters.
  nameRule: { label: true, maxLength: 48 },
  defaults(obj) {
    // Karmada requires syncMode; simulated and hand-written clusters are pushed to, so Push is the useful default.
    const spec = objAt(obj, 'spec');
    if (spec && spec.syncMode === undefined) spec.syncMode = 'Push';
  },
  validate(obj: Cluster): FieldError[] {
    const errs: FieldError[] = [];
    const sim = obj.spec?.simulation;
    if (sim) {
      for (const r of ['cpu', 'memory', 'pods'] as const) {
        const q = sim.allocatable[r];
        if (parseQuantity(q) < 0)
          errs.push({
            field: `spec.simulation.allocatable.${r}`,
            message: `Invalid value: ${JSON.stringify(q)}: must be greater than or equal to 0`,
          });
      }
      const pods = parseQuantity(sim.allocatable.pods);
      if (!Number.isInteger(pods))
        errs.push({
          field: 'spec.simulation.allocatable.pods',
          message: `Invalid value: ${JSON.stringify(sim.allocatable.pods)}: must be a whole number of pods`,
        });
    }
    const seen = new Set<string>();
    obj.spec?.taints?.forEach((t, i) => {
      const key = `${t.key}:${t.effect}`;
      if (seen.has(key))
        errs.push({ field: `spec.taints[${i}]`, message: `Duplicate value: taint ${JSON.stringify(key)} is repeated` });
      seen.add(key);
    });
    return errs;
  },
};
