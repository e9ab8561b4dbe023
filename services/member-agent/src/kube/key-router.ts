import type { Informer, InformerEvent, Subscription } from '@flotilla/store';

/** What a driver is told of a key it watches: the informer's event. */
export type KeyHandler<T> = (e: InformerEvent<T>) => void;

/**
 * One subscription to a shared informer for every driver of the process, which hands a key's changes only to the
 * drivers watching that key: each its own Cluster's object and status, the templates its bindings name. A hundred
 * drivers each subscribed to every change of the templates and statuses cost more than their passes (a 10,000-binding
 * burst's 20,000 status writes were 2,000,000 deliveries). BindingRouter does the same by the clusters a binding names.
 */
export class KeyRouter<T> {
  private static readonly routers = new WeakMap<object, KeyRouter<unknown>>();
  private readonly handlers = new Map<string, Set<KeyHandler<T>>>();
  private sub: Subscription | undefined;

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

  /** Resolves once the informer's cache holds every value (the router's one subscription has seen them). */
  get synced(): Promise<void> {
    this.sub ??= this.informer.subscribe((e) => this.route(e));
    return this.sub.synced;
  }

  /** `handler` gets the changes of `key` from now on; returns how to stop. */
  watch(key: string, handler: KeyHandler<T>): () => void {
    void this.synced;
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
    };
  }

  private route(e: InformerEvent<T>): void {
    const set = this.handlers.get(e.key);
    if (!set) return;
    for (const handler of [...set]) handler(e);
  }
}
