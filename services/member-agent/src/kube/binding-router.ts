import type { Informer, InformerEvent, StoredObject, Subscription } from '@flotilla/store';
import { refFromKey } from '@flotilla/store';

/**
 * What a driver is told of a binding: the informer's event, only when it names the driver's cluster now or before, and
 * whether it names it now.
 */
export type BindingHandler = (e: InformerEvent<StoredObject>, namesCluster: boolean) => void;

/** The cluster names of a binding's `spec.clusters`. */
function clusterNamesOf(binding: StoredObject): string[] {
  const targets = (binding.spec as { clusters?: unknown } | undefined)?.clusters;
  if (!Array.isArray(targets)) return [];
  const names: string[] = [];
  for (const t of targets) {
    const name = (t as { name?: unknown } | null)?.name;
    if (typeof name === 'string') names.push(name);
  }
  return names;
}

/**
 * One subscription to a binding informer for every cluster's driver in the process, which hands each change to the
 * drivers of the clusters the binding names now or named at its previous change (Karmada's execution controller
 * reaches a Work by its cluster's namespace the same way). A driver each looking at every change, and scanning its
 * `spec.clusters`, cost a 10,000-binding burst over 100 clusters more than their passes.
 */
export class BindingRouter {
  private static readonly routers = new WeakMap<Informer<StoredObject>, BindingRouter>();
  private readonly handlers = new Map<string, BindingHandler>();
  /** binding key → the clusters its last change named. */
  private readonly clustersOf = new Map<string, readonly string[]>();
  private sub: Subscription | undefined;

  private constructor(private readonly informer: Informer<StoredObject>) {}

  /** The router of `informer`, shared by every driver of the process. */
  static of(informer: Informer<StoredObject>): BindingRouter {
    let router = BindingRouter.routers.get(informer);
    if (!router) {
      router = new BindingRouter(informer);
      BindingRouter.routers.set(informer, router);
    }
    return router;
  }

  /**
   * `handler` gets the changes of the bindings naming `cluster` from now on, and first (once the informer is synced)
   * an upsert of each binding naming it already. Returns how to stop.
   */
  register(cluster: string, handler: BindingHandler): { synced: Promise<void>; unregister(): void } {
    this.handlers.set(cluster, handler);
    const late = this.sub !== undefined;
    this.sub ??= this.informer.subscribe((e) => this.route(e));
    const synced = this.sub.synced.then(() => {
      if (!late || this.handlers.get(cluster) !== handler) return;
      for (const [key, clusters] of this.clustersOf) {
        if (!clusters.includes(cluster)) continue;
        const ref = refFromKey(key);
        const value = this.informer.get(ref);
        if (value) handler({ type: 'upsert', key, ref, value, revision: 0 }, true);
      }
    });
    return {
      synced,
      unregister: () => {
        if (this.handlers.get(cluster) !== handler) return;
        this.handlers.delete(cluster);
        if (this.handlers.size === 0) {
          this.sub?.unsubscribe();
          this.sub = undefined;
          this.clustersOf.clear();
        }
      },
    };
  }

  private route(e: InformerEvent<StoredObject>): void {
    const before = this.clustersOf.get(e.key) ?? [];
    const now = e.type === 'upsert' ? clusterNamesOf(e.value) : [];
    if (now.length > 0) this.clustersOf.set(e.key, now);
    else this.clustersOf.delete(e.key);
    for (const cluster of now) this.handlers.get(cluster)?.(e, true);
    for (const cluster of before) if (!now.includes(cluster)) this.handlers.get(cluster)?.(e, false);
  }
}
