import type { FieldError } from './errors.js';
import { joinPath } from './field-path.js';

/**
 * The deepest nesting of maps and lists admitted. No kind Flotilla stores nests beyond a few dozen levels; the bound
 * keeps every recursive step after it (YAML, cloning, schema checks) far from the stack limit.
 */
export const MAX_NESTING_DEPTH = 100;

/** Keys that would reach Object.prototype when assigned to a plain object (zod's records and most merges do). */
const PROTOTYPE_KEY = '__proto__';

/**
 * What no object may contain, whatever its kind: nesting deeper than MAX_NESTING_DEPTH, numbers JSON cannot carry
 * (NaN, ±Infinity: they would arrive as null), and `__proto__` as a key (unless `prototypeKeys` is 'allowed': a
 * parser whose output is checked again later may keep it as the own key it is). Returns one error per offending place; the
 * walk never descends below the depth limit, so it cannot overflow the stack itself.
 */
export function inputShapeErrors(value: unknown, opts: { prototypeKeys?: 'allowed' } = {}): FieldError[] {
  const errs: FieldError[] = [];
  const walk = (v: unknown, at: string, depth: number): void => {
    if (typeof v === 'number' && !Number.isFinite(v)) {
      errs.push({ field: at, message: `Invalid value: ${v}: must be a finite number` });
      return;
    }
    if (typeof v !== 'object' || v === null) return;
    if (depth >= MAX_NESTING_DEPTH) {
      errs.push({ field: at, message: `Invalid value: nested more than ${MAX_NESTING_DEPTH} levels deep` });
      return;
    }
    if (Array.isArray(v)) {
      for (const [i, item] of v.entries()) walk(item, joinPath(at, i), depth + 1);
      return;
    }
    for (const [k, item] of Object.entries(v)) {
      if (k === PROTOTYPE_KEY && opts.prototypeKeys !== 'allowed') {
        errs.push({ field: `${at}[${k}]`, message: `Forbidden: "${k}" is not allowed as a key` });
        continue;
      }
      walk(item, joinPath(at, k), depth + 1);
    }
  };
  walk(value, '', 0);
  return errs;
}
