import { excludedMessage, excludingEntry } from './exclude-dates.js';
import { nextFireTime } from './next-fire-time.js';
import { parseSchedule } from './schedule.js';
import { ruleValues, targetKindOf } from './target.js';
import { formatTime } from '@flotilla/api';
import { DEFAULT_CONTROLLER_TIME_ZONE, resolveTimeZone } from './time-zone.js';
import type { CronFederatedHPARule } from '@flotilla/api';
import type { CronObjectSpec, TargetValues } from './types.js';

export const DEFAULT_CATCH_UP_WINDOW_MS = 15 * 60_000;

/**
 * Walking a rule's occurrences since its stored due time stops after this many; the rest of an outage that
 * long is skipped up to the catch-up window (history keeps at most 32 records per list anyway).
 */
const MAX_CATCH_UP_STEPS = 10_000;
/** Per rule, only the newest due occurrences are planned: one to apply plus at most 32 failure records. */
const MAX_PLANNED_PER_RULE = 33;

/** What the service stores per rule between runs. */
export interface RuleState {
  ruleName: string;
  /** What `nextDue` was computed from (schedule, resolved zone, suspend); a change restarts the rule's clock. */
  clock: string;
  /** The next fire time (ISO 8601), stored so a restart never recomputes it from "now"; null when suspended. */
  nextDue: string | null;
}

export interface CronPlanInput {
  object: CronObjectSpec;
  /** The stored per-rule state; empty for an object never planned before. */
  state: readonly RuleState[];
  now: Date;
  /** How late a missed occurrence may still be applied. Default 15 minutes. */
  catchUpWindowMs?: number;
  /** The zone of rules without `timeZone`. Default UTC. */
  defaultTimeZone?: string;
}

/** An occurrence to apply now, with only the fields it wins. */
export interface DueExecution {
  ruleName: string;
  scheduleTime: Date;
  values: TargetValues;
}

/** An occurrence that will not be applied: to record as a failed execution. */
export interface MissedExecution {
  ruleName: string;
  scheduleTime: Date;
  message: string;
}

/** An occurrence on a date the rule's `excludeDates` name: not applied, recorded as skipped with the entry. */
export interface SkippedExecution {
  ruleName: string;
  scheduleTime: Date;
  /** The `excludeDates` entry that names the date. */
  excludeDate: string;
  message: string;
}

export interface CronPlan {
  /** In the order to apply them: by schedule time, then spec order (the last one of a tie ends on the target). */
  execute: DueExecution[];
  /** Oldest first. */
  missed: MissedExecution[];
  /** Occurrences on excluded dates, oldest first (also those past the catch-up window: the date decides, not the outage). */
  skipped: SkippedExecution[];
  /** Per rule name, at least this many due occurrences left unrecorded because the outage outran the planning bounds. */
  unrecorded: Record<string, number>;
  /** The new state of every rule, in spec order. */
  state: RuleState[];
  /** Rules in the stored state that are gone from spec (deleted or renamed): their history goes. */
  removed: string[];
  /** True when `state` differs from the stored state (something to write and publish). */
  stateChanged: boolean;
  /** The earliest next due time, when the service should plan again; undefined if every rule is suspended. */
  nextWakeAt: Date | undefined;
}

interface Occurrence {
  ruleIndex: number;
  ruleName: string;
  at: number;
  values: TargetValues;
}

const FIELDS = ['replicas', 'minReplicas', 'maxReplicas'] as const;

/** A rule's clock identity. Target values and history limits are left out: editing them keeps the due time. */
export function ruleClock(rule: CronFederatedHPARule, defaultTimeZone: string = DEFAULT_CONTROLLER_TIME_ZONE): string {
  return JSON.stringify([rule.schedule, resolveTimeZone(rule.timeZone, defaultTimeZone), rule.suspend === true]);
}

function formatWindow(ms: number): string {
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${sec || s === 0 ? `${sec}s` : ''}`;
}

/**
 * Decides what a CronFederatedHPA's rules do at `now`, from the stored per-rule state.
 *
 * 1. A new, edited (schedule, zone, suspend) or unsuspended rule gets its first fire time strictly after `now`.
 * 2. A suspended rule gets no due time and no executions.
 * 3. For the others every occurrence from the stored due time up to `now` is due. Within the catch-up window,
 *    for each target field the latest due occurrence across all rules wins (ties: all of them, in spec order);
 *    an occurrence that wins no field is recorded as missed. Outside the window occurrences are recorded as
 *    missed and not applied. Normally, firing on time, exactly one occurrence per rule is due and it applies.
 * 4. Rules in the state but not in spec are reported as removed.
 * 5. An occurrence on a date the rule's `excludeDates` name (in the rule's zone) is skipped: it neither applies
 *    nor supersedes another rule's occurrence, and the rule's clock moves on past it.
 */
export function planCronExecutions(input: CronPlanInput): CronPlan {
  const { object, now } = input;
  const nowMs = now.getTime();
  if (Number.isNaN(nowMs)) throw new RangeError('planCronExecutions: `now` is an invalid Date');
  const windowMs = input.catchUpWindowMs ?? DEFAULT_CATCH_UP_WINDOW_MS;
  if (!(windowMs >= 0)) throw new RangeError(`catchUpWindowMs: must be >= 0, got ${windowMs}`);
  const defaultTz = input.defaultTimeZone ?? DEFAULT_CONTROLLER_TIME_ZONE;
  const kind = targetKindOf(object.spec.scaleTargetRef);
  const prevByName = new Map(input.state.map((s) => [s.ruleName, s]));
  const rules = object.spec.rules ?? [];
  const windowStart = nowMs - windowMs;

  const occurrences: Occurrence[] = [];
  const unrecorded: Record<string, number> = {};
  const state: RuleState[] = [];
  const skipped: Array<SkippedExecution & { ruleIndex: number }> = [];

  rules.forEach((rule, ruleIndex) => {
    const clock = ruleClock(rule, defaultTz);
    if (rule.suspend === true) {
      state.push({ ruleName: rule.name, clock, nextDue: null });
      return;
    }
    const schedule = parseSchedule(rule.schedule);
    const next = (after: number): number => nextFireTime(schedule, rule.timeZone, new Date(after), defaultTz).getTime();
    const prev = prevByName.get(rule.name);
    if (!prev || prev.clock !== clock || prev.nextDue === null) {
      state.push({ ruleName: rule.name, clock, nextDue: new Date(next(nowMs)).toISOString() });
      return;
    }
    let due = Date.parse(prev.nextDue);
    const values = ruleValues(rule, kind);
    const dueTimes: number[] = [];
    let steps = 0;
    let dropped = 0;
    while (due <= nowMs) {
      dueTimes.push(due);
      if (dueTimes.length > MAX_PLANNED_PER_RULE) {
        dueTimes.shift();
        dropped++;
      }
      if (++steps === MAX_CATCH_UP_STEPS && due < windowStart) {
        // Jump over the rest of a very long outage, but still find every occurrence inside the window.
        const resumed = next(windowStart - 1);
        dropped += 1; // at least the one jumped over; the exact count is not worth walking for
        due = resumed;
        continue;
      }
      due = next(due);
    }
    if (dropped) unrecorded[rule.name] = dropped;
    const zone = resolveTimeZone(rule.timeZone, defaultTz);
    for (const at of dueTimes) {
      const scheduleTime = new Date(at);
      const excludeDate = excludingEntry(rule.excludeDates, scheduleTime, zone);
      if (excludeDate === undefined) occurrences.push({ ruleIndex, ruleName: rule.name, at, values });
      else
        skipped.push({
          ruleIndex,
          ruleName: rule.name,
          scheduleTime,
          excludeDate,
          message: excludedMessage(scheduleTime, zone, excludeDate),
        });
    }
    state.push({ ruleName: rule.name, clock, nextDue: new Date(due).toISOString() });
  });

  // Per field, the latest in-window occurrence that sets it.
  const latest = new Map<(typeof FIELDS)[number], Occurrence>();
  for (const o of occurrences) {
    if (o.at < windowStart) continue;
    for (const f of FIELDS) {
      if (o.values[f] === undefined) continue;
      const cur = latest.get(f);
      if (!cur || o.at > cur.at || (o.at === cur.at && o.ruleIndex > cur.ruleIndex)) latest.set(f, o);
    }
  }

  const execute: Array<DueExecution & { ruleIndex: number }> = [];
  const missed: Array<MissedExecution & { ruleIndex: number }> = [];
  for (const o of occurrences) {
    const scheduleTime = new Date(o.at);
    if (o.at < windowStart) {
      missed.push({
        ruleIndex: o.ruleIndex,
        ruleName: o.ruleName,
        scheduleTime,
        message: `missed: the scheduler was not running at ${formatTime(scheduleTime)} and recovered at ${formatTime(now)}, more than the catch-up window (${formatWindow(windowMs)}) later; not applied`,
      });
      continue;
    }
    const won: TargetValues = {};
    for (const f of FIELDS) {
      const w = latest.get(f);
      if (w && o.values[f] !== undefined && w.at === o.at) won[f] = o.values[f];
    }
    if (Object.keys(won).length || Object.keys(o.values).length === 0) {
      // A rule with nothing to set for this target still runs, so its failure is recorded by the effect.
      execute.push({ ruleIndex: o.ruleIndex, ruleName: o.ruleName, scheduleTime, values: won });
      continue;
    }
    const by = FIELDS.filter((f) => o.values[f] !== undefined)
      .map((f) => latest.get(f))
      .find((w) => w !== undefined);
    missed.push({
      ruleIndex: o.ruleIndex,
      ruleName: o.ruleName,
      scheduleTime,
      message: `missed: the scheduler was not running at ${formatTime(scheduleTime)}; superseded by ${by ? `rule "${by.ruleName}" at ${formatTime(new Date(by.at))}` : 'a later execution'}, which sets the same fields; not applied`,
    });
  }

  const order = (a: { scheduleTime: Date; ruleIndex: number }, b: { scheduleTime: Date; ruleIndex: number }): number =>
    a.scheduleTime.getTime() - b.scheduleTime.getTime() || a.ruleIndex - b.ruleIndex;
  execute.sort(order);
  missed.sort(order);
  skipped.sort(order);

  const inSpec = new Set(rules.map((r) => r.name));
  const removed = input.state.filter((s) => !inSpec.has(s.ruleName)).map((s) => s.ruleName);
  const stateChanged =
    removed.length > 0 ||
    state.length !== input.state.length ||
    state.some((s, i) => {
      const p = input.state[i];
      return !p || p.ruleName !== s.ruleName || p.clock !== s.clock || p.nextDue !== s.nextDue;
    });
  const dues = state.flatMap((s) => (s.nextDue === null ? [] : [Date.parse(s.nextDue)]));
  return {
    execute: execute.map(({ ruleIndex: _, ...e }) => e),
    missed: missed.map(({ ruleIndex: _, ...m }) => m),
    skipped: skipped.map(({ ruleIndex: _, ...s }) => s),
    unrecorded,
    state,
    removed,
    stateChanged,
    nextWakeAt: dues.length ? new Date(Math.min(...dues)) : undefined,
  };
}
