import type { z } from 'zod';
import type { FieldError } from './errors.js';
import { joinPath } from './field-path.js';
import { isPlainObject } from './object.js';

/**
 * The object with every field a schema rejected taken out, when what remains passes the schema: semantic rules can
 * then judge the rest, so one answer lists a bad replica count and a bad schedule together (Kubernetes validates
 * all fields in one pass). Undefined when a rejected place cannot be taken out (an array item, a required field).
 */
export function typedRemainder(
  obj: Record<string, unknown>,
  schema: z.ZodType,
  issues: readonly z.core.$ZodIssue[],
): { object: Record<string, unknown>; removed: string[] } | undefined {
  const copy = structuredClone(obj);
  const removed: string[] = [];
  for (const issue of issues) {
    const paths =
      issue.code === 'unrecognized_keys' ? issue.keys.map((k) => [...issue.path, k]) : [issue.path as PropertyKey[]];
    for (const path of paths) {
      const last = path.at(-1);
      if (typeof last !== 'string') return undefined;
      let parent: unknown = copy;
      for (const seg of path.slice(0, -1)) parent = (parent as Record<PropertyKey, unknown> | undefined)?.[seg];
      if (!isPlainObject(parent)) return undefined;
      delete parent[last];
      removed.push(joinPath('', ...path));
    }
  }
  return schema.safeParse(copy).success ? { object: copy, removed } : undefined;
}

/** Semantic errors about a removed field, or about a field around it, restate (or follow from) its schema error. */
export function aboutRemoved(err: FieldError, removed: readonly string[]): boolean {
  const within = (inner: string, outer: string) =>
    inner === outer || outer === '' || inner.startsWith(`${outer}.`) || inner.startsWith(`${outer}[`);
  return removed.some((r) => within(err.field, r) || within(r, err.field));
}
