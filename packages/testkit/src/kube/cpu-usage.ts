/**
 * Simulated pod CPU usage for kwok, as data: every `setPodCpuUsage` call is one rule (namespace + label selector →
 * millicores), and all rules become one kwok ClusterResourceUsage whose CEL expression picks the newest rule a pod
 * matches. kwok feeds that usage into its kubelet-like metrics endpoints, which the real metrics-server scrapes.
 */

export interface CpuUsageRule {
  namespace: string;
  /** A Kubernetes label selector: `k=v`, `k==v`, `k!=v`, `k`, `!k`, `k in (a,b)`, `k notin (a,b)`, comma-joined. */
  selector: string;
  milliCpu: number;
}

/** Name of the ClusterResourceUsage object the rules are written to. */
export const CPU_USAGE_OBJECT = 'flotilla-pod-usage';

const KEY = /^([a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?\/)?[a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?$/;
const VALUE = /^([a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?)?$/;

function checkKey(key: string, field: string): string {
  if (!KEY.test(key)) throw new Error(`${field}: ${JSON.stringify(key)} is not a label key`);
  return key;
}
function checkValue(value: string, field: string): string {
  if (!VALUE.test(value)) throw new Error(`${field}: ${JSON.stringify(value)} is not a label value`);
  return value;
}

/** Splits a selector at the commas that are not inside `in (…)` lists. */
function splitRequirements(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of selector) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts.map((p) => p.trim());
}

const q = (s: string) => JSON.stringify(s);
const label = (key: string) => `pod.metadata.labels[${q(key)}]`;
const has = (key: string) => `(${q(key)} in pod.metadata.labels)`;

/** The CEL condition of one label selector against `pod`; throws naming `field` on a malformed selector. */
export function selectorToCel(selector: string, field = 'selector'): string {
  if (!selector.trim()) throw new Error(`${field}: must not be empty (name the workload's pods, e.g. app=web)`);
  const conditions = splitRequirements(selector).map((req) => {
    if (!req) throw new Error(`${field}: ${JSON.stringify(selector)} has an empty requirement`);
    const equality = req.match(/^(\S+?)\s*(==|=|!=)\s*(\S*)$/);
    if (equality) {
      const [, key, op, value] = equality as unknown as [string, string, string, string];
      checkKey(key, field);
      checkValue(value, field);
      return op === '!='
        ? `(!${has(key)} || ${label(key)} != ${q(value)})`
        : `(${has(key)} && ${label(key)} == ${q(value)})`;
    }
    const set = req.match(/^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/);
    if (set) {
      const [, key, op, list] = set as unknown as [string, string, string, string];
      checkKey(key, field);
      const values = list.split(',').map((v) => checkValue(v.trim(), field));
      const inList = `${label(key)} in [${values.map(q).join(', ')}]`;
      return op === 'in' ? `(${has(key)} && ${inList})` : `(!${has(key)} || !(${inList}))`;
    }
    const absent = req.match(/^!\s*(\S+)$/);
    if (absent) return `!${has(checkKey(absent[1]!, field))}`;
    if (KEY.test(req)) return has(req);
    throw new Error(`${field}: cannot read requirement ${JSON.stringify(req)} of ${JSON.stringify(selector)}`);
  });
  return `(${conditions.join(' && ')})`;
}

export function validateCpuUsageRule(rule: CpuUsageRule): void {
  if (!rule.namespace) throw new Error('namespace: must not be empty');
  if (!Number.isFinite(rule.milliCpu) || rule.milliCpu < 0 || !Number.isInteger(rule.milliCpu))
    throw new Error(`milliCpu: must be a whole number of millicores ≥ 0, got ${rule.milliCpu}`);
  selectorToCel(rule.selector);
}

/**
 * The ClusterResourceUsage for `rules` (newest last, and the newest match wins). Pods no rule matches use what their
 * `kwok.x-k8s.io/usage-cpu` annotation says, else 1m. Usage is per container: a one-container pod uses `milliCpu`.
 */
export function cpuUsageObject(rules: readonly CpuUsageRule[]): Record<string, unknown> {
  let cpu =
    '("kwok.x-k8s.io/usage-cpu" in pod.metadata.annotations) ? ' +
    'Quantity(pod.metadata.annotations["kwok.x-k8s.io/usage-cpu"]) : Quantity("1m")';
  for (const rule of rules)
    cpu = `(pod.metadata.namespace == ${q(rule.namespace)} && ${selectorToCel(rule.selector)}) ? Quantity(${q(`${rule.milliCpu}m`)}) : (${cpu})`;
  const memory =
    '("kwok.x-k8s.io/usage-memory" in pod.metadata.annotations) ? ' +
    'Quantity(pod.metadata.annotations["kwok.x-k8s.io/usage-memory"]) : Quantity("16Mi")';
  return {
    apiVersion: 'kwok.x-k8s.io/v1alpha1',
    kind: 'ClusterResourceUsage',
    metadata: { name: CPU_USAGE_OBJECT },
    spec: { usages: [{ usage: { cpu: { expression: cpu }, memory: { expression: memory } } }] },
  };
}
