export {
  MetricComputationError,
  NoMemberReplicasError,
  OutdatedTimeSeriesError,
  type MetricErrorReason,
} from './errors.js';
export {
  equalSharePods,
  groupPods,
  runningReadyCount,
  type PodGroups,
  type PodSample,
  type PodState,
} from './group-pods.js';
export {
  averageOfTotalReplicas,
  averageValueReplicas,
  DEFAULT_TOLERANCE,
  resourceUtilizationReplicas,
  valueReplicas,
  type AverageOfTotalInput,
  type AverageValueProposal,
  type CalculatorOptions,
  type PodMetricInput,
  type UtilizationProposal,
  type ValueInput,
  type ValueProposal,
} from './replica-calculator.js';
export { proposeForMetric, type MetricObservation, type ScaleReplicas } from './metric-proposal.js';
export {
  DEFAULT_DOWNSCALE_STABILIZATION_SECONDS,
  stabilizeDownscale,
  stabilizeWithBehavior,
  type Recommendation,
  type StabilizationReason,
  type Stabilized,
} from './stabilization.js';
export { clampWithoutBehavior, defaultScaleUpLimit, type LimitReason, type Limited } from './normalize.js';
export {
  limitByBehaviorRate,
  recordScaleEvent,
  resolveBehavior,
  scaleDownLimit,
  scaleUpLimit,
  type ResolvedBehavior,
  type ResolvedScalingRules,
  type ScaleEvent,
  type ScaleEvents,
  type ScalingPolicy,
  type ScalingRules,
} from './behavior.js';
export {
  emptyHistory,
  maxMetricProposal,
  reconcileAutoscaler,
  type AutoscalerHistory,
  type HpaCondition,
  type MetricProposal,
  type ReconcileInput,
  type ReconcileResult,
} from './reconcile.js';
export { observeMembers, type FederatedObservation, type MemberWorkload } from './calibration.js';
export {
  CRON_METRIC_NAME,
  cronMetricValue,
  ehpaMetrics,
  legacyPredictionPerPodMilli,
  PREDICTION_METRIC_NAME,
  predictionAdapterValue,
  predictionAverageValueMilli,
  type PredictionAdapterValue,
  type PredictionSample,
} from './ehpa-combine.js';
export {
  memberHpaStatuses,
  memberPods,
  memberReports,
  type AggregatedWorkloadEntry,
  type MemberHpaStatus,
  type MemberReport,
} from './member-reports.js';
