import type { ServiceProcess, Suite } from '@flotilla/launcher';
import { eventually } from '@flotilla/testkit';

/** The sum of a service process's samples of `name` whose labels include `labels`, from its /metrics. */
export async function scrapedSum(
  p: Pick<ServiceProcess, 'httpPort'>,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${p.httpPort}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries(
      [...(m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1]!, l[2]!]),
    );
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) sum += Number(m[3]);
  }
  return sum;
}

/**
 * The barrier before asserting that nothing more happens, out of process: `passes` passes over every key by
 * `controller` in `service`, begun after this call, have completed (each key reconciled after the pass visited it).
 * At most the `flotilla_reconcile_passes_begun_total` read now had begun before, so once
 * `flotilla_reconcile_passes_total` (summed over the replicas) exceeds it by `passes`, that many began afterwards.
 */
export async function afterPasses(
  suite: Pick<Suite, 'processes'>,
  service: string,
  controller: string,
  opts: { passes?: number; timeoutMs?: number } = {},
): Promise<void> {
  const passes = opts.passes ?? 2;
  // Replicas killed by the test are gone from the count: none of their passes began after this call.
  const replicas = suite.processes.filter(
    (p) => p.name === service && p.child.exitCode === null && p.child.signalCode === null,
  );
  if (replicas.length === 0) throw new Error(`afterPasses: no ${service} process in the suite`);
  const sum = async (name: string) => {
    let total = 0;
    for (const p of replicas) total += await scrapedSum(p, name, { controller });
    return total;
  };
  const begun = await sum('flotilla_reconcile_passes_begun_total');
  await eventually(
    async () => ((await sum('flotilla_reconcile_passes_total')) >= begun + passes ? true : undefined),
    opts.timeoutMs ?? 30_000,
    `${passes} ${controller} passes of ${service} begun after ${begun}`,
  );
}
