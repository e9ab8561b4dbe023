// client-node's modules one by one, not its index: the index loads every generated API (~20 MB of JavaScript, most of
// the agent's memory) where the driver needs these few; patches/ makes them load without the generated APIs too.
import { Health } from '@kubernetes/client-node/dist/health.js';
import { Metrics, type PodMetricsList } from '@kubernetes/client-node/dist/metrics.js';
import { PatchStrategy } from '@kubernetes/client-node/dist/patch.js';
import type { KubernetesObject } from '@kubernetes/client-node/dist/types.js';
import { Watch } from '@kubernetes/client-node/dist/watch.js';
import { HttpMethod, loadPooledKubeConfig, type PooledKubeConfig, RawObjectApi } from '@flotilla/kube-client';
import { cpuMilli } from '../sim/resources.js';
import { kubeError, statusOf, type KubeRequest } from './errors.js';
import { MemberInformer, type ListWatchClient, type RawObject } from './informer.js';
import type { MemberClusterApi, ResourceInfo } from './kube-api.js';
import { FIELD_MANAGER, type Manifest, type MemberRef } from './member-objects.js';

/**
 * Raw requests (JSON as the API server sent it) with what the driver needs besides: discovery (to build watch
 * paths), paged lists, server-side apply and /version.
 */
class MemberObjectApi extends RawObjectApi {
  async resourceInfo(apiVersion: string, kind: string): Promise<ResourceInfo | undefined> {
    const r = await this.resource(apiVersion, kind);
    if (!r) return undefined;
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
    return { group: group!, version: version!, plural: r.name, namespaced: r.namespaced };
  }

  /** One page of every `kind` object, cluster-wide. */
  async listPage(
    apiVersion: string,
    kind: string,
    page: { labelSelector?: string | undefined; limit: number; continueToken?: string | undefined },
  ): Promise<{ items?: RawObject[]; metadata?: { resourceVersion?: string; continue?: string } }> {
    const path = await this.specUriPath({ apiVersion, kind, metadata: {} }, 'list');
    return await this.send(HttpMethod.GET, path, {
      query: { labelSelector: page.labelSelector || undefined, limit: page.limit, continue: page.continueToken },
    });
  }

  /** Server-side apply (forced, with `fieldManager`) of `manifest` as it is; returns the object. */
  async serverSideApply(manifest: Manifest, fieldManager: string): Promise<RawObject> {
    const path = await this.specUriPath(manifest as KubernetesObject, 'patch');
    return await this.send<RawObject>(HttpMethod.PATCH, path, {
      body: manifest,
      contentType: PatchStrategy.ServerSideApply,
      query: { fieldManager, force: true },
    });
  }

  /** `gitVersion` from /version (the generated VersionApi would load every generated API with it). */
  async gitVersion(): Promise<string> {
    return (await this.send<{ gitVersion?: string }>(HttpMethod.GET, '/version')).gitVersion ?? '';
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

/** A member cluster through @kubernetes/client-node 1.x: the only way the kube driver talks to Kubernetes. */
export function clientNodeApi(opts: ClientNodeApiOptions): MemberClusterApi {
  const kc = loadKubeConfig(opts.kubeconfig);
  const objects = kc.makeApiClient(MemberObjectApi);
  const health = new Health(kc);
  const metrics = new Metrics(kc);
  const watcher = new Watch(kc);
  const probeTimeoutMs = opts.probeTimeoutMs ?? 5000;
  const cluster = opts.cluster;

  const resource = async (apiVersion: string, kind: string): Promise<ResourceInfo> => {
    let info: ResourceInfo | undefined;
    try {
      info = await objects.resourceInfo(apiVersion, kind);
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
  const requestOf = async (
    verb: string,
    ref: Pick<MemberRef, 'apiVersion' | 'kind' | 'namespace' | 'name'>,
  ): Promise<KubeRequest> => {
    const info = await resource(ref.apiVersion, ref.kind);
    return {
      verb,
      group: info.group,
      resource: info.plural,
      ...(info.namespaced && ref.namespace ? { namespace: ref.namespace } : {}),
      name: ref.name,
    };
  };

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
        return await Promise.race([objects.gitVersion(), timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    resource,
    async informer(apiVersion, kind, io) {
      const info = await resource(apiVersion, kind);
      const path = `${info.group ? `/apis/${info.group}` : '/api'}/${info.version}/${info.plural}`;
      const client: ListWatchClient = {
        async list({ labelSelector, limit, continueToken }) {
          const l = await objects.listPage(apiVersion, kind, { labelSelector, limit, continueToken });
          return {
            items: l.items ?? [],
            resourceVersion: l.metadata?.resourceVersion ?? '',
            ...(l.metadata?.continue ? { continueToken: l.metadata.continue } : {}),
          };
        },
        async watch(params, onEvent, done) {
          const controller = await watcher.watch(path, params, (type, obj) => onEvent(type, obj as RawObject), done);
          return { abort: () => controller.abort() };
        },
      };
      return new MemberInformer({ ...io, cluster, client, request: { group: info.group, resource: info.plural } });
    },
    async apply(manifest: Manifest) {
      try {
        return await objects.serverSideApply(manifest, FIELD_MANAGER);
      } catch (err) {
        throw kubeError(
          cluster,
          await requestOf('patch', {
            apiVersion: manifest.apiVersion,
            kind: manifest.kind,
            namespace: manifest.metadata.namespace ?? '',
            name: manifest.metadata.name,
          }),
          err,
        );
      }
    },
    async remove(ref: MemberRef) {
      try {
        await objects.delete(
          {
            apiVersion: ref.apiVersion,
            kind: ref.kind,
            metadata: { name: ref.name, ...(ref.namespace ? { namespace: ref.namespace } : {}) },
          },
          undefined,
          undefined,
          undefined,
          undefined,
          'Background',
        );
      } catch (err) {
        if (statusOf(err).code === 404) return;
        throw kubeError(cluster, await requestOf('delete', ref), err);
      }
    },
    async podCpuMilli(namespace: string) {
      let list: PodMetricsList;
      try {
        list = await metrics.getPodMetrics(namespace);
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
