/** Node fires a timer longer than this (a signed 32-bit count of milliseconds) at once: longer waits are re-armed. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
