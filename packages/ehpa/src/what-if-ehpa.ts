import {
  applyStatusPatch,
  formatTime,
  parseQuantity,
  resolveDspConfig,
  type EffectiveHorizontalPodAutoscaler,
  type KubeObject,
} from '@flotilla/api';
import { cronMetric, predict, type ActiveCron } from '@flotilla/prediction';
import { decideEffectiveHpa } from './decide-effective-hpa.js';
import { WhatIfInputError } from './errors.js';
import { memberWorkload } from './member-usage.js';

export type HistorySample = readonly [unixSeconds: number, value: number];

export interface WhatIfEhpaOptions {
  now: Date;
  /** The workload's usage in cores, oldest first (a Prometheus range query's values). */
  history?: readonly HistorySample[];
  /** How far the printed forecast reaches; unset: one detected period, at least the prediction window. */
  horizonSeconds?: number;
  controllerZone?: string;
}

/** `what-if ehpa -o json`: the public shape, key order included. */
export interface WhatIfEhpaResult {
  apiVersion: 'v1';
  kind: 'List';
  items: [EffectiveHorizontalPodAutoscaler];
  cron: { activeCrons: ActiveCron[]; metricValue: number };
  prediction: { periodic: boolean; periodSeconds: number | null; samples: Array<[number, number]> };
}

type Template = KubeObject<
  {
    replicas?: number;
    template?: { spec?: { containers?: Array<{ resources?: { requests?: Record<string, string | number> } }> } };
  },
  { replicas?: number }
>;

/** One pod's CPU request in milli-cores: the sum over the pod template's containers. */
export function podCpuRequestMilli(template: Template): number | undefined {
  const containers = template.spec?.template?.spec?.containers ?? [];
  let total = 0;
  let any = false;
  for (const c of containers) {
    const cpu = c.resources?.requests?.cpu;
    if (cpu === undefined) continue;
    total += Math.ceil(parseQuantity(cpu) * 1000 - 1e-6);
    any = true;
  }
  return any ? total : undefined;
}

/** The last sample at or before `nowSeconds`, which stands in for the members' observed usage offline. */
function usageAt(history: readonly HistorySample[], nowSeconds: number): number | undefined {
  let found: number | undefined;
  for (const [t, v] of history) if (t <= nowSeconds) found = v;
  return found;
}

/**
 * The EffectiveHPA controller's decision, offline, by the same functions: the forecast fitted on `history` at `now`,
 * the cron metric at `now`, and the observed usage taken as the last history sample at or before `now`, spread over
 * the target's running replicas with its pod template's CPU request (a one-cluster view of the members).
 */
export function whatIfEhpa(docs: readonly unknown[], opts: WhatIfEhpaOptions): WhatIfEhpaResult {
  const objects = docs as KubeObject[];
  const ehpas = objects.filter(
    (d) => d.kind === 'EffectiveHorizontalPodAutoscaler',
  ) as EffectiveHorizontalPodAutoscaler[];
  if (ehpas.length !== 1) {
    throw new WhatIfInputError(
      '(files)',
      `expected exactly one EffectiveHorizontalPodAutoscaler, found ${ehpas.length}`,
    );
  }
  const ehpa = ehpas[0]!;
  const spec = ehpa.spec!;
  const ns = ehpa.metadata.namespace ?? 'default';
  const ref = spec.scaleTargetRef;
  const target = objects.find(
    (d) => d.kind === ref.kind && d.metadata.name === ref.name && (d.metadata.namespace ?? 'default') === ns,
  ) as Template | undefined;
  if (!target) {
    throw new WhatIfInputError('spec.scaleTargetRef', `${ref.kind} ${ns}/${ref.name} is not in the files`);
  }
  const specReplicas = target.spec?.replicas ?? 1;
  const statusReplicas = target.status?.replicas ?? specReplicas;
  const nowSeconds = Math.floor(opts.now.getTime() / 1000);
  const history = opts.history ?? [];

  const window = spec.prediction?.predictionWindowSeconds;
  const fit = predict(
    history.map(([timestamp, value]) => ({ timestamp, value })),
    resolveDspConfig(spec.prediction?.predictionAlgorithm?.dsp).config,
    {
      now: nowSeconds,
      ...(window === undefined ? {} : { predictionWindowSeconds: window }),
      ...(opts.horizonSeconds === undefined ? {} : { horizonSeconds: opts.horizonSeconds }),
    },
  );

  const usage = usageAt(history, nowSeconds);
  const request = podCpuRequestMilli(target);
  const members =
    usage === undefined || request === undefined
      ? []
      : [
          memberWorkload({
            cluster: 'history',
            clusterReady: true,
            specReplicas: statusReplicas,
            readyReplicas: statusReplicas,
            usageMilli: Math.round(usage * 1000),
            requestMilli: request,
          }),
        ];
  const decision = decideEffectiveHpa({
    ehpa,
    template: { specReplicas, statusReplicas },
    observed: { members },
    forecast: fit,
    now: opts.now,
    ...(opts.controllerZone ? { controllerZone: opts.controllerZone } : {}),
  });
  const status = applyStatusPatch(ehpa.status, decision.statusPatch as never, formatTime(opts.now));
  const cron = cronMetric(spec.crons ?? [], spec.minReplicas ?? 1, opts.now, opts.controllerZone);
  return {
    apiVersion: 'v1',
    kind: 'List',
    items: [{ ...ehpa, status }],
    cron: { activeCrons: cron.activeCrons, metricValue: cron.metricValue },
    prediction: {
      periodic: fit.periodic,
      periodSeconds: fit.periodSeconds,
      samples: fit.samples.map(([t, v]) => [t, v]),
    },
  };
}
