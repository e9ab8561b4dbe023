/**
 * What the kube driver needs from a member cluster's API server, as plain data. Implemented over
 * @kubernetes/client-node by `client-node-api.ts`; tests pass a fake.
 */
export interface KubeClusterApi {
  /** `gitVersion` of the API server, e.g. "v1.31.2"; rejects when the server does not answer. */
  version(): Promise<string>;
  listNodes(): Promise<KubeNode[]>;
  listPods(): Promise<KubePod[]>;
}

export type QuantityMap = Record<string, string | undefined>;

export interface KubeNode {
  metadata?: { name?: string };
  status?: { allocatable?: QuantityMap };
}

export interface KubeContainer {
  resources?: { requests?: QuantityMap };
}

export interface KubePod {
  metadata?: { name?: string; namespace?: string };
  spec?: { nodeName?: string; containers?: KubeContainer[]; initContainers?: KubeContainer[]; overhead?: QuantityMap };
  status?: { phase?: string };
}
