/**
 * The three inputs an EffectiveHPA scales on. Crane adds them to one HPA as metrics; the HPA's maximum decides,
 * so the order here is also the tie-break (Kubernetes keeps the first of equal proposals).
 */
export const EHPA_SOURCES = ['observed', 'prediction', 'cron'] as const;
export type EhpaSource = (typeof EHPA_SOURCES)[number];

/** One source's proposal this round: replicas, or why it has none (the HPA treats it as an invalid metric). */
export type SourceProposal =
  | { source: EhpaSource; replicas: number; metricValue?: number; detail?: string }
  | { source: EhpaSource; reason: string; message: string };

export const hasReplicas = (p: SourceProposal): p is Extract<SourceProposal, { replicas: number }> => 'replicas' in p;
