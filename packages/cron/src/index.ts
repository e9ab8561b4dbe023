export { timeZoneError } from './time-zone.js';
export { scheduleError } from './schedule.js';
