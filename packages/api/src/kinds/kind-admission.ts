import type { z } from 'zod';
import type { FieldError } from '../errors.js';
import type { KindInfo } from '../registry-types.js';
import type { ReservedNamespaces } from '../reserved-namespaces.js';

/**
 * Checks of cron schedules and IANA time zones. They live in the cron package, above this one; its entry points
 * (gateway, cli) pass them in, so the API depends on no domain package.
 */
export interface ScheduleChecks {
  /** Why a five-field cron expression is invalid, or undefined when it is valid. */
  scheduleError(expr: string): string | undefined;
  /** Why a time zone name is unknown, or undefined when it is known ("" means UTC). */
  timeZoneError(timeZone: string): string | undefined;
  /** Why an entry of a CronFederatedHPA rule's `excludeDates` names no days, or undefined when it is valid. */
  excludeDateError(entry: string): string | undefined;
}

/** What a kind's semantic validation may ask of the rest of the system (kept as a parameter to avoid import cycles). */
export interface AdmissionContext {
  /** The registered kind for an apiVersion/kind pair, or an error message when there is none. */
  lookupKind(apiVersion: string, kind: string): KindInfo | string;
  /** Absent when the caller checks schedules elsewhere: then only their structure is validated. */
  schedules?: ScheduleChecks;
  /** The namespaces no object may be in, nor select templates in (AdmitOptions.reservedNamespaces). */
  reservedNamespaces: ReservedNamespaces;
}

/**
 * How one kind is admitted. `defaults` mutates a private copy and must tolerate wrong types (validation runs
 * after it); `validate` runs only when `schema` accepted the object, so it can trust the types.
 */
export interface KindAdmission {
  /** Schema of the whole object minus metadata (which admission checks itself). */
  schema: z.ZodType;
  defaults?(obj: Record<string, unknown>): void;
  validate?(obj: never, ctx: AdmissionContext): FieldError[];
  validateUpdate?(oldObj: never, newObj: never): FieldError[];
  /**
   * The references to other objects by apiVersion and kind (a scaleTargetRef, a policy's resourceSelectors), each
   * with its field path, of an admitted object: admission warns about an apiVersion the kind is not served as.
   */
  references?(obj: never): KindReference[];
  /**
   * A resource template propagated to member clusters whose schema checks only what Flotilla reads: it is not a
   * strict kind (KindInfo.strict), and the schedulers watch it as a template.
   */
  resourceTemplate?: true;
  /** Name rule for metadata.name when it is stricter than a DNS-1123 subdomain. */
  nameRule?: { label: true; maxLength: number };
}

/** A reference by apiVersion and kind inside an object, and where it is (`spec.scaleTargetRef`). */
export interface KindReference {
  at: string;
  apiVersion?: string | undefined;
  kind?: string | undefined;
}

/** Reads `obj[key]` as a plain object, or undefined. Defaulting uses it to stay safe on malformed input. */
export function objAt(obj: unknown, key: string): Record<string, unknown> | undefined {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return undefined;
  const v = (obj as Record<string, unknown>)[key];
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** Reads `obj[key]` as an array of plain objects (non-objects skipped), or []. */
export function objectsAt(obj: unknown, key: string): Record<string, unknown>[] {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return [];
  const v = (obj as Record<string, unknown>)[key];
  if (!Array.isArray(v)) return [];
  return v.filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x));
}
