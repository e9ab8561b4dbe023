import type { Registry } from 'prom-client';

/** The sum of a registered metric's samples whose labels include `labels` (0 when none match). */
export async function metricSum(
  registry: Registry,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (!metric) throw new Error(`no metric ${name} in the registry`);
  return (await metric.get()).values
    .filter((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))
    .reduce((sum, v) => sum + v.value, 0);
}
