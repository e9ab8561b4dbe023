import { QueryTemplateError } from './errors.js';
import type { WorkloadRef } from './sample.js';

/**
 * Crane's default workload CPU query (in cores): the irate of the containers' cpu seconds summed over the workload's
 * pods, found by the name prefix a Deployment's pods carry. Used against a Prometheus that scrapes cAdvisor (kube mode).
 */
export const CRANE_WORKLOAD_CPU_QUERY =
  'sum(irate(container_cpu_usage_seconds_total{namespace="{{namespace}}",pod=~"^{{nameRegex}}-[a-z0-9]+-[a-z0-9]{5}$",container!="",container!="POD"}[3m]))';

/** The query for the simulated clusters' usage gauge, which the sim member-agent exposes per workload. */
export const SIM_WORKLOAD_CPU_QUERY =
  'sum(flotilla_sim_workload_cpu_usage_cores{namespace="{{namespace}}",kind="{{kind}}",workload="{{name}}"})';

const PLACEHOLDER = /\{\{\s*([A-Za-z]+)\s*\}\}/g;

/** A PromQL string literal's content: backslashes and double quotes escaped. */
const promString = (s: string) => s.replaceAll('\\', '\\\\').replaceAll('"', '\\"');
/** A regular expression matching `s` literally (RE2 syntax), as the content of a PromQL string. */
const promRegex = (s: string) => promString(s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));

/** Fills a query template's `{{namespace}}`, `{{kind}}`, `{{name}}` and `{{nameRegex}}` for one workload. */
export function renderQuery(template: string, w: WorkloadRef): string {
  const values: Record<string, string> = {
    namespace: promString(w.namespace),
    kind: promString(w.kind),
    name: promString(w.name),
    nameRegex: promRegex(w.name),
  };
  return template.replace(PLACEHOLDER, (_m, key: string) => {
    const v = values[key];
    if (v === undefined) throw new QueryTemplateError(template, key);
    return v;
  });
}
