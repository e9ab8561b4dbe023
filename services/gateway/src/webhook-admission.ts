import {
  admissionWarnings,
  admit,
  isPlainObject,
  kindOf,
  type KubeObject,
  type ReservedNamespaces,
} from '@flotilla/api';
import { scheduleChecks } from '@flotilla/cron';
import type { ResourceTemplate } from '@flotilla/scheduling';

/**
 * The webhook's judgment of an object that is not a template in a reserved namespace: admitted as an apply is (the
 * reserved namespaces included), against `existing` (the review's oldObject) on an update; returns admission's
 * warnings, throws AdmissionError. It needs no state of the gateway's, so the webhook thread judges with it too.
 */
export function admitForWebhook(
  object: unknown,
  opts: { existing?: unknown; reservedNamespaces: ReservedNamespaces },
): string[] {
  const admitted = admit(object, {
    schedules: scheduleChecks,
    reservedNamespaces: opts.reservedNamespaces,
    ...(isPlainObject(opts.existing) ? { existing: opts.existing as unknown as KubeObject } : {}),
  });
  return admissionWarnings(admitted);
}

/**
 * `object` when it is a resource template (a registered kind Flotilla does not validate whole) in a reserved
 * namespace (its own, else the request's), with that namespace filled in; undefined otherwise. Such a template is
 * judged against the policies the gateway holds (decideReservedTemplate).
 */
export function reservedTemplateOf(
  object: unknown,
  requestNamespace: string | undefined,
  reserved: ReservedNamespaces,
): ResourceTemplate | undefined {
  if (!isPlainObject(object) || !isPlainObject(object.metadata)) return undefined;
  const { apiVersion, kind } = object;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return undefined;
  let strict: boolean;
  try {
    strict = kindOf(apiVersion, kind).strict;
  } catch {
    return undefined; // an unknown kind is admission's to refuse
  }
  const own = object.metadata.namespace;
  const namespace = typeof own === 'string' && own !== '' ? own : requestNamespace;
  if (strict || !reserved.has(namespace)) return undefined;
  return { ...object, metadata: { ...object.metadata, namespace } } as unknown as ResourceTemplate;
}
