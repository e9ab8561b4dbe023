import { CronExpressionParser } from 'cron-parser';

/**
 * Returns an error message when `expr` is not a schedule Flotilla can fire, otherwise undefined.
 * Placeholder contract: the cron package owner replaces the body with the one parser used for execution.
 */
export function scheduleError(expr: string): string | undefined {
  try {
    CronExpressionParser.parse(expr, { strict: false });
    return undefined;
  } catch (err) {
    return `invalid cron expression "${expr}": ${(err as Error).message}`;
  }
}
