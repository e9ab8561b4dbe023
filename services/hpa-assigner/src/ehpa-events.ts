/** The EffectiveHPA controller's domain event types (subjects `<prefix>.events.EffectiveHorizontalPodAutoscaler…`). */
export const EffectiveHpaEventTypes = {
  /** The template's replicas were written; `data.source` names the source that won (or `specificReplicas`). */
  EffectiveHPAScaled: 'EffectiveHPAScaled',
  /** The proposals, conditions or expected replicas changed without a write. */
  EffectiveHPAObserved: 'EffectiveHPAObserved',
} as const;

export const EFFECTIVE_HPA_KIND = 'EffectiveHorizontalPodAutoscaler';
