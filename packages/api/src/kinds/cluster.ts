import { z } from 'zod';
import type { FieldError } from '../errors.js';
import { timeSchema } from '../meta.js';
import type { KubeObject } from '../object.js';
import { parseQuantity } from '../quantity.js';
import { conditionSchema, int32, quantitySchema, resourceListSchema, taintSchema } from './common.js';
import type { KindAdmission } from './kind-admission.js';
import { objAt } from './kind-admission.js';
import { validateResourceModels } from '../resource-models.js';
import { allocatableModelingSchema, resourceModelSchema } from './resource-model.js';

// Descriptions follow Karmada's Cluster API (cluster.karmada.io/v1alpha1); Flotilla's own fields say so.
const localSecretReferenceSchema = z.strictObject({
  namespace: z.string().describe('Namespace is the namespace for the resource being referenced.'),
  name: z.string().describe('Name is the name of resource being referenced.'),
});

/** Where a model's time starts (RFC 3339): fixes the phase of a periodic load, as the member-agent's sim reads it. */
const startTime = {
  startTime: z
    .string()
    .min(1)
    .optional()
    .describe("When the model's time starts (RFC 3339): the phase of a periodic load. Defaults to when it is applied."),
};
const loadTypeSchema = (type: 'constant' | 'step' | 'sine' | 'series') =>
  z.literal(type).describe('The load model: constant, step, sine or series.');
const coresSchema = z
  .number()
  .min(0)
  .describe('The CPU demand in cores (constant, before the step, or the mean of the sine).');

/** A workload's load in a simulated cluster, as total CPU demand in cores (see the CLI's `cluster load`). */
const loadModelSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: loadTypeSchema('constant'), cores: coresSchema, ...startTime }),
  z.strictObject({
    type: loadTypeSchema('step'),
    cores: coresSchema,
    stepCores: z.number().min(0).describe('Under step: the CPU demand in cores after the step.'),
    stepAfter: z.string().min(1).describe('Under step: how long after startTime the step comes, a duration (e.g. 5m).'),
    ...startTime,
  }),
  z.strictObject({
    type: loadTypeSchema('sine'),
    cores: coresSchema,
    amplitude: z.number().min(0).describe('Under sine: how far the demand swings above and below cores.'),
    period: z.string().min(1).describe('Under sine: the length of one period, a duration (e.g. 24h).'),
    ...startTime,
  }),
  z.strictObject({
    type: loadTypeSchema('series'),
    values: z.array(z.number().min(0)).min(1).describe('Under series: the CPU demands in cores, one per interval.'),
    interval: z.string().min(1).describe('Under series: how long each value lasts, a duration (e.g. 1m).'),
    ...startTime,
  }),
]);

/**
 * Flotilla's extension: a HorizontalPodAutoscaler in a member cluster that Flotilla did not create (no binding
 * annotation), as a member-agent reports it in the Cluster's `status.foreignHorizontalPodAutoscalers` (and as a
 * simulated cluster declares it). An autoscaler of Flotilla's aimed at the same workload has an owner conflict.
 */
export const foreignHorizontalPodAutoscalerSchema = z.strictObject({
  namespace: z.string().optional().describe("The HPA's namespace in the member cluster. Defaults to default."),
  name: z.string().min(1).describe("The HPA's name."),
  scaleTargetRef: z
    .strictObject({
      apiVersion: z.string().optional().describe('API version of the workload, e.g. apps/v1.'),
      kind: z.string().min(1).describe('Kind of the workload, e.g. Deployment.'),
      name: z.string().min(1).describe('Name of the workload, in the same namespace.'),
    })
    .describe('The workload the HPA scales.'),
  minReplicas: z.number().int().min(0).optional().describe("The HPA's minReplicas."),
  maxReplicas: z.number().int().min(1).optional().describe("The HPA's maxReplicas."),
});
export type ForeignHorizontalPodAutoscaler = z.infer<typeof foreignHorizontalPodAutoscalerSchema>;

/**
 * Flotilla's extension: a Cluster with `spec.simulation` has no real API server behind it; the sim driver of the
 * member-agent plays it with this capacity, version, failure switch and per-workload load.
 */
export const clusterSimulationSchema = z.strictObject({
  allocatable: z
    .strictObject({
      cpu: quantitySchema.describe('CPU the simulated cluster offers, e.g. 8 or 8000m.'),
      memory: quantitySchema.describe('Memory the simulated cluster offers, e.g. 32Gi.'),
      pods: quantitySchema.describe('How many pods the simulated cluster runs at most.'),
    })
    .describe('The capacity of the simulated cluster.'),
  kubernetesVersion: z.string().optional().describe('The Kubernetes version the simulated cluster reports.'),
  failed: z.boolean().optional().describe('True makes the simulated cluster unreachable (NotReady) until false again.'),
  loads: z
    .array(
      z.strictObject({
        workload: z
          .strictObject({
            apiVersion: z.string().optional().describe('API version of the workload, e.g. apps/v1.'),
            kind: z.string().min(1).describe('Kind of the workload, e.g. Deployment.'),
            namespace: z.string().optional().describe('Namespace of the workload.'),
            name: z.string().min(1).describe('Name of the workload.'),
          })
          .describe('The workload the load is of.'),
        model: loadModelSchema.describe("The workload's total CPU demand over time, by type."),
      }),
    )
    .optional()
    .describe("The workloads' CPU demand in the simulated cluster (what its metrics report)."),
  /**
   * HorizontalPodAutoscalers someone made in the simulated cluster without Flotilla (kubectl on the member, say):
   * reported in the Cluster's `status.foreignHorizontalPodAutoscalers`, where an autoscaler aimed at the same
   * workload finds its owner conflict. They are reported, not run.
   */
  foreignHorizontalPodAutoscalers: z
    .array(foreignHorizontalPodAutoscalerSchema)
    .optional()
    .describe('HPAs made in the simulated cluster without Flotilla: reported in status, not run.'),
});
export type ClusterSimulation = z.infer<typeof clusterSimulationSchema>;

export const clusterSpecSchema = z.strictObject({
  id: z
    .string()
    .optional()
    .describe(
      'ID is the unique identifier for the cluster, other than .metadata.uid, typically collected from the member cluster when it registers.',
    ),
  syncMode: z
    .enum(['Push', 'Pull'])
    .describe('SyncMode describes how a cluster syncs resources from the control plane: Push or Pull.'),
  apiEndpoint: z
    .string()
    .optional()
    .describe('The API endpoint of the member cluster. This can be a hostname, hostname:port, IP or IP:port.'),
  secretRef: localSecretReferenceSchema
    .optional()
    .describe(
      'SecretRef represents the secret that contains mandatory credentials to access the member cluster (data.token, data.caBundle).',
    ),
  impersonatorSecretRef: localSecretReferenceSchema
    .optional()
    .describe('ImpersonatorSecretRef represents the secret that contains the token of impersonator (data.token).'),
  insecureSkipTLSVerification: z
    .boolean()
    .optional()
    .describe(
      "InsecureSkipTLSVerification: true does not check the member cluster's serving certificate (an insecure connection). Defaults to false.",
    ),
  proxyURL: z
    .string()
    .optional()
    .describe(
      'ProxyURL is the proxy URL for the cluster. If not empty, the control plane uses it to talk to the cluster.',
    ),
  proxyHeader: z
    .record(z.string(), z.string())
    .optional()
    .describe(
      'ProxyHeader is the HTTP header required by proxy server, by header key; several values comma-separated.',
    ),
  provider: z.string().optional().describe('Provider represents the cloud provider name of the member cluster.'),
  region: z.string().optional().describe('Region represents the region in which the member cluster is located.'),
  zone: z
    .string()
    .optional()
    .describe(
      'Zone represents the zone in which the member cluster is located. Deprecated: kept for backward compatibility, use zones instead.',
    ),
  zones: z
    .array(z.string())
    .optional()
    .describe('Zones represents the failure zones (also called availability zones) of the member cluster.'),
  taints: z
    .array(taintSchema)
    .optional()
    .describe(
      'Taints attached to the member cluster. Taints on the cluster have the "effect" on any resource that does not tolerate the Taint.',
    ),
  resourceModels: z
    .array(resourceModelSchema)
    .optional()
    .describe(
      'ResourceModels is the list of resource modeling in this cluster (by cpu, memory, storage, ephemeral-storage); unset uses the default model.',
    ),
  simulation: clusterSimulationSchema
    .optional()
    .describe("Flotilla: a simulated cluster, played by the member-agent's sim driver (no API server behind it)."),
});
export type ClusterSpec = z.infer<typeof clusterSpecSchema>;

/** Status is written by the member-agent; known fields are type-checked, unknown ones kept. */
export const clusterStatusSchema = z.looseObject({
  kubernetesVersion: z.string().optional().describe('KubernetesVersion represents version of the member cluster.'),
  apiEnablements: z
    .array(
      z.looseObject({
        groupVersion: z.string().describe('GroupVersion is the group and version this APIEnablement is for.'),
        resources: z
          .array(
            z.looseObject({
              name: z.string().describe('Name is the plural name of the resource.'),
              kind: z.string().describe("Kind is the kind for the resource (e.g. 'Deployment' for 'deployments')."),
            }),
          )
          .optional()
          .describe('Resources is a list of APIResource.'),
      }),
    )
    .optional()
    .describe('APIEnablements represents the list of APIs installed on the member cluster.'),
  conditions: z
    .array(conditionSchema)
    .optional()
    .describe('Conditions is an array of current cluster conditions (Ready).'),
  nodeSummary: z
    .looseObject({
      totalNum: int32.optional().describe('TotalNum is the total number of nodes in the cluster.'),
      readyNum: int32.optional().describe('ReadyNum is the number of ready nodes in the cluster.'),
    })
    .optional()
    .describe('NodeSummary represents the summary of nodes status in the member cluster.'),
  resourceSummary: z
    .looseObject({
      allocatable: resourceListSchema
        .optional()
        .describe('Allocatable represents the resources of a cluster that are available for scheduling.'),
      allocating: resourceListSchema
        .optional()
        .describe('Allocating represents the resources of a cluster that are pending for scheduling.'),
      allocated: resourceListSchema
        .optional()
        .describe('Allocated represents the resources of a cluster that have been scheduled.'),
      allocatableModelings: z
        .array(allocatableModelingSchema)
        .optional()
        .describe('AllocatableModelings represents the statistical resource modeling.'),
    })
    .optional()
    .describe('ResourceSummary represents the summary of resources in the member cluster.'),
  remedyActions: z
    .array(z.string())
    .optional()
    .describe('RemedyActions represents the remedy actions that needs to be performed on the cluster.'),
  /** The member cluster's HPAs Flotilla did not create, sorted by namespace and name; absent when there are none. */
  foreignHorizontalPodAutoscalers: z
    .array(foreignHorizontalPodAutoscalerSchema)
    .optional()
    .describe("Flotilla: the member cluster's HPAs Flotilla did not create; absent when there are none."),
  lastHeartbeatTime: timeSchema.optional().describe('The last time the cluster was heard from (kept as written).'),
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
    errs.push(...validateResourceModels(obj.spec?.resourceModels, 'spec.resourceModels'));
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

/**
 * A member-agent's lease on a cluster (the bus's `leases` bucket, key `Cluster._.<name>`), named as Kubernetes'
 * coordination.k8s.io LeaseSpec names it. The agent renews it while it posts the cluster's status; the scheduler's
 * cluster-health controller sets Ready=Unknown when no renewal came within the grace period.
 */
export interface ClusterLease {
  /** Who renewed it last: the agent's driver and host. */
  holderIdentity: string;
  /** When it was renewed (RFC 3339). Only a change matters to the controller, which times it by its own clock. */
  renewTime: string;
}

export {
  CLUSTER_STATUS_NEVER_UPDATED,
  CLUSTER_STATUS_UNKNOWN,
  isClusterHealthExpiryReason,
} from './cluster-health.js';
