import { readFileSync } from 'node:fs';

/**
 * One factor for every time budget of the suite that depends on the machine (how long a test may wait for a condition,
 * a test's own timeout), so that a busy machine (a user's laptop, CI beside other work) gets proportionally longer
 * budgets instead of timeouts. Budgets are ceilings on waiting, never sleeps: a scale above 1 costs nothing while
 * things go well. `FLOTILLA_TEST_TIME_SCALE` sets it; unset, the suite measures it once at its start (vitest.config.ts)
 * and passes it on to its workers in that variable.
 */
export const TIME_SCALE_ENV = 'FLOTILLA_TEST_TIME_SCALE';
export const MAX_TIME_SCALE = 4;

/** The factor from the variable's value; undefined when unset; an error naming the variable when it is not one. */
export function parseTimeScale(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 1 || n > MAX_TIME_SCALE)
    throw new Error(`${TIME_SCALE_ENV}: expected a number from 1 to ${MAX_TIME_SCALE}, got "${raw}"`);
  return n;
}

/**
 * The factor for a measured share of one core (CPU time over wall time of a busy loop): 1 on an idle machine, and on
 * a busy one more than the share alone says, because the suite's own processes then compete for the same cores
 * (share 2/3, as beside two busy processes on two cores: 2; share 1/2: 3). Rounded up to a quarter, at most
 * MAX_TIME_SCALE; within 10 % of 1, 1.
 */
export function timeScaleForCpuShare(share: number): number {
  if (!(share > 0)) return MAX_TIME_SCALE;
  const raw = 2 / Math.min(1, share) - 1;
  // A share a few percent short of a whole core is measurement noise on an idle machine.
  if (raw < 1.1) return 1;
  return Math.min(MAX_TIME_SCALE, Math.max(1, Math.ceil(raw * 4 - 1e-9) / 4));
}

/** The share of a core this process gets now: CPU time over wall time of a busy loop of `sampleMs`. */
export function measureCpuShare(sampleMs = 300): number {
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  let spin = 0;
  while (performance.now() - start < sampleMs) spin++;
  const wallMs = performance.now() - start;
  const cpu = process.cpuUsage(cpuBefore);
  return spin > 0 ? (cpu.user + cpu.system) / 1000 / wallMs : 1;
}

/**
 * The factor for a share of wall time in which some runnable task of the machine waited for a core (Linux's CPU
 * pressure, "some"): the work of that time took at least 1 / (1 - share) as long. Rounded up to a quarter, at most
 * MAX_TIME_SCALE; below 1.1, 1.
 */
export function timeScaleForCpuWaiting(share: number): number {
  if (!(share < 1)) return MAX_TIME_SCALE;
  const raw = 1 / (1 - Math.max(0, share));
  if (raw < 1.1) return 1;
  return Math.min(MAX_TIME_SCALE, Math.ceil(raw * 4 - 1e-9) / 4);
}

/**
 * The machine's CPU pressure so far: microseconds in which some runnable task waited for a core, summed since boot
 * (`/proc/pressure/cpu`, "some ... total="). Undefined where the kernel keeps none (not Linux, or PSI off).
 */
export function cpuWaitingTotalUs(
  read: () => string = () => readFileSync('/proc/pressure/cpu', 'utf8'),
): number | undefined {
  try {
    const total = /^some .*\btotal=(\d+)/m.exec(read())?.[1];
    return total === undefined ? undefined : Number(total);
  } catch {
    return undefined;
  }
}

/**
 * Samples the machine's CPU pressure every `everyMs` until stopped, to tell afterwards how contended a window of time
 * was. A budget measured against a window (a stall) is scaled by what the machine went through in that window, not by
 * a sample taken before or after it: a load that comes and goes (another test file's services) slips between those.
 */
export class CpuWaitingRecorder {
  private readonly samples: Array<{ atMs: number; totalUs: number }> = [];
  private readonly timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    everyMs = 100,
    private readonly read: () => number | undefined = () => cpuWaitingTotalUs(),
  ) {
    if (this.sample()) {
      this.timer = setInterval(() => this.sample(), everyMs);
      this.timer.unref();
    }
  }

  /**
   * The share of the wall time from `fromMs` to `toMs` (Date.now() times) in which some task waited for a core,
   * measured over the samples that bracket the window; undefined without pressure figures or samples around it.
   */
  waitingShare(fromMs: number, toMs: number): number | undefined {
    this.sample();
    const before = this.samples.findLast((s) => s.atMs <= fromMs) ?? this.samples[0];
    const after = this.samples.find((s) => s.atMs >= toMs) ?? this.samples.at(-1);
    if (!before || !after || after.atMs <= before.atMs) return undefined;
    return (after.totalUs - before.totalUs) / 1000 / (after.atMs - before.atMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private sample(): boolean {
    const totalUs = this.read();
    if (totalUs === undefined) return false;
    this.samples.push({ atMs: Date.now(), totalUs });
    return true;
  }
}

/** The suite's factor (FLOTILLA_TEST_TIME_SCALE, else 1). */
export function testTimeScale(): number {
  return parseTimeScale(process.env[TIME_SCALE_ENV]) ?? 1;
}

/** A time budget in milliseconds, scaled for this machine. */
export function scaled(ms: number): number {
  return Math.round(ms * testTimeScale());
}
