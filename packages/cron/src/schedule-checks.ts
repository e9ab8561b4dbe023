import type { ScheduleChecks } from '@flotilla/api';
import { excludeDateError } from './exclude-dates.js';
import { scheduleError } from './schedule.js';
import { timeZoneError } from './time-zone.js';

/** What admission asks of this package: every entry point passes it to `admit` so schedules are validated. */
export const scheduleChecks: ScheduleChecks = { scheduleError, timeZoneError, excludeDateError };
