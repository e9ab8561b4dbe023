import { z } from 'zod';

/*
 * Field builders for environment variables. Each takes the raw string (or undefined when unset) and
 * yields a typed value, with messages written for operators ("expected a positive integer"), which
 * `loadConfig` completes with the variable name and the offending value.
 */

type Raw = string | undefined;

function fail(ctx: z.RefinementCtx, message: string): never {
  ctx.addIssue({ code: 'custom', message });
  return z.NEVER;
}

export interface EnvIntOptions {
  default?: number;
  min?: number;
  max?: number;
}

function describeIntRange(min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) return `expected an integer from ${min} to ${max}`;
  if (min === 1) return 'expected a positive integer';
  if (min === 0) return 'expected a non-negative integer';
  if (min !== undefined) return `expected an integer >= ${min}`;
  if (max !== undefined) return `expected an integer <= ${max}`;
  return 'expected an integer';
}

/** An integer in decimal digits only: "1e3", "0x10", " 5" and "5.0" are refused, not coerced. */
export function envInt(opts: EnvIntOptions & { default: number }): z.ZodType<number, Raw>;
export function envInt(opts?: EnvIntOptions): z.ZodType<number | undefined, Raw>;
export function envInt(opts: EnvIntOptions = {}): z.ZodType<number | undefined, Raw> {
  const expected = describeIntRange(opts.min, opts.max);
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return opts.default;
      if (!/^-?\d+$/.test(raw)) return fail(ctx, expected);
      const n = Number(raw);
      if (!Number.isSafeInteger(n)) return fail(ctx, expected);
      if (opts.min !== undefined && n < opts.min) return fail(ctx, expected);
      if (opts.max !== undefined && n > opts.max) return fail(ctx, expected);
      return n;
    });
}

/** A TCP port; 0 asks the OS for an ephemeral one. */
export function envPort(defaultPort: number): z.ZodType<number, Raw> {
  return envInt({ default: defaultPort, min: 0, max: 65535 });
}

export interface EnvStringOptions {
  default?: string;
  pattern?: RegExp;
  /** Shown instead of the bare pattern, e.g. "lower-case letters, digits and '-'". */
  patternHint?: string;
}

export function envString(opts: EnvStringOptions & { default: string }): z.ZodType<string, Raw>;
export function envString(opts?: EnvStringOptions): z.ZodType<string | undefined, Raw>;
export function envString(opts: EnvStringOptions = {}): z.ZodType<string | undefined, Raw> {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const v = raw ?? opts.default;
      if (v === undefined) return undefined;
      if (opts.pattern && !opts.pattern.test(v))
        return fail(ctx, `expected ${opts.patternHint ?? `a value matching ${opts.pattern}`}`);
      return v;
    });
}

/** A variable that must be set. */
export function envRequired(opts: Omit<EnvStringOptions, 'default'> = {}): z.ZodType<string, Raw> {
  const inner = envString(opts);
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return fail(ctx, 'required');
      const r = inner.safeParse(raw);
      if (!r.success) return fail(ctx, r.error.issues[0]?.message ?? 'invalid');
      return r.data as string;
    });
}

/** A URL whose scheme is one of `protocols` (without the colon), e.g. ['redis', 'rediss']. */
export function envUrl(opts: { protocols: readonly string[]; default: string }): z.ZodType<string, Raw> {
  const expected = `expected a URL starting with ${opts.protocols.map((p) => `${p}://`).join(' or ')}`;
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const v = raw ?? opts.default;
      let url: URL;
      try {
        url = new URL(v);
      } catch {
        return fail(ctx, expected);
      }
      if (!opts.protocols.includes(url.protocol.replace(/:$/, '')) || url.hostname === '') return fail(ctx, expected);
      return v;
    });
}

/**
 * A comma-separated list of URLs whose schemes are among `protocols` (the servers of one cluster); a single URL is a
 * list of one. A bad entry is named by its position.
 */
export function envUrlList(opts: { protocols: readonly string[]; default: string }): z.ZodType<string, Raw> {
  const one = envUrl(opts);
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const v = raw ?? opts.default;
      const entries = v.split(',').map((e) => e.trim());
      for (const [i, entry] of entries.entries()) {
        const r = one.safeParse(entry === '' ? '-' : entry);
        if (!r.success) {
          const what = r.error.issues[0]?.message ?? 'invalid';
          return fail(ctx, entries.length > 1 ? `entry ${i + 1}: ${what}` : what);
        }
      }
      return entries.join(',');
    });
}

export interface HostPort {
  host: string;
  port: number;
}

/** A comma-separated list of `host:port` (IPv6 hosts in brackets), e.g. Redis Sentinels; unset is undefined. */
export function envHostPortList(): z.ZodType<HostPort[] | undefined, Raw> {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return undefined;
      const out: HostPort[] = [];
      for (const [i, entry] of raw.split(',').entries()) {
        const m = /^\s*(\[[0-9a-fA-F:.]+\]|[^\s:,[\]]+):(\d{1,5})\s*$/.exec(entry);
        const port = m ? Number(m[2]) : 0;
        if (!m || port < 1 || port > 65535)
          return fail(ctx, `entry ${i + 1}: expected host:port with a port from 1 to 65535`);
        out.push({ host: (m[1] as string).replace(/^\[(.*)\]$/, '$1'), port });
      }
      return out;
    });
}

export function envEnum<const T extends readonly [string, ...string[]]>(
  values: T,
  defaultValue: T[number],
): z.ZodType<T[number], Raw> {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const v = raw ?? defaultValue;
      if (!(values as readonly string[]).includes(v)) return fail(ctx, `expected one of ${values.join(', ')}`);
      return v as T[number];
    });
}

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);

export function envBool(defaultValue: boolean): z.ZodType<boolean, Raw> {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return defaultValue;
      const v = raw.toLowerCase();
      if (TRUE.has(v)) return true;
      if (FALSE.has(v)) return false;
      return fail(ctx, 'expected true or false');
    });
}
