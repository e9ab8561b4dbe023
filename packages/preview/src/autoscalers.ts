import {
  type CronFederatedHPA,
  type EffectiveHorizontalPodAutoscaler,
  type FederatedHPA,
  formatTime,
} from '@flotilla/api';
import {
  DEFAULT_CONTROLLER_TIME_ZONE,
  excludingEntry,
  nextFireTime,
  resolveTimeZone,
  ruleValues,
  targetKindOf,
} from '@flotilla/cron';
import { cronProposal } from '@flotilla/ehpa';
import { clampWithoutBehavior, type LimitReason } from '@flotilla/hpa-math';
import type { ResourceTemplate } from '@flotilla/scheduling';

/** What an autoscaler the change applies would do to its target's replicas, as far as live state tells. */
export interface AutoscalerPreview {
  kind: 'FederatedHPA' | 'CronFederatedHPA' | 'EffectiveHorizontalPodAutoscaler';
  namespace?: string;
  name: string;
  /** The workload scaled: `Deployment/web` (a CronFederatedHPA's may be `FederatedHPA/web`). */
  target: string;
  /** A CronFederatedHPA's rule. */
  rule?: string;
  /** When it takes effect: now, or a cron rule's next execution. */
  at: string;
  /** The target's replicas now and after; absent when the target is not stored (nothing to scale yet). */
  replicasBefore?: number;
  replicasAfter?: number;
  /** A CronFederatedHPA rule on a FederatedHPA: the min/max it sets. */
  minReplicas?: number;
  maxReplicas?: number;
  /** Why the count is what it is: the HPA controller's limit reason, or the cron rule / window that sets it. */
  reason: string;
  /** What the count does not take into account, said precisely. */
  notKnown?: string;
}

/** Autoscalers the change applies and the stored ones they refer to. */
export interface AutoscalerInput {
  /** The applied autoscaler objects (admitted, so defaulted). */
  applied: readonly unknown[];
  templates: readonly ResourceTemplate[];
  /** The stored FederatedHPAs, for a CronFederatedHPA that scales one. */
  federatedHpas: readonly WithSpec<FederatedHPA>[];
  now: Date;
  /** The cron scheduler's CRON_DEFAULT_TIME_ZONE, for a rule without timeZone. */
  defaultTimeZone?: string;
}

type Ref = { apiVersion?: string; kind: string; name: string };
/** Admitted (or stored) objects have a spec. */
type WithSpec<T extends { spec?: unknown }> = T & { spec: NonNullable<T['spec']> };

const METRICS_NOT_READ =
  'metrics not read: the count holds the metrics at the replicas running now; what the members report next may move it anywhere within min/max';

/**
 * The autoscalers' replica changes, computed with the controllers' own functions from the live state alone:
 * a FederatedHPA's and an EffectiveHPA's new min/max clamp the running replicas (hpa-math's clampWithoutBehavior,
 * the HPA controller's normalisation; an EffectiveHPA's active cron windows through ehpa's cronProposal), and each
 * CronFederatedHPA rule sets what ruleValues says at its nextFireTime. Metrics (a recommendation, a forecast) are
 * not read: each entry says so. Returns the entries and the templates whose replicas change now.
 */
export function previewAutoscalers(input: AutoscalerInput): {
  entries: AutoscalerPreview[];
  scaled: ResourceTemplate[];
} {
  const entries: AutoscalerPreview[] = [];
  const scaled = new Map<string, ResourceTemplate>();
  const templateOf = (ns: string | undefined, ref: Ref) => {
    const key = `${ref.kind}/${ns ?? ''}/${ref.name}`;
    return (
      scaled.get(key) ??
      input.templates.find((t) => t.kind === ref.kind && t.metadata.namespace === ns && t.metadata.name === ref.name)
    );
  };
  const scale = (t: ResourceTemplate, replicas: number) => {
    if (t.spec?.replicas === replicas) return;
    scaled.set(`${t.kind}/${t.metadata.namespace ?? ''}/${t.metadata.name}`, {
      ...t,
      spec: { ...t.spec, replicas },
    } as ResourceTemplate);
  };
  const at = formatTime(input.now);
  for (const o of input.applied) {
    const kind = (o as { kind: string }).kind;
    if (kind === 'FederatedHPA' || kind === 'EffectiveHorizontalPodAutoscaler') {
      const a = o as WithSpec<FederatedHPA> | WithSpec<EffectiveHorizontalPodAutoscaler>;
      const ns = a.metadata.namespace;
      const ref = a.spec.scaleTargetRef as Ref;
      const common = {
        kind,
        ...(ns ? { namespace: ns } : {}),
        name: a.metadata.name ?? '',
        target: `${ref.kind}/${ref.name}`,
        at,
      } as const;
      const t = templateOf(ns, ref);
      if (!t || typeof t.spec?.replicas !== 'number') {
        entries.push({ ...common, reason: 'TargetNotFound', notKnown: `${ref.kind} ${ref.name} is not stored yet` });
        continue;
      }
      const current = t.spec.replicas;
      let desired = current;
      let reason: string | undefined;
      let notKnown = METRICS_NOT_READ;
      if (kind === 'EffectiveHorizontalPodAutoscaler') {
        const spec = (a as WithSpec<EffectiveHorizontalPodAutoscaler>).spec;
        const cron = cronProposal(spec, input.now, input.defaultTimeZone ?? DEFAULT_CONTROLLER_TIME_ZONE);
        if (cron && 'replicas' in cron && cron.replicas > desired && cron.activeCrons.length) {
          desired = cron.replicas;
          reason = `cron window ${cron.activeCrons.map((c) => c.name).join(', ')}`;
        }
        if (spec.prediction)
          notKnown = `${METRICS_NOT_READ}; the prediction is not run (it needs the metric history the hpa-assigner keeps)`;
      }
      const limited = clampWithoutBehavior({
        currentReplicas: current,
        desiredReplicas: desired,
        minReplicas: a.spec.minReplicas ?? 1,
        maxReplicas: a.spec.maxReplicas,
      });
      if (a.spec.behavior)
        notKnown = `${notKnown}; spec.behavior's rate limits may take it there in steps, not at once`;
      entries.push({
        ...common,
        replicasBefore: current,
        replicasAfter: limited.replicas,
        reason: limited.reason === 'DesiredWithinRange' && reason ? reason : (limited.reason as LimitReason),
        notKnown,
      });
      scale(t, limited.replicas);
    } else if (kind === 'CronFederatedHPA') {
      const c = o as WithSpec<CronFederatedHPA>;
      const ns = c.metadata.namespace;
      const ref = c.spec.scaleTargetRef as Ref;
      const targetKind = targetKindOf(ref as never);
      for (const rule of c.spec.rules) {
        const common = {
          kind,
          ...(ns ? { namespace: ns } : {}),
          name: c.metadata.name ?? '',
          target: `${ref.kind}/${ref.name}`,
          rule: rule.name,
        } as const;
        if (rule.suspend) continue;
        const zone = resolveTimeZone(rule.timeZone, input.defaultTimeZone ?? DEFAULT_CONTROLLER_TIME_ZONE);
        let next = nextFireTime(rule.schedule, rule.timeZone, input.now, input.defaultTimeZone);
        // An excluded date is skipped, as the cron scheduler skips it; a year of them is not looked past.
        for (let i = 0; i < 366 && excludingEntry(rule.excludeDates, next, zone) !== undefined; i++)
          next = nextFireTime(rule.schedule, rule.timeZone, next, input.defaultTimeZone);
        const values = ruleValues(rule, targetKind);
        const later =
          'the state at that time is not known: this is what the rule sets on the target as it is now, and the scheduler places it then';
        if (targetKind === 'FederatedHPA') {
          const f = input.federatedHpas.find((x) => x.metadata.namespace === ns && x.metadata.name === ref.name);
          const min = values.minReplicas ?? f?.spec.minReplicas ?? 1;
          const max = values.maxReplicas ?? f?.spec.maxReplicas;
          const t = f ? templateOf(ns, f.spec.scaleTargetRef as Ref) : undefined;
          const current = t?.spec?.replicas;
          const entry: AutoscalerPreview = {
            ...common,
            at: formatTime(next),
            minReplicas: min,
            ...(max !== undefined ? { maxReplicas: max } : {}),
            reason: 'CronRule',
            notKnown: `${later}; ${METRICS_NOT_READ}`,
          };
          if (typeof current === 'number' && max !== undefined) {
            entry.replicasBefore = current;
            entry.replicasAfter = clampWithoutBehavior({
              currentReplicas: current,
              desiredReplicas: current,
              minReplicas: min,
              maxReplicas: max,
            }).replicas;
          }
          entries.push(entry);
        } else if (values.replicas !== undefined) {
          const t = templateOf(ns, ref);
          entries.push({
            ...common,
            at: formatTime(next),
            ...(typeof t?.spec?.replicas === 'number' ? { replicasBefore: t.spec.replicas } : {}),
            replicasAfter: values.replicas,
            reason: 'CronRule',
            notKnown: later,
          });
        }
      }
    }
  }
  return { entries, scaled: [...scaled.values()] };
}
