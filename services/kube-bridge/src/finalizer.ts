import type { AnyObject } from './content.js';

/**
 * The finalizer the bridge puts on every host object it mirrors (the kinds users write, not the ones only Flotilla
 * writes): the API server then keeps an object `kubectl delete` marked until the bridge has deleted Flotilla's copy
 * and taken the finalizer off, so `kubectl delete` (which waits by default) returns only once Flotilla let go too.
 * A host object left with it while no bridge runs stays Terminating; `kubectl patch … --type=json -p
 * '[{"op":"remove","path":"/metadata/finalizers"}]'` lets it go (deploy/README.md).
 */
export const MIRROR_FINALIZER = 'kube-bridge.flotilla.io/mirror';

export function hasMirrorFinalizer(o: AnyObject | undefined): boolean {
  return o?.metadata?.finalizers?.includes(MIRROR_FINALIZER) ?? false;
}

export function isDeleting(o: AnyObject | undefined): boolean {
  return Boolean(o?.metadata?.deletionTimestamp);
}

export interface FinalizerInput {
  /** The host object as the cache holds it, being deleted or not. */
  host: AnyObject | undefined;
  /** The bridge mirrors this object: a kind users write (a template only while a policy selects it). */
  mirrored: boolean;
  /** Flotilla holds the object after this reconcile's spec write (or delete). */
  inFlotilla: boolean;
}

/**
 * What the finalizer of one host object needs, decided after the spec is mirrored: put on an object mirrored on
 * both sides, taken off once the object is being deleted and Flotilla's copy is gone (never before: that is the
 * promise to `kubectl delete`), and taken off an object the bridge no longer mirrors (a template no policy selects
 * any more), so that it never blocks a deletion nobody will finish.
 */
export function decideFinalizer(input: FinalizerInput): 'add' | 'remove' | 'none' {
  const { host } = input;
  if (!host) return 'none';
  const has = hasMirrorFinalizer(host);
  if (!input.mirrored) return has ? 'remove' : 'none';
  if (isDeleting(host)) return has && !input.inFlotilla ? 'remove' : 'none';
  return !has && input.inFlotilla ? 'add' : 'none';
}

/** `finalizers` with the bridge's added or removed, others' kept in their order. */
export function withMirrorFinalizer(finalizers: readonly string[] | undefined, change: 'add' | 'remove'): string[] {
  const others = (finalizers ?? []).filter((f) => f !== MIRROR_FINALIZER);
  return change === 'add' ? [...others, MIRROR_FINALIZER] : others;
}
