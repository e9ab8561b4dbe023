import { InvalidRequestError, UnknownKindError, type FieldError } from './errors.js';
import { dns1123LabelErrors, dns1123SubdomainErrors } from './names.js';
import { admissionOf, resolveKind } from './registry.js';
import type { KindInfo } from './registry-types.js';

/** A get, list, delete or events request, checked: the kind resolved, the namespace and name valid for it. */
export interface ObjectQueryOf {
  info: KindInfo;
  /** Undefined for a cluster-scoped kind and when the request named none ("" counts as none, as in Kubernetes). */
  namespace: string | undefined;
  name: string | undefined;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'number' ? `number ${v}` : typeof v;
}

/** Problems of `name` as the name of an object of this kind: a DNS-1123 subdomain, or the kind's stricter label rule. */
export function objectNameErrors(info: KindInfo, name: string): string[] {
  const rule = admissionOf(info.kind)?.nameRule;
  return rule ? dns1123LabelErrors(name, rule.maxLength) : dns1123SubdomainErrors(name);
}

/**
 * Checks the `kind`, `namespace` and `name` of a request body before anything is built from them (KV keys, NATS
 * subjects): a name or namespace Kubernetes would refuse, and any wildcard, is rejected here with the field named.
 * `name: 'required'` for get and delete, `'optional'` for list (ignored) and events (a filter).
 * Throws InvalidRequestError listing every bad field.
 */
export function parseObjectQuery(body: unknown, opts: { name: 'required' | 'optional' }): ObjectQueryOf {
  const q = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const errs: FieldError[] = [];
  let info: KindInfo | undefined;
  if (q.kind === undefined || q.kind === '') errs.push({ field: 'kind', message: 'Required value' });
  else if (typeof q.kind !== 'string')
    errs.push({ field: 'kind', message: `Invalid value: expected string, got ${typeName(q.kind)}` });
  else {
    try {
      info = resolveKind(q.kind);
    } catch (err) {
      if (!(err instanceof UnknownKindError)) throw err;
      errs.push({ field: 'kind', message: `Invalid value: ${err.message}` });
    }
  }
  let namespace: string | undefined;
  if (q.namespace !== undefined && q.namespace !== '') {
    if (typeof q.namespace !== 'string')
      errs.push({ field: 'namespace', message: `Invalid value: expected string, got ${typeName(q.namespace)}` });
    else {
      for (const e of dns1123LabelErrors(q.namespace))
        errs.push({ field: 'namespace', message: `Invalid value: ${JSON.stringify(q.namespace)}: ${e}` });
      namespace = q.namespace;
    }
  }
  let name: string | undefined;
  if (q.name === undefined || q.name === '') {
    if (opts.name === 'required') errs.push({ field: 'name', message: 'Required value' });
  } else if (typeof q.name !== 'string')
    errs.push({ field: 'name', message: `Invalid value: expected string, got ${typeName(q.name)}` });
  else {
    name = q.name;
    // Without a kind the name rule is unknown; the subdomain rule is the loosest, so nothing valid is refused.
    const nameErrs = info ? objectNameErrors(info, name) : dns1123SubdomainErrors(name);
    for (const e of nameErrs) errs.push({ field: 'name', message: `Invalid value: ${JSON.stringify(name)}: ${e}` });
  }
  if (errs.length || !info) throw new InvalidRequestError(errs);
  return { info, namespace: info.namespaced ? namespace : undefined, name };
}
