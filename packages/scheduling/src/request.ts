import { resourceUnits } from '@flotilla/api/core';
import type { ResourceList } from './types.js';

// Requests and usage in the estimator's units: what the estimate divides and what the assume cache adds up, on their
// own so that neither of the two imports the other for them.

/** Resource name → amount in estimator units (millicores for cpu, whole units otherwise, `pods` counted). */
export type Usage = ReadonlyMap<string, number>;

/** A per-replica resource request in the integer units the estimator divides in. */
export interface ParsedRequest {
  /** [resource name, amount] with cpu in millicores and everything else in whole units. */
  readonly entries: ReadonlyArray<readonly [string, number]>;
}

/** Parses `replicaRequirements.resourceRequest`; resources whose rounded-up value is 0 are ignored. */
export function parseResourceRequest(request: ResourceList | undefined): ParsedRequest | undefined {
  if (!request) return undefined;
  const entries: [string, number][] = [];
  for (const name of Object.keys(request)) {
    const units = resourceUnits(name, request[name]!);
    if (units <= 0) continue;
    entries.push([name, units]);
  }
  return entries.length > 0 ? { entries } : undefined;
}
