/** Distinct values a SharedValues keeps before it starts over (policies and cluster sets are few). */
export const SHARED_VALUES_LIMIT = 1024;

/**
 * Equal parts of many cached objects kept once: FederatedHPAs made from one template share their assignment policy
 * and metrics, and bindings their feasible clusters and often their placement; each is decoded as a copy of its own
 * (the hpa-assigner's 10,000 FederatedHPAs held some 900 B of policy and 500 B of binding clusters each). A shared
 * value is frozen, so that a reader that changed one object's copy in place would throw instead of changing every
 * object's. Past `limit` distinct values it forgets them and shares anew (what is cached keeps its copy). Strings
 * are shared as themselves: one copy of each, where every decoded object had its own.
 */
export class SharedValues {
  private readonly byJson = new Map<string, unknown>();

  constructor(private readonly limit = SHARED_VALUES_LIMIT) {}

  share<T>(value: T): T {
    if (value === undefined || value === null) return value;
    const json = typeof value === 'string' ? value : JSON.stringify(value);
    const known = this.byJson.get(json);
    if (known !== undefined) return known as T;
    if (this.byJson.size >= this.limit) this.byJson.clear();
    this.byJson.set(json, deepFreeze(value));
    return value;
  }

  /** How many distinct values are shared now. */
  get size(): number {
    return this.byJson.size;
  }
}

/** `v` and everything in it frozen (an informer's shared values: a change in place throws). */
export function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    for (const child of Object.values(v)) deepFreeze(child);
    Object.freeze(v);
  }
  return v;
}
