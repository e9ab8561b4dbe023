/** metav1.Time's wire form: RFC 3339 in UTC with whole seconds. */
export function formatTime(d: Date): string {
  return new Date(Math.floor(d.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
