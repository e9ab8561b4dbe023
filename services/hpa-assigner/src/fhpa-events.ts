/** The hpa-assigner's domain event types (subjects `<prefix>.events.FederatedHPA.<ns>.<name>.<type>`). */
export const FederatedHpaEventTypes = {
  /** A member min/max assignment (or a move across clusters) was written. */
  FederatedHPAAssigned: 'FederatedHPAAssigned',
  /** Karmada's shipped FederatedHPA set the template's replicas. */
  FederatedHPARescaled: 'FederatedHPARescaled',
  /** The observed numbers or conditions changed without a write. */
  FederatedHPAObserved: 'FederatedHPAObserved',
} as const;
