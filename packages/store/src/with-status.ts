import type { Informer } from './informer.js';
import type { StatusRecord } from './status-store.js';

/**
 * An object as its readers see it: the objects bucket keeps metadata and spec, the status bucket keeps status (only
 * the status writer writes there), and a reader joins the two by key, as `kubectl get` shows one object.
 */
export type WithStatus<O, S> = O & { status: S | undefined };

/** The cached object at `key` joined with its cached status (undefined before the first fold, or without a cache). */
export function withStatus<O, S>(
  object: O,
  key: string,
  statuses: Pick<Informer<StatusRecord<S>>, 'cache'> | undefined,
): WithStatus<O, S> {
  return { ...object, status: statuses?.cache.get(key)?.value.status };
}

/** Every cached object of `objects`, each joined with its cached status. */
export function allWithStatus<O, S>(
  objects: Pick<Informer<O>, 'cache'>,
  statuses: Pick<Informer<StatusRecord<S>>, 'cache'>,
): Array<WithStatus<O, S>> {
  return [...objects.cache.entries()].map(([key, { value }]) => withStatus(value, key, statuses));
}
