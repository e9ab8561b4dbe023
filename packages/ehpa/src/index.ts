export { EHPA_SOURCES, hasReplicas, type EhpaSource, type SourceProposal } from './sources.js';
export { observedProposals, type ObservedInput } from './observed-proposals.js';
export {
  predictedMetric,
  predictionEnabled,
  predictionProposal,
  type Forecast,
  type PredictionProposalInput,
} from './prediction-proposal.js';
export { cronProposal, type CronProposal } from './cron-proposal.js';
export {
  decideEffectiveHpa,
  type EhpaDecision,
  type EhpaDecisionInput,
  type EhpaForecastErrorStatus,
  type EhpaScaledEvent,
  type EhpaStatusPatch,
  type ProposalStatus,
  type TemplateReplicas,
} from './decide-effective-hpa.js';
export { memberWorkload, type MemberUsage } from './member-usage.js';
export { WhatIfInputError } from './errors.js';
export {
  podCpuRequestMilli,
  whatIfEhpa,
  type HistorySample,
  type WhatIfEhpaOptions,
  type WhatIfEhpaResult,
} from './what-if-ehpa.js';
export { forecastWindow } from './forecast-window.js';
export {
  FORECAST_CURVES_SPAN_SECONDS,
  forecastCurves,
  type ForecastCurves,
  type ForecastCurvesInput,
} from './forecast-curves.js';
export { dailyDemandCores, syntheticDailyTrace } from './synthetic-trace.js';
export {
  reactiveCounterpart,
  replayEhpa,
  type ReplayOptions,
  type ReplayPoint,
  type ReplayRun,
  type ReplaySummary,
} from './replay.js';
export { defaultReportEhpa, runEhpaReport, type EhpaReport } from './report-ehpa.js';
export { renderReportSvg } from './report-svg.js';
export { compareRuns, renderReportHtml, type ReportComparison } from './report-html.js';
export { historyRetentionMs, historyUnavailable, observedTarget } from './observed-target.js';
