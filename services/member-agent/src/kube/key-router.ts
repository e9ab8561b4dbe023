import type { WatchSource } from '@flotilla/controller';
import type { Informer, InformerEvent, Subscription } from '@flotilla/store';

/** What a driver is told of a key it watches: the informer's event. */
export type KeyHandler<T> = (e: InformerEvent<T>) => void;

/**
 * One subscription to a shared informer for every driver of the process, which hands a key's changes only to the
 * drivers watching that key: each its own Cluster's status, the templates its bindings name. A hundred
 * drivers each subscribed to every change of the templates and statuses cost more than their passes (a 10,000-binding
 * burst's 20,000 status writes were 2,000,000 deliveries). BindingRouter does the same by the clusters a binding names.
 */
export class KeyRouter<T> {
  private static readonly routers = new WeakMap<object, KeyRouter<unknown>>();
  private readonly handlers = new Map<string, Set<KeyHandler<T>>>();
  private sub: Subscription | undefined;
  /** Drivers holding the router (each watch holds it too): the last to let go ends its subscription. */
  private holders = 0;

  private constructor(private readonly informer: Informer<T>) {}

  /** The router of `informer`, shared by every driver of the process. */
  static of<T>(informer: Informer<T>): KeyRouter<T> {
    let router = KeyRouter.routers.get(informer) as KeyRouter<T> | undefined;
    if (!router) {
      router = new KeyRouter(informer);
      KeyRouter.routers.set(informer, router as KeyRouter<unknown>);
    }
    return router;
  }

  /**
   * Keeps the router's subscription (and so the informer) running until `release`; `synced` resolves once the cache
   * holds every value. A driver that reads the informer holds it while it runs.
   */
  hold(): { synced: Promise<void>; release(): void } {
    this.holders++;
    this.sub ??= this.informer.subscribe((e) => this.route(e));
    let held = true;
    return {
      synced: this.sub.synced,
      release: () => {
        if (!held) return;
        held = false;
        if (--this.holders > 0) return;
        this.sub?.unsubscribe();
        this.sub = undefined;
      },
    };
  }

  /** `handler` gets the changes of `key` from now on; returns how to stop. */
  watch(key: string, handler: KeyHandler<T>): () => void {
    const held = this.hold();
    let set = this.handlers.get(key);
    if (!set) {
      set = new Set();
      this.handlers.set(key, set);
    }
    set.add(handler);
    return () => {
      const now = this.handlers.get(key);
      if (!now?.delete(handler)) return;
      if (now.size === 0) this.handlers.delete(key);
      held.release();
    };
  }

  /**
   * The informer seen through one key, as a kit controller's watch source: a controller keyed by its driver's Cluster
   * is told of that Cluster's changes only, through the router's one subscription. A thousand drivers each subscribed
   * to the Cluster informer were a million deliveries while a thousand Clusters were applied. Its size is the
   * informer's (the objects gauge counts the kind, not the key).
   */
  source(key: string): WatchSource<InformerEvent<T>> {
    const informer = this.informer;
    return {
      kind: informer.kind,
      bucket: informer.bucket,
      get size() {
        return informer.size;
      },
      keys: () => (informer.cache.has(key) ? [key] : []),
      subscribe: (handler) => {
        const unwatch = this.watch(key, (e) => void handler(e));
        return { synced: this.sub!.synced, unsubscribe: unwatch };
      },
    };
  }

  private route(e: InformerEvent<T>): void {
    const set = this.handlers.get(e.key);
    if (!set) return;
    for (const handler of [...set]) handler(e);
  }
}
