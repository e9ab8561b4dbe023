/**
 * Calls `fn` once after the last of a burst of calls, `quietMs` after it, and during a burst that does not end (a
 * page following the events of many clusters, each reporting every few seconds) at least once every `maxWaitMs`: a
 * plain debounce would wait for a pause between events that a busy installation never makes, and the page would
 * never redraw.
 */
export function debounce(fn: () => void, quietMs: number, maxWaitMs = 5 * quietMs): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** When the first call not yet answered came. */
  let pendingSince: number | undefined;
  const fire = (): void => {
    timer = undefined;
    pendingSince = undefined;
    fn();
  };
  return () => {
    const now = Date.now();
    pendingSince ??= now;
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(fire, Math.max(0, Math.min(quietMs, pendingSince + maxWaitMs - now)));
  };
}
