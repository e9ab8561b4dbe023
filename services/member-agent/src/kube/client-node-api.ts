// client-node's modules one by one, not its index: the index loads every generated API (~20 MB of JavaScript, most of
// the agent's memory) where the driver needs these few; patches/ makes them load without the generated APIs too.
import { Health } from '@kubernetes/client-node/dist/health.js';
import type { PodMetric } from '@kubernetes/client-node/dist/metrics.js';
import { KubernetesObjectApi } from '@kubernetes/client-node/dist/object.js';
import {
  isNotFound,
  KubeApi,
  KubeApiError,
  KubeInformer,
  type KubeRequest,
  listWatchOf,
  loadPooledKubeConfig,
  type PooledKubeConfig,
  type RawList,
} from '@flotilla/kube-client';
import { cpuMilli } from '../resources.js';
import { kubeError } from './errors.js';
import type { MemberClusterApi, ResourceInfo } from './kube-api.js';
import type { Manifest, MemberRef } from './member-objects.js';

/**
 * metrics.k8s.io's pod metrics, read through KubeApi like every other request (client-node's Metrics reports a
 * request that got no answer as an HTTP 500).
 */
const POD_METRICS: ResourceInfo = { group: 'metrics.k8s.io', version: 'v1beta1', plural: 'pods', namespaced: true };

/** KubernetesObjectApi for its discovery (cached per group version): where a kind is served. */
class DiscoveryApi extends KubernetesObjectApi {
  async resourceInfo(apiVersion: string, kind: string): Promise<ResourceInfo | undefined> {
    const r = await this.resource(apiVersion, kind);
    if (!r) return undefined;
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
    return { group: group!, version: version!, plural: r.name, namespaced: r.namespaced };
  }
}

export interface ClientNodeApiOptions {
  /** The Cluster this agent speaks for (named in errors). */
  cluster: string;
  /** A kubeconfig file; unset: in-cluster config, or the default lookup (KUBECONFIG, ~/.kube/config). */
  kubeconfig?: string | undefined;
  /** Timeout of `/readyz` and `/version` (ms). */
  probeTimeoutMs?: number;
}

/** The kubeconfig the agent uses: a file (a mounted Secret), or in-cluster config, or the default lookup. */
export function loadKubeConfig(kubeconfig: string | undefined): PooledKubeConfig {
  return loadPooledKubeConfig(kubeconfig, 'default');
}

/** A member cluster through @flotilla/kube-client: the only way the kube driver talks to Kubernetes. */
export function clientNodeApi(opts: ClientNodeApiOptions): MemberClusterApi {
  const kc = loadKubeConfig(opts.kubeconfig);
  const api = new KubeApi(kc);
  const discovery = kc.makeApiClient(DiscoveryApi);
  const health = new Health(kc);
  const probeTimeoutMs = opts.probeTimeoutMs ?? 5000;
  const cluster = opts.cluster;
  /** A failed request as the agent reports it: naming the member cluster (and RBAC's rule on a 403). */
  const memberError = (err: unknown, fallback: KubeRequest) =>
    kubeError(cluster, err instanceof KubeApiError && err.request ? err.request : fallback, err);

  const resource = async (apiVersion: string, kind: string): Promise<ResourceInfo> => {
    let info: ResourceInfo | undefined;
    try {
      info = await discovery.resourceInfo(apiVersion, kind);
    } catch (err) {
      throw kubeError(
        cluster,
        {
          verb: 'get',
          group: apiVersion.includes('/') ? apiVersion.split('/')[0]! : '',
          resource: `discovery of ${apiVersion}`,
        },
        err,
      );
    }
    if (!info) throw new Error(`member cluster "${cluster}" does not serve ${kind} in ${apiVersion}`);
    return info;
  };
  const requestOf = (verb: string, info: ResourceInfo, ref: { namespace?: string; name: string }): KubeRequest => ({
    verb,
    group: info.group,
    resource: info.plural,
    ...(info.namespaced && ref.namespace ? { namespace: ref.namespace } : {}),
    name: ref.name,
  });

  return {
    async readyz() {
      return await health.readyz({ timeout: probeTimeoutMs, signal: AbortSignal.timeout(probeTimeoutMs) } as never);
    },
    async version() {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`/version did not answer within ${probeTimeoutMs} ms`)),
          probeTimeoutMs,
        );
      });
      try {
        return await Promise.race([api.gitVersion(), timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    resource,
    async informer(apiVersion, kind, io) {
      const info = await resource(apiVersion, kind);
      return new KubeInformer({
        ...io,
        name: io.name ?? `${apiVersion}/${kind}`,
        server: cluster,
        client: listWatchOf(api, info),
        request: { group: info.group, resource: info.plural },
        toError: (err, request) => kubeError(cluster, request, err),
      });
    },
    async apply(manifest: Manifest) {
      const info = await resource(manifest.apiVersion, manifest.kind);
      try {
        return await api.apply(info, manifest);
      } catch (err) {
        throw memberError(err, requestOf('patch', info, manifest.metadata));
      }
    },
    async remove(ref: MemberRef) {
      const info = await resource(ref.apiVersion, ref.kind);
      try {
        await api.delete(info, ref, { propagationPolicy: 'Background' });
      } catch (err) {
        if (isNotFound(err)) return;
        throw memberError(err, requestOf('delete', info, ref));
      }
    },
    async podCpuMilli(namespace: string) {
      let list: RawList<PodMetric>;
      try {
        list = await api.list<PodMetric>(POD_METRICS, { namespace });
      } catch (err) {
        throw kubeError(cluster, { verb: 'list', group: 'metrics.k8s.io', resource: 'pods', namespace }, err);
      }
      const out = new Map<string, number>();
      for (const p of list.items ?? []) {
        let sum = 0;
        for (const c of p.containers ?? [])
          sum += cpuMilli(c.usage?.cpu ?? '0', `pod ${namespace}/${p.metadata.name} usage`);
        out.set(p.metadata.name, sum);
      }
      return out;
    },
    close: () => kc.destroy(),
  };
}
