import { z } from 'zod';
import { parseGoDuration } from '../duration.js';
import type { FieldError } from '../errors.js';
import type { KubeObject } from '../object.js';
import { qualifiedNameErrors } from '../names.js';
import { int32, int64, labelSelectorSchema, nodeSelectorRequirementSchema, tolerationSchema } from './common.js';
import type { AdmissionContext, KindAdmission } from './kind-admission.js';
import { objAt, objectsAt } from './kind-admission.js';

export const resourceSelectorSchema = z.strictObject({
  apiVersion: z.string().min(1).describe('API version of the templates selected, e.g. apps/v1.'),
  kind: z.string().min(1).describe('Kind of the templates selected, e.g. Deployment.'),
  namespace: z
    .string()
    .optional()
    .describe("Namespace of the templates (a ClusterPropagationPolicy's); any when unset."),
  name: z.string().optional().describe('Name of the one template selected; with it labelSelector is ignored.'),
  labelSelector: labelSelectorSchema.optional().describe('Labels of the templates selected.'),
});
export type ResourceSelector = z.infer<typeof resourceSelectorSchema>;

export const fieldSelectorSchema = z.strictObject({
  matchExpressions: z
    .array(nodeSelectorRequirementSchema)
    .optional()
    .describe('A list of field selector requirements (on provider, region, zone). The requirements are ANDed.'),
});

const clusterAffinityShape = {
  labelSelector: labelSelectorSchema.optional().describe('Labels of the member clusters chosen.'),
  fieldSelector: fieldSelectorSchema.optional().describe('Provider, region and zone of the member clusters chosen.'),
  clusterNames: z.array(z.string()).optional().describe('Names of the member clusters chosen.'),
  exclude: z.array(z.string()).optional().describe('Names of member clusters never chosen.'),
};

/** Karmada ClusterAffinity: label selector, field selector (provider/region/zone), names, exclusions. */
export const clusterAffinitySchema = z.strictObject(clusterAffinityShape);
export type ClusterAffinity = z.infer<typeof clusterAffinitySchema>;

const affinityNameSchema = z
  .string()
  .min(1)
  .max(32)
  .describe('Name of the group, unique in the policy (1-32 characters).');

/** One named group of `placement.clusterAffinities`; `overflowAffinities` are Karmada v1.18's tiers inside it. */
export const clusterAffinityTermSchema = z.strictObject({
  affinityName: affinityNameSchema,
  ...clusterAffinityShape,
  overflowAffinities: z
    .array(z.strictObject({ affinityName: affinityNameSchema, ...clusterAffinityShape }))
    .optional()
    .describe(
      "Karmada v1.18: ordered tiers of further clusters in this group, filled only with the replicas the term's own clusters cannot hold (Divided, Aggregated or dynamic weight).",
    ),
});
export type ClusterAffinityTerm = z.infer<typeof clusterAffinityTermSchema>;

// Descriptions follow Karmada's PropagationPolicy API (policy.karmada.io/v1alpha1).
export const spreadConstraintSchema = z.strictObject({
  spreadByField: z
    .enum(['cluster', 'region', 'zone', 'provider'])
    .optional()
    .describe(
      'SpreadByField represents the cluster field the member clusters are grouped by: cluster, region, zone or provider. Not with spreadByLabel; cluster when both are empty.',
    ),
  spreadByLabel: z
    .string()
    .optional()
    .describe('SpreadByLabel represents the label key the member clusters are grouped by. Not with spreadByField.'),
  maxGroups: int64
    .min(0)
    .optional()
    .describe('MaxGroups restricts the maximum number of cluster groups to be selected.'),
  minGroups: int64
    .min(0)
    .optional()
    .describe('MinGroups restricts the minimum number of cluster groups to be selected. Defaults to 1.'),
});
export type SpreadConstraint = z.infer<typeof spreadConstraintSchema>;

export const staticClusterWeightSchema = z.strictObject({
  targetCluster: clusterAffinitySchema.describe('TargetCluster describes the filter to select clusters.'),
  weight: int64.describe("Weight expressing the preference to the cluster(s) specified by 'TargetCluster'."),
});

export const replicaSchedulingSchema = z.strictObject({
  replicaSchedulingType: z
    .enum(['Duplicated', 'Divided'])
    .optional()
    .describe('Duplicated: every cluster runs all replicas. Divided: the replicas are split among the clusters.'),
  replicaDivisionPreference: z
    .enum(['Aggregated', 'Weighted'])
    .optional()
    .describe('Under Divided: Aggregated (as few clusters as fit) or Weighted (by weightPreference).'),
  weightPreference: z
    .strictObject({
      staticWeightList: z
        .array(staticClusterWeightSchema)
        .optional()
        .describe('StaticWeightList defines the static cluster weight.'),
      dynamicWeight: z
        .enum(['AvailableReplicas'])
        .optional()
        .describe(
          'DynamicWeight specifies the factor to generate a dynamic weight list (AvailableReplicas). If specified, StaticWeightList will be ignored.',
        ),
    })
    .optional()
    .describe(
      'WeightPreference describes weight for each cluster or for each group of cluster. Under Weighted without it, all clusters weigh the same.',
    ),
});
export type ReplicaSchedulingStrategy = z.infer<typeof replicaSchedulingSchema>;

export const placementSchema = z.strictObject({
  clusterAffinity: clusterAffinitySchema.optional().describe('The member clusters that may be chosen.'),
  clusterAffinities: z
    .array(clusterAffinityTermSchema)
    .optional()
    .describe('Ordered groups of clusters: the first group that fits is used, the next one on failover.'),
  clusterTolerations: z.array(tolerationSchema).optional().describe('The cluster taints tolerated.'),
  spreadConstraints: z.array(spreadConstraintSchema).optional().describe('How many clusters, regions or zones.'),
  replicaScheduling: replicaSchedulingSchema
    .optional()
    .describe('Duplicated (every cluster runs all replicas) or Divided (replicas split by weight or aggregated).'),
});
export type Placement = z.infer<typeof placementSchema>;

const statePreservationSchema = z
  .strictObject({
    rules: z
      .array(
        z.strictObject({
          aliasLabelName: z
            .string()
            .min(1)
            .describe('AliasLabelName is the label key the preserved data is passed to the new cluster under.'),
          jsonPath: z
            .string()
            .min(1)
            .describe(
              'JSONPath is the JSONPath template that picks the state data to preserve, searched from the resource\'s status (e.g. "{.availableReplicas}").',
            ),
        }),
      )
      .describe(
        'Rules contains a list of StatePreservationRule configurations: what to preserve and under which label.',
      ),
  })
  .optional()
  .describe(
    "StatePreservation defines the policy for preserving and restoring a stateful application's state data during failover. Unset preserves none.",
  );
const purgeModeDescription =
  'PurgeMode represents how to deal with the legacy applications on the cluster from which the application is migrated.';

export const failoverBehaviorSchema = z.strictObject({
  application: z
    .strictObject({
      decisionConditions: z
        .strictObject({
          tolerationSeconds: int32
            .min(0)
            .optional()
            .describe(
              'TolerationSeconds represents the period of time to wait after reaching the desired state before failing over. Defaults to 300.',
            ),
        })
        .describe('DecisionConditions indicates the decision conditions of performing the failover process.'),
      purgeMode: z
        .enum(['Immediately', 'Graciously', 'Never'])
        .optional()
        .describe(`${purgeModeDescription} Immediately, Graciously or Never.`),
      gracePeriodSeconds: int32
        .min(1)
        .optional()
        .describe(
          'GracePeriodSeconds is the maximum waiting duration in seconds before the application on the migrated cluster is deleted (under Graciously; defaults to 600).',
        ),
      statePreservation: statePreservationSchema,
    })
    .optional()
    .describe('Application indicates failover behaviors in case of application failure. Unset disables it.'),
  cluster: z
    .strictObject({
      purgeMode: z
        .enum(['Immediately', 'Graciously', 'Never', 'Directly', 'Gracefully'])
        .optional()
        .describe(
          `${purgeModeDescription} Directly or Gracefully (the default); Immediately, Graciously, Never are old names.`,
        ),
      statePreservation: statePreservationSchema,
    })
    .optional()
    .describe('Cluster indicates failover behaviors in case of cluster failure.'),
  failback: z
    .strictObject({
      enabled: z
        .boolean()
        .optional()
        .describe('Enabled turns automatic fail-back on: true fails back, false or unset does not.'),
      stabilizationWindow: z
        .string()
        .optional()
        .describe(
          'StabilizationWindow is how long an earlier affinity group must be able to hold the workload, without a break, before it fails back: a Go duration such as 10m. Required when enabled.',
        ),
      maxConcurrent: int32
        .min(1)
        .optional()
        .describe(
          "MaxConcurrent is how many of this policy's bindings may be failing back at once (triggered and not yet rescheduled); unset is no limit beyond the fleet's.",
        ),
      mode: z
        .enum(['Graciously'])
        .optional()
        .describe(
          'Mode is how the workload moves back; Graciously, the one value proposed. Flotilla moves it by a Fresh rescheduling.',
        ),
    })
    .optional()
    .describe(
      'Failback (karmada-io/karmada#7441) returns a workload to an earlier affinity group once that group could hold it for the stabilization window. When set it takes the place of the flotilla.io/fail-back-after annotation.',
    ),
});
export type FailoverBehavior = z.infer<typeof failoverBehaviorSchema>;

export const propagationSpecSchema = z.strictObject({
  resourceSelectors: z
    .array(resourceSelectorSchema)
    .min(1)
    .describe('The resource templates the policy propagates (by apiVersion and kind, and name or labelSelector).'),
  association: z
    .boolean()
    .optional()
    .describe(
      'Association tells if relevant resources should be selected automatically. Deprecated: use propagateDeps.',
    ),
  propagateDeps: z
    .boolean()
    .optional()
    .describe(
      'PropagateDeps tells if relevant resources (the ConfigMaps and Secrets a Deployment refers to) should be propagated automatically. Defaults to false.',
    ),
  placement: placementSchema
    .optional()
    .describe('Where the selected templates go: cluster affinity (or ordered affinity groups), spread and replicas.'),
  priority: int32.optional().describe('Among policies selecting one template, the higher priority one applies.'),
  preemption: z
    .enum(['Always', 'Never'])
    .optional()
    .describe('Preemption declares the behaviors for preempting: Always or Never (the default).'),
  dependentOverrides: z
    .array(z.string())
    .optional()
    .describe('DependentOverrides lists the OverridePolicies that must be present before this policy takes effect.'),
  schedulerName: z
    .string()
    .optional()
    .describe('SchedulerName represents which scheduler proceeds the scheduling; unset is the default scheduler.'),
  failover: failoverBehaviorSchema
    .optional()
    .describe('Failover indicates how applications are migrated in case of failures. Unset disables failover.'),
  conflictResolution: z
    .enum(['Abort', 'Overwrite'])
    .optional()
    .describe(
      'ConflictResolution declares what to do when a propagated resource already exists in the target cluster: Abort (the default) or Overwrite.',
    ),
  activationPreference: z
    .enum(['Lazy'])
    .optional()
    .describe(
      "ActivationPreference indicates how the resource templates respond to policy changes: empty at once; Lazy only at the template's next change.",
    ),
  suspension: z
    .strictObject({
      dispatching: z
        .boolean()
        .optional()
        .describe(
          'Dispatching controls whether dispatching should be suspended: true stops propagating to all clusters.',
        ),
      dispatchingOnClusters: z
        .strictObject({
          clusterNames: z.array(z.string()).optional().describe('ClusterNames is the list of clusters to be selected.'),
        })
        .optional()
        .describe('DispatchingOnClusters declares a list of clusters to which the dispatching should be suspended.'),
      scheduling: z
        .boolean()
        .optional()
        .describe(
          'Scheduling controls whether scheduling should be suspended: true pauses it, false or unset resumes.',
        ),
    })
    .optional()
    .describe('Suspension declares the policy for suspending different aspects of propagation. Unset suspends none.'),
  preserveResourcesOnDeletion: z
    .boolean()
    .optional()
    .describe(
      'PreserveResourcesOnDeletion: true keeps the resources on the member clusters when the resource template is deleted. Defaults to false.',
    ),
  schedulePriority: z
    .strictObject({
      priorityClassSource: z
        .enum(['KubePriorityClass'])
        .describe('PriorityClassSource specifies where the PriorityClass is defined: KubePriorityClass.'),
      priorityClassName: z.string().min(1).describe('PriorityClassName specifies which PriorityClass to use.'),
    })
    .optional()
    .describe('SchedulePriority defines how the priority for workload scheduling is resolved.'),
});
export type PropagationSpec = z.infer<typeof propagationSpecSchema>;

export type PropagationPolicy = KubeObject<PropagationSpec, never>;
export type ClusterPropagationPolicy = KubeObject<PropagationSpec, never>;

export const propagationPolicySchema = z.strictObject({
  apiVersion: z.string(),
  kind: z.string(),
  metadata: z.unknown(),
  spec: propagationSpecSchema,
});

const FIELD_SELECTOR_KEYS = ['provider', 'region', 'zone'];

function validateAffinity(a: ClusterAffinity, at: string, errs: FieldError[]): void {
  a.fieldSelector?.matchExpressions?.forEach((e, i) => {
    const p = `${at}.fieldSelector.matchExpressions[${i}]`;
    if (!FIELD_SELECTOR_KEYS.includes(e.key)) {
      errs.push({
        field: `${p}.key`,
        message: `Unsupported value: ${JSON.stringify(e.key)}: supported values: "provider", "region", "zone"`,
      });
    }
    if (e.operator !== 'In' && e.operator !== 'NotIn') {
      errs.push({
        field: `${p}.operator`,
        message: `Unsupported value: ${JSON.stringify(e.operator)}: supported values: "In", "NotIn"`,
      });
    }
  });
}

function isEmptyAffinity(a: ClusterAffinity): boolean {
  return !a.labelSelector && !a.fieldSelector && !a.clusterNames?.length && !a.exclude?.length;
}

/** Karmada's ValidatePlacement / ValidateClusterAffinities / ValidateSpreadConstraint, field by field. */
export function validatePlacement(p: Placement, at: string): FieldError[] {
  const errs: FieldError[] = [];
  if (p.clusterAffinity && p.clusterAffinities) {
    errs.push({
      field: `${at}.clusterAffinities`,
      message: 'Forbidden: clusterAffinities can not co-exist with clusterAffinity',
    });
  }
  if (p.clusterAffinity) validateAffinity(p.clusterAffinity, `${at}.clusterAffinity`, errs);
  const rs = p.replicaScheduling;
  const overflowAllowed =
    rs?.replicaSchedulingType === 'Divided' &&
    (rs.replicaDivisionPreference === 'Aggregated' ||
      (rs.replicaDivisionPreference === 'Weighted' && !!rs.weightPreference?.dynamicWeight));
  const names = new Set<string>();
  p.clusterAffinities?.forEach((term, i) => {
    const tp = `${at}.clusterAffinities[${i}]`;
    for (const e of qualifiedNameErrors(term.affinityName)) {
      errs.push({ field: `${tp}.affinityName`, message: `Invalid value: ${JSON.stringify(term.affinityName)}: ${e}` });
    }
    if (names.has(term.affinityName))
      errs.push({ field: `${tp}.affinityName`, message: `duplicate name ${JSON.stringify(term.affinityName)}` });
    names.add(term.affinityName);
    validateAffinity(term, tp, errs);
    if (term.overflowAffinities) {
      if (!overflowAllowed) {
        errs.push({
          field: `${tp}.overflowAffinities`,
          message:
            'Forbidden: overflowAffinities need replicaScheduling Divided with Aggregated, or Weighted with a dynamicWeight',
        });
      }
      if (isEmptyAffinity(term)) {
        errs.push({
          field: `${tp}.overflowAffinities`,
          message:
            'Forbidden: overflowAffinities need the term itself to select clusters (labelSelector, fieldSelector, clusterNames or exclude)',
        });
      }
      const tierNames = new Set([term.affinityName]);
      term.overflowAffinities.forEach((o, j) => {
        const op = `${tp}.overflowAffinities[${j}]`;
        for (const e of qualifiedNameErrors(o.affinityName))
          errs.push({ field: `${op}.affinityName`, message: `Invalid value: ${JSON.stringify(o.affinityName)}: ${e}` });
        if (tierNames.has(o.affinityName))
          errs.push({ field: `${op}.affinityName`, message: `duplicate name ${JSON.stringify(o.affinityName)}` });
        tierNames.add(o.affinityName);
        validateAffinity(o, op, errs);
      });
    }
  });
  rs?.weightPreference?.staticWeightList?.forEach((w, i) => {
    if (w.weight < 1) {
      errs.push({
        field: `${at}.replicaScheduling.weightPreference.staticWeightList[${i}].weight`,
        message: `Invalid value: ${w.weight}: must be greater than or equal to 1`,
      });
    }
  });
  if (rs?.replicaSchedulingType === 'Duplicated' && rs.replicaDivisionPreference) {
    errs.push({
      field: `${at}.replicaScheduling.replicaDivisionPreference`,
      message: 'Forbidden: only meaningful when replicaSchedulingType is Divided',
    });
  }
  const spread = p.spreadConstraints ?? [];
  let byField = false;
  let byCluster = false;
  spread.forEach((c, i) => {
    const sp = `${at}.spreadConstraints[${i}]`;
    if (c.spreadByField && c.spreadByLabel) {
      errs.push({ field: sp, message: 'Forbidden: spreadByLabel should not co-exist with spreadByField' });
    }
    if (c.spreadByField) byField = true;
    if (c.spreadByField === 'cluster') byCluster = true;
    if (c.maxGroups !== undefined && c.minGroups !== undefined && c.maxGroups > 0 && c.maxGroups < c.minGroups) {
      errs.push({
        field: `${sp}.maxGroups`,
        message: `Invalid value: ${c.maxGroups}: maxGroups lower than minGroups (${c.minGroups}) is not allowed`,
      });
    }
  });
  if (byField && !byCluster) {
    errs.push({
      field: `${at}.spreadConstraints`,
      message:
        'Invalid value: the cluster spread constraint must be enabled in one of the constraints in case of spreadByField is enabled',
    });
  }
  return errs;
}

/** karmada#7441's fail-back: a positive stabilization window, required when it is enabled. */
export function validateFailback(f: FailoverBehavior['failback'], at: string): FieldError[] {
  if (!f) return [];
  const window = f.stabilizationWindow;
  if (window === undefined)
    return f.enabled
      ? [
          {
            field: `${at}.stabilizationWindow`,
            message: 'Required value: how long an earlier group must be able to hold the workload before it fails back',
          },
        ]
      : [];
  const ms = parseGoDuration(window.trim());
  return ms !== undefined && ms > 0
    ? []
    : [
        {
          field: `${at}.stabilizationWindow`,
          message: `Invalid value: ${JSON.stringify(window)}: must be a duration greater than 0, such as 10m, 1h30m or 90s`,
        },
      ];
}

function defaultPropagation(obj: Record<string, unknown>): void {
  const spec = objAt(obj, 'spec');
  if (!spec) return;
  // CRD defaults (kubebuilder markers on PropagationSpec).
  spec.priority ??= 0;
  spec.preemption ??= 'Never';
  spec.conflictResolution ??= 'Abort';
  spec.schedulerName ??= 'default-scheduler';
  // Mutating webhook: selectors of a namespaced policy select in the policy's namespace.
  const ns = objAt(obj, 'metadata')?.namespace;
  if (obj.kind === 'PropagationPolicy' && typeof ns === 'string') {
    for (const s of objectsAt(spec, 'resourceSelectors'))
      if (s.namespace === undefined || s.namespace === '') s.namespace = ns;
  }
  const placement = objAt(spec, 'placement');
  const rs = objAt(placement, 'replicaScheduling');
  if (rs) {
    rs.replicaSchedulingType ??= 'Divided';
    if (
      rs.replicaSchedulingType === 'Divided' &&
      (rs.replicaDivisionPreference === undefined || rs.replicaDivisionPreference === '')
    ) {
      rs.replicaDivisionPreference = 'Weighted';
    }
  }
  for (const c of objectsAt(placement, 'spreadConstraints')) {
    if (
      (c.spreadByField === undefined || c.spreadByField === '') &&
      (c.spreadByLabel === undefined || c.spreadByLabel === '')
    )
      c.spreadByField = 'cluster';
    if (c.minGroups === undefined || c.minGroups === 0) c.minGroups = 1;
  }
  const app = objAt(objAt(spec, 'failover'), 'application');
  if (app) {
    app.purgeMode ??= 'Graciously';
    const dc = objAt(app, 'decisionConditions');
    if (dc) dc.tolerationSeconds ??= 300;
    else if (app.decisionConditions === undefined) app.decisionConditions = { tolerationSeconds: 300 };
    if (app.purgeMode === 'Graciously') app.gracePeriodSeconds ??= 600;
  }
}

export const propagationPolicyAdmission: KindAdmission = {
  schema: propagationPolicySchema,
  references: (obj: PropagationPolicy) =>
    (obj.spec?.resourceSelectors ?? []).map((s, i) => ({ at: `spec.resourceSelectors[${i}]`, ...s })),
  defaults: defaultPropagation,
  validate(obj: PropagationPolicy, ctx: AdmissionContext): FieldError[] {
    const spec = obj.spec!;
    const errs = spec.placement ? validatePlacement(spec.placement, 'spec.placement') : [];
    if (spec.suspension?.dispatching && spec.suspension.dispatchingOnClusters) {
      errs.push({
        field: 'spec.suspension.dispatchingOnClusters',
        message: 'Forbidden: dispatchingOnClusters can not co-exist with dispatching',
      });
    }
    errs.push(...validateFailback(spec.failover?.failback, 'spec.failover.failback'));
    if (spec.failover?.application && spec.propagateDeps !== true) {
      errs.push({
        field: 'spec.propagateDeps',
        message: 'Invalid value: application failover is set, propagateDeps must be true',
      });
    }
    if (obj.kind === 'PropagationPolicy') {
      spec.resourceSelectors.forEach((s, i) => {
        if (s.namespace && s.namespace !== obj.metadata.namespace) {
          errs.push({
            field: `spec.resourceSelectors[${i}].namespace`,
            message: `Invalid value: ${JSON.stringify(s.namespace)}: a PropagationPolicy selects only in its own namespace ${JSON.stringify(obj.metadata.namespace)}`,
          });
        }
      });
    } else {
      // A namespaced policy in a reserved namespace is refused at metadata.namespace (its selectors are defaulted to
      // it); a ClusterPropagationPolicy names its namespaces here, and may not reach into a reserved one.
      spec.resourceSelectors.forEach((s, i) => {
        const why = ctx.reservedNamespaces.refusal(s.namespace);
        if (why) errs.push({ field: `spec.resourceSelectors[${i}].namespace`, message: `Forbidden: ${why}` });
      });
    }
    return errs;
  },
};
