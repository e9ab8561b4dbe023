/**
 * Resolves once the wall clock is in a later whole second than `time` (an ISO time or ms since the epoch).
 * Karmada's times (lastScheduledTime, finishTime, rescheduleTriggeredAt) are whole seconds and a Fresh trigger must
 * come strictly after lastScheduledTime: a test that needs a later second waits exactly until it has come, instead of
 * a fixed 1.1 s.
 */
export async function afterWholeSecond(time: string | number): Promise<void> {
  const ms = typeof time === 'number' ? time : Date.parse(time);
  if (!Number.isFinite(ms)) throw new RangeError(`afterWholeSecond: not a time: ${JSON.stringify(time)}`);
  const next = (Math.floor(ms / 1000) + 1) * 1000;
  while (Date.now() < next) await new Promise((r) => setTimeout(r, Math.max(1, next - Date.now())));
}
