import type { ListWatchClient, RawObject, ResourceInfo } from '@flotilla/kube-client';

// A simulated member cluster's API objects: what kube-apiserver and etcd keep, in memory. One resourceVersion counter
// for the whole cluster, list and watch per kind (the informers' ListWatchClient, so the kube driver's own informers
// read it), and a short log per kind so that a watch opened after a list sees what changed in between (or 410 Gone).

/** The simulated API server is down: what a request to a member cluster that does not answer gets. */
export class SimulatedClusterDownError extends Error {
  override readonly name = 'SimulatedClusterDownError';

  constructor(readonly cluster: string) {
    super(`member cluster "${cluster}" is not reachable: its simulated API server is down (cluster fail)`);
  }
}

export const isSimulatedClusterDown = (err: unknown): err is SimulatedClusterDownError =>
  err instanceof SimulatedClusterDownError;

/** Kinds served cluster-scoped; every other kind a manifest names is served namespaced. */
const CLUSTER_SCOPED = new Set([
  'Namespace',
  'Node',
  'PersistentVolume',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'StorageClass',
  'PriorityClass',
  'IngressClass',
  'RuntimeClass',
  'APIService',
  'MutatingWebhookConfiguration',
  'ValidatingWebhookConfiguration',
]);

/**
 * How many changes per kind a watch may resume from; older than that, the watch is told 410 Gone and lists again. A
 * watch here opens right after its list (no network between them), so a short log covers the gap.
 */
const WATCH_LOG_LENGTH = 100;

type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

interface Watcher {
  onEvent(type: string, object: RawObject): void;
  done(err: unknown): void;
}

interface KindStore {
  objects: Map<string, RawObject>;
  watchers: Set<Watcher>;
  log: Array<{ rv: number; type: WatchEventType; object: RawObject }>;
  /** The resourceVersion of the newest change no longer in the log: a watch from before it is too old. */
  droppedRv: number;
}

const keyOf = (namespace: string | undefined, name: string) => `${namespace ?? ''}/${name}`;
export const kindKeyOf = (apiVersion: string, kind: string) => `${apiVersion}/${kind}`;

/**
 * The objects of one simulated cluster. Stored objects are never changed in place (a change stores a new object), so
 * what a list or a watch handed out stays as it was. Watch events are delivered synchronously, in order.
 */
export class SimObjects {
  private readonly kinds = new Map<string, KindStore>();
  private rv = 0;
  private up = true;

  constructor(readonly cluster: string) {}

  /** Whether the API server answers. */
  get answering(): boolean {
    return this.up;
  }

  /** The API server goes away (every open watch ends with an error) or comes back. */
  setAnswering(up: boolean): void {
    if (up === this.up) return;
    this.up = up;
    if (up) return;
    for (const store of this.kinds.values()) {
      const watchers = [...store.watchers];
      store.watchers.clear();
      for (const w of watchers) w.done(new SimulatedClusterDownError(this.cluster));
    }
  }

  /** Throws what a request to an API server that does not answer gets. */
  assertAnswering(): void {
    if (!this.up) throw new SimulatedClusterDownError(this.cluster);
  }

  resourceInfo(apiVersion: string, kind: string): ResourceInfo {
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
    return {
      group: group!,
      version: version!,
      plural: `${kind.toLowerCase()}s`,
      namespaced: !CLUSTER_SCOPED.has(kind),
    };
  }

  get(apiVersion: string, kind: string, namespace: string | undefined, name: string): RawObject | undefined {
    return this.kinds.get(kindKeyOf(apiVersion, kind))?.objects.get(keyOf(namespace, name));
  }

  /** Every object of a kind (not a copy: read only). */
  list(apiVersion: string, kind: string): Iterable<RawObject> {
    return this.kinds.get(kindKeyOf(apiVersion, kind))?.objects.values() ?? [];
  }

  /**
   * Stores `object` (created or replaced) with the next resourceVersion, a uid and creation time kept from the
   * object it replaces, and tells the kind's watchers. Returns what was stored.
   */
  put(object: RawObject): RawObject {
    const { apiVersion, kind } = object as { apiVersion: string; kind: string };
    const md = object.metadata ?? {};
    const store = this.store(apiVersion, kind);
    const key = keyOf(md.namespace, md.name!);
    const before = store.objects.get(key);
    const stored: RawObject = {
      ...object,
      metadata: {
        ...md,
        uid: before?.metadata?.uid ?? `${this.cluster}-${this.rv + 1}`,
        creationTimestamp: before?.metadata?.creationTimestamp ?? new Date().toISOString(),
        resourceVersion: String(++this.rv),
      },
    };
    store.objects.set(key, stored);
    this.emit(store, before ? 'MODIFIED' : 'ADDED', stored);
    return stored;
  }

  /** Deletes an object; false when there was none. */
  delete(apiVersion: string, kind: string, namespace: string | undefined, name: string): boolean {
    const store = this.kinds.get(kindKeyOf(apiVersion, kind));
    const key = keyOf(namespace, name);
    const before = store?.objects.get(key);
    if (!store || !before) return false;
    store.objects.delete(key);
    this.emit(store, 'DELETED', { ...before, metadata: { ...before.metadata, resourceVersion: String(++this.rv) } });
    return true;
  }

  /** List and watch of one kind, as an informer uses them; both fail while the API server is down. */
  listWatch(apiVersion: string, kind: string): ListWatchClient {
    return {
      list: async () => {
        this.assertAnswering();
        const store = this.store(apiVersion, kind);
        return { items: [...store.objects.values()], resourceVersion: String(this.rv) };
      },
      watch: async (params, onEvent, done) => {
        this.assertAnswering();
        const store = this.store(apiVersion, kind);
        const from = Number(params.resourceVersion ?? 0);
        if (from < store.droppedRv) {
          onEvent('ERROR', { kind: 'Status', code: 410, message: `too old resource version: ${from}` } as RawObject);
          return { abort: () => undefined };
        }
        for (const e of store.log) if (e.rv > from) onEvent(e.type, e.object);
        const watcher: Watcher = { onEvent, done };
        store.watchers.add(watcher);
        return { abort: () => store.watchers.delete(watcher) };
      },
    };
  }

  private store(apiVersion: string, kind: string): KindStore {
    const k = kindKeyOf(apiVersion, kind);
    let store = this.kinds.get(k);
    if (!store) {
      store = { objects: new Map(), watchers: new Set(), log: [], droppedRv: 0 };
      this.kinds.set(k, store);
    }
    return store;
  }

  private emit(store: KindStore, type: WatchEventType, object: RawObject): void {
    store.log.push({ rv: this.rv, type, object });
    if (store.log.length > WATCH_LOG_LENGTH) store.droppedRv = store.log.shift()!.rv;
    for (const w of [...store.watchers]) w.onEvent(type, object);
  }
}
