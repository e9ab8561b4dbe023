/** Jittered, so that writers that lost together do not collide again in lock-step. */
export function backoff(attempt: number): Promise<void> {
  return new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 * (attempt + 1))));
}
