import type { KubeClusterApi, KubeNode, KubePod } from './kube-api.js';

/** The optional dependency the kube driver loads at start-up (not needed by the sim driver). */
export const CLIENT_NODE_PACKAGE = '@kubernetes/client-node';

/** The few parts of @kubernetes/client-node 1.x used here, typed locally so the package stays optional. */
interface ClientNodeModule {
  KubeConfig: new () => {
    loadFromDefault(): void;
    loadFromFile(path: string): void;
    makeApiClient<T>(api: new (...args: never[]) => T): T;
  };
  CoreV1Api: new (
    ...args: never[]
  ) => { listNode(): Promise<{ items: KubeNode[] }>; listPodForAllNamespaces(): Promise<{ items: KubePod[] }> };
  VersionApi: new (...args: never[]) => { getCode(): Promise<{ gitVersion: string }> };
}

export class KubeClientMissingError extends Error {
  override readonly name = 'KubeClientMissingError';
  constructor(options?: { cause?: unknown }) {
    super(
      `MEMBER_DRIVER=kube needs the package ${CLIENT_NODE_PACKAGE}@^1.4.0 (1.x runs on node 20; 2.x needs node 22), which is not installed`,
      options,
    );
  }
}

/** Connects to a member cluster through @kubernetes/client-node, from `kubeconfig` or the default lookup. */
export async function clientNodeApi(kubeconfig?: string): Promise<KubeClusterApi> {
  let k: ClientNodeModule;
  try {
    // A variable specifier keeps TypeScript and bundlers from requiring the optional package at build time.
    const specifier: string = CLIENT_NODE_PACKAGE;
    k = (await import(specifier)) as ClientNodeModule;
  } catch (cause) {
    throw new KubeClientMissingError({ cause });
  }
  const kc = new k.KubeConfig();
  if (kubeconfig) kc.loadFromFile(kubeconfig);
  else kc.loadFromDefault();
  const core = kc.makeApiClient(k.CoreV1Api);
  const version = kc.makeApiClient(k.VersionApi);
  return {
    version: async () => (await version.getCode()).gitVersion,
    listNodes: async () => (await core.listNode()).items,
    listPods: async () => (await core.listPodForAllNamespaces()).items,
  };
}
