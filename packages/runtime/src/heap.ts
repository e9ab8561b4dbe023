import { setFlagsFromString } from 'node:v8';

/**
 * Bounds how far V8 lets the heap grow past what survived the last full collection. By default V8 may grow it up
 * to fourfold, so a controller whose informer caches hold 50 MiB sits at well over 200 MiB of resident memory after
 * a burst of garbage; at 25 % the heap stays near what is live for a little more collection work. The flag cannot
 * be given in NODE_OPTIONS, and V8 reads it at every collection, so it is set at start-up. 0 keeps V8's policy.
 */
export function applyHeapGrowth(percent: number, setFlags: (flags: string) => void = setFlagsFromString): void {
  if (percent > 0) setFlags(`--heap-growing-percent=${percent}`);
}
