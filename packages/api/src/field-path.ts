import type { z } from 'zod';
import type { FieldError } from './errors.js';

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Joins path segments the way Kubernetes prints field paths: `spec.rules[1].schedule`, `metadata.labels[app.kubernetes.io/name]`. */
export function joinPath(base: string, ...segments: ReadonlyArray<PropertyKey>): string {
  let out = base;
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (typeof s === 'string' && IDENT.test(s)) out += out ? `.${s}` : s;
    else out += `[${String(s)}]`;
  }
  return out;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  if (typeof value === 'string')
    return `string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'number') return `number ${value}`;
  return typeof value;
}

const EXPECTED: Record<string, string> = {
  int: 'integer',
  number: 'number',
  string: 'string',
  boolean: 'boolean',
  object: 'object',
  array: 'array',
  record: 'object',
};

function issueMessage(issue: z.core.$ZodIssue): string {
  const input = (issue as { input?: unknown }).input;
  if (input === undefined && (issue.code === 'invalid_union' || issue.code === 'invalid_type')) return 'Required value';
  switch (issue.code) {
    case 'invalid_type': {
      const expected = EXPECTED[issue.expected] ?? issue.expected;
      return `Invalid value: expected ${expected}, got ${describe(input)}`;
    }
    case 'invalid_value':
      return `Unsupported value: ${JSON.stringify(input)}: supported values: ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'too_small': {
      const min = Number(issue.minimum);
      if (issue.origin === 'array') return `Invalid value: must have at least ${min} item${min === 1 ? '' : 's'}`;
      if (issue.origin === 'string')
        return min === 1 ? 'Required value: must not be empty' : `Invalid value: must be at least ${min} characters`;
      return `Invalid value: ${describe(input)}: must be greater than ${issue.inclusive ? 'or equal to ' : ''}${min}`;
    }
    case 'too_big': {
      const max = Number(issue.maximum);
      if (issue.origin === 'array') return `Too many: must have at most ${max} items`;
      if (issue.origin === 'string') return `Too long: must have at most ${max} characters`;
      return `Invalid value: ${describe(input)}: must be less than ${issue.inclusive ? 'or equal to ' : ''}${max}`;
    }
    case 'invalid_union':
      return `Invalid value: ${describe(input)}: ${issue.message}`;
    case 'invalid_format':
      return `Invalid value: ${describe(input)}: ${issue.message}`;
    default:
      return issue.message;
  }
}

/** Turns zod issues into field errors under `base`; an unknown key becomes `path.key: unknown field "key"`. */
export function issuesToFieldErrors(issues: readonly z.core.$ZodIssue[], base = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of issues) {
    const at = joinPath(base, ...issue.path);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push({ field: joinPath(at, key), message: `unknown field "${key}"` });
      continue;
    }
    if (issue.code === 'invalid_union') {
      // A union whose branches all failed on one nested field is reported at that field, not at the union.
      const nested = issue.errors.find((branch) => branch.length > 0 && branch.every((i) => i.path.length > 0));
      if (nested) {
        out.push(...issuesToFieldErrors(nested, at));
        continue;
      }
    }
    out.push({ field: at, message: issueMessage(issue) });
  }
  return out;
}
