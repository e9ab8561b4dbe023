/** Characters outside [A-Za-z0-9-] become %XX of their UTF-8 bytes, so '.' can separate the parts. */
function escapePart(s: string): string {
  let out = '';
  for (const byte of new TextEncoder().encode(s)) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9-]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * The id of one execution (object, rule, schedule time), used as its event's message id: deterministic, so the
 * stream drops a repeated decision, and free of ':' and '.' inside parts. Example:
 * `cron.5f1c-….scale-up.20260308T093000Z`. (Timers are not per execution: one BullMQ job per due instant wakes
 * every object due then, see the controller's `wakeJobId`.)
 */
export function executionId(uid: string, ruleName: string, scheduleTime: Date): string {
  const t = Math.floor(scheduleTime.getTime() / 1000) * 1000;
  if (Number.isNaN(t)) throw new RangeError('executionId: scheduleTime is an invalid Date');
  const stamp = new Date(t).toISOString().replace(/[-:]/g, '').replace('.000', '');
  return `cron.${escapePart(uid)}.${escapePart(ruleName)}.${stamp}`;
}
