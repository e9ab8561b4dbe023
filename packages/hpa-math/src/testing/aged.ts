/** Kubernetes' tests state history as ages ("60 s ago"); the math takes absolute times. */
export const NOW_MS = 1_700_000_000_000;

export const agedRecommendations = (recs: readonly { replicas: number; ageSeconds: number }[]) =>
  recs.map((r) => ({ replicas: r.replicas, atMs: NOW_MS - r.ageSeconds * 1000 }));

export const agedEvents = (events: readonly { replicaChange: number; ageSeconds: number }[]) =>
  events.map((e) => ({ replicaChange: e.replicaChange, atMs: NOW_MS - e.ageSeconds * 1000 }));
