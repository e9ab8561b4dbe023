/** metav1.Time's wire form: RFC 3339 in UTC with whole seconds (Kubernetes drops the fraction). */
export function formatTime(t: Date): string {
  return `${t.toISOString().slice(0, 19)}Z`;
}
