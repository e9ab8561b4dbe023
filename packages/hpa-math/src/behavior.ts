import { defaultHpaBehavior, type HpaBehavior } from '@flotilla/api';
import type { Limited } from './normalize.js';
import { DEFAULT_DOWNSCALE_STABILIZATION_SECONDS } from './stabilization.js';

export type ScalingRules = NonNullable<HpaBehavior['scaleUp']>;
export type ScalingPolicy = NonNullable<ScalingRules['policies']>[number];
/** Scaling rules after defaulting: every field the math reads is set. */
export type ResolvedScalingRules = Required<
  Pick<ScalingRules, 'stabilizationWindowSeconds' | 'selectPolicy' | 'policies'>
>;
export interface ResolvedBehavior {
  scaleUp: ResolvedScalingRules;
  scaleDown: ResolvedScalingRules;
}

/** One applied scale change, kept while some policy period may still count it. */
export interface ScaleEvent {
  replicaChange: number;
  atMs: number;
}

export interface ScaleEvents {
  scaleUp: ScaleEvent[];
  scaleDown: ScaleEvent[];
}

/**
 * autoscaling/v2 defaulting, field by field (a given `policies` list replaces the default list), plus the
 * controller's `maybeInitScaleDownStabilizationWindow`: an unset scale-down window is the controller's downscale
 * window.
 */
export function resolveBehavior(
  behavior: HpaBehavior | undefined,
  downscaleWindowSeconds = DEFAULT_DOWNSCALE_STABILIZATION_SECONDS,
): ResolvedBehavior {
  const b = structuredClone(behavior ?? {});
  defaultHpaBehavior(b);
  const up = b.scaleUp!;
  const down = b.scaleDown!;
  return {
    scaleUp: {
      stabilizationWindowSeconds: up.stabilizationWindowSeconds!,
      selectPolicy: up.selectPolicy!,
      policies: up.policies!,
    },
    scaleDown: {
      stabilizationWindowSeconds: down.stabilizationWindowSeconds ?? downscaleWindowSeconds,
      selectPolicy: down.selectPolicy!,
      policies: down.policies!,
    },
  };
}

/** `getReplicasChangePerPeriod`: the change of events younger than the period. */
function changeInPeriod(events: readonly ScaleEvent[], periodSeconds: number, nowMs: number): number {
  const cutoff = nowMs - periodSeconds * 1000;
  return events.reduce((sum, e) => (e.atMs > cutoff ? sum + e.replicaChange : sum), 0);
}

type Rules = Pick<ResolvedScalingRules, 'selectPolicy' | 'policies'>;

/**
 * Kubernetes' `calculateScaleUpLimitWithScalingRules`. The period starts at the replicas before the period's
 * changes; like Kubernetes since PR #109058, scale-downs in the period are added back too (1.22 and so Crane's
 * clusters counted scale-ups only). `Max` takes the most permissive policy, `Min` the strictest.
 */
export function scaleUpLimit(currentReplicas: number, events: ScaleEvents, rules: Rules, nowMs: number): number {
  if (rules.selectPolicy === 'Disabled') return currentReplicas;
  const proposals = rules.policies.map((p) => {
    const start =
      currentReplicas -
      changeInPeriod(events.scaleUp, p.periodSeconds, nowMs) +
      changeInPeriod(events.scaleDown, p.periodSeconds, nowMs);
    return p.type === 'Pods' ? start + p.value : Math.ceil(start * (1 + p.value / 100));
  });
  return rules.selectPolicy === 'Min' ? Math.min(...proposals) : Math.max(...proposals);
}

/** Kubernetes' `calculateScaleDownLimitWithBehaviors`; Percent truncates, as Go's int32 conversion does. */
export function scaleDownLimit(currentReplicas: number, events: ScaleEvents, rules: Rules, nowMs: number): number {
  if (rules.selectPolicy === 'Disabled') return currentReplicas;
  const proposals = rules.policies.map((p) => {
    const start =
      currentReplicas +
      changeInPeriod(events.scaleDown, p.periodSeconds, nowMs) -
      changeInPeriod(events.scaleUp, p.periodSeconds, nowMs);
    return p.type === 'Pods' ? start - p.value : Math.trunc(start * (1 - p.value / 100));
  });
  return rules.selectPolicy === 'Min' ? Math.max(...proposals) : Math.min(...proposals);
}

/**
 * Kubernetes' `convertDesiredReplicasWithBehaviorRate`: a scale-up stops at min(maxReplicas, rate limit), a
 * scale-down at max(minReplicas, rate limit). A limit that would move against the direction (events used up the
 * budget) holds the current replicas.
 */
export function limitByBehaviorRate(input: {
  currentReplicas: number;
  desiredReplicas: number;
  minReplicas: number;
  maxReplicas: number;
  behavior: ResolvedBehavior;
  events: ScaleEvents;
  nowMs: number;
}): Limited {
  const { currentReplicas: current, desiredReplicas: desired } = input;
  if (desired > current) {
    const limit = Math.max(scaleUpLimit(current, input.events, input.behavior.scaleUp, input.nowMs), current);
    const upper: Limited =
      input.maxReplicas > limit
        ? { replicas: limit, reason: 'ScaleUpLimit' }
        : { replicas: input.maxReplicas, reason: 'TooManyReplicas' };
    if (desired > upper.replicas) return upper;
  } else if (desired < current) {
    const limit = Math.min(scaleDownLimit(current, input.events, input.behavior.scaleDown, input.nowMs), current);
    const lower: Limited =
      input.minReplicas < limit
        ? { replicas: limit, reason: 'ScaleDownLimit' }
        : { replicas: input.minReplicas, reason: 'TooFewReplicas' };
    if (desired < lower.replicas) return lower;
  }
  return { replicas: desired, reason: 'DesiredWithinRange' };
}

function longestPeriodSeconds(rules: ResolvedScalingRules): number {
  return Math.max(0, ...rules.policies.map((p) => p.periodSeconds));
}

/**
 * Kubernetes' `storeScaleEvent` after a rescale (only HPAs with `behavior` keep events). An event older than the
 * direction's longest policy period can no longer count, so its slot is reused.
 */
export function recordScaleEvent(
  events: ScaleEvents,
  behavior: ResolvedBehavior,
  previousReplicas: number,
  newReplicas: number,
  nowMs: number,
): ScaleEvents {
  if (newReplicas === previousReplicas) return events;
  const up = newReplicas > previousReplicas;
  const list = up ? events.scaleUp : events.scaleDown;
  const cutoff = nowMs - longestPeriodSeconds(up ? behavior.scaleUp : behavior.scaleDown) * 1000;
  const event: ScaleEvent = { replicaChange: Math.abs(newReplicas - previousReplicas), atMs: nowMs };
  const stale = list.findLastIndex((e) => e.atMs < cutoff);
  const next = [...list];
  if (stale >= 0) next[stale] = event;
  else next.push(event);
  return up ? { ...events, scaleUp: next } : { ...events, scaleDown: next };
}
