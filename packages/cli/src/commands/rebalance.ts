import { randomBytes } from 'node:crypto';
import { resolveKind, type WorkloadSelector } from '@flotilla/api';
import type { RebalancerObjectReference } from '@flotilla/api';
import { CliError, type CliIo, type Session } from '../context.js';
import { parseDuration } from '../duration.js';
import { rebalanceReport, reportTable } from './rebalance-report.js';

export interface RebalanceOptions {
  /** KIND/NAME of each workload. */
  targets: readonly string[];
  namespace?: string;
  /** `--selector k=v` (repeatable); REBALANCE_DEFAULTS.selector when not given. */
  selector?: readonly string[];
  ttl?: string;
  wait?: boolean;
  /** How long --wait waits; REBALANCE_DEFAULTS.timeout when not given. */
  timeout?: string;
  name?: string;
}

export const REBALANCE_DEFAULTS = { selector: [] as readonly string[], timeout: '2m' } as const;

/** The WorkloadRebalancer `flotilla rebalance` creates: named workloads, plus one label selector from --selector. */
export function rebalancerFor(o: RebalanceOptions, now: Date): object {
  const workloads: RebalancerObjectReference[] = o.targets.map((t) => {
    const slash = t.indexOf('/');
    if (slash <= 0 || slash === t.length - 1) throw new CliError(`error: "${t}" is not KIND/NAME`);
    const info = resolveKind(t.slice(0, slash));
    return {
      apiVersion: info.apiVersion,
      kind: info.kind,
      name: t.slice(slash + 1),
      ...(info.namespaced ? { namespace: o.namespace ?? 'default' } : {}),
    };
  });
  const matchLabels: Record<string, string> = {};
  for (const kv of o.selector ?? REBALANCE_DEFAULTS.selector) {
    const m = /^([^=]+)=(.*)$/.exec(kv);
    if (!m) throw new CliError(`error: --selector "${kv}" is not key=value`);
    matchLabels[m[1]!] = m[2]!;
  }
  const workloadSelectors: WorkloadSelector[] = Object.keys(matchLabels).length
    ? [{ ...(o.namespace ? { namespace: o.namespace } : {}), labelSelector: { matchLabels } }]
    : [];
  if (!workloads.length && !workloadSelectors.length)
    throw new CliError('error: name workloads as KIND/NAME, or select them with --selector key=value');
  const ttl = o.ttl === undefined ? undefined : Math.ceil(parseDuration(o.ttl, '--ttl') / 1000);
  const stamp = now.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return {
    apiVersion: 'apps.karmada.io/v1alpha1',
    kind: 'WorkloadRebalancer',
    metadata: { name: o.name ?? `rebalance-${stamp}-${randomBytes(2).toString('hex')}` },
    spec: {
      ...(workloads.length ? { workloads } : {}),
      ...(workloadSelectors.length ? { workloadSelectors } : {}),
      ...(ttl !== undefined ? { ttlSecondsAfterFinished: ttl } : {}),
    },
  };
}

/**
 * `flotilla rebalance KIND/NAME... [-n NS] [--selector k=v] [--ttl 10m] [--wait]`: creates a WorkloadRebalancer;
 * with --wait, waits for it to finish and for the scheduler to reschedule each Successful workload, then prints
 * the results and placements (read from the event log, so a TTL that already deleted it does not matter).
 */
export async function rebalanceCommand(io: CliIo, s: Session, o: RebalanceOptions): Promise<number> {
  // Every flag is checked before anything is created: a bad --timeout must not leave a rebalancer behind.
  const rb = rebalancerFor(o, io.now()) as { metadata: { name: string } };
  const timeoutMs = parseDuration(o.timeout ?? REBALANCE_DEFAULTS.timeout, '--timeout');
  const created = await s.client.apply(rb);
  const name = created.object.metadata.name;
  io.out(`workloadrebalancer.apps.karmada.io/${name} created`);
  if (!o.wait) return 0;
  const uid = created.object.metadata.uid as string | undefined;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // The bindings are read only once the rebalancer has finished: one read per workload.
    const done = (await rebalanceReport(s, name, uid, { placements: false })).status?.finishTime !== undefined;
    const report = await rebalanceReport(s, name, uid, { placements: done });
    const finished = done && report.workloads.every((w) => !w.result.startsWith('Successful') || w.after !== undefined);
    if (finished || Date.now() >= deadline) {
      io.out(reportTable(report.workloads));
      if (finished) return report.workloads.some((w) => w.result.startsWith('Failed')) ? 1 : 0;
      io.err(`error: timed out waiting for workloadrebalancer/${name} to finish`);
      return 1;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}
