import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
// client-node's modules one by one, not its index: the index loads every generated API (~20 MB of JavaScript, most of
// the agent's memory) where the driver needs these few; patches/ makes them load without the generated APIs too.
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { HttpMethod, type RequestContext, type ResponseContext } from '@kubernetes/client-node/dist/gen/http/http.js';
import { Health } from '@kubernetes/client-node/dist/health.js';
import { Metrics, type PodMetricsList } from '@kubernetes/client-node/dist/metrics.js';
import { KubernetesObjectApi } from '@kubernetes/client-node/dist/object.js';
import { PatchStrategy } from '@kubernetes/client-node/dist/patch.js';
import type { KubernetesObject } from '@kubernetes/client-node/dist/types.js';
import { Watch } from '@kubernetes/client-node/dist/watch.js';
import { cpuMilli } from '../sim/resources.js';
import { kubeError, statusOf, type KubeRequest } from './errors.js';
import { MemberInformer, type ListWatchClient, type RawObject } from './informer.js';
import type { MemberClusterApi, ResourceInfo } from './kube-api.js';
import { FIELD_MANAGER, type Manifest, type MemberRef } from './member-objects.js';

/** The response type of the driver's own requests: the JSON as the API server sent it (see `processResponse`). */
const AS_SENT = 'flotilla:as-sent';

/**
 * KubernetesObjectApi with what the driver needs of its protected parts: discovery (to build watch paths), and list,
 * apply and /version through its request pipeline (authentication, middleware, ApiException on errors) with the JSON
 * as the API server sent it. Its own `list` and `patch` turn every object into client-node's model classes and back,
 * which costs CPU and memory on every page and every write, renames fields (`continue` becomes `_continue`) and drops,
 * on the way in, fields its models do not know.
 */
class RawObjectApi extends KubernetesObjectApi {
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
    const ctx = this.configuration.baseServer.makeRequestContext(path, HttpMethod.GET);
    ctx.setHeaderParam('Accept', 'application/json');
    if (page.labelSelector) ctx.setQueryParam('labelSelector', page.labelSelector);
    ctx.setQueryParam('limit', String(page.limit));
    if (page.continueToken) ctx.setQueryParam('continue', page.continueToken);
    return (await this.requestPromise(ctx, AS_SENT)) as never;
  }

  /** Server-side apply (forced, with `fieldManager`) of `manifest` as it is; returns the object. */
  async serverSideApply(manifest: Manifest, fieldManager: string): Promise<RawObject> {
    const path = await this.specUriPath(manifest as KubernetesObject, 'patch');
    const ctx = this.configuration.baseServer.makeRequestContext(path, HttpMethod.PATCH);
    ctx.setHeaderParam('Accept', 'application/json');
    ctx.setHeaderParam('Content-Type', PatchStrategy.ServerSideApply);
    ctx.setQueryParam('fieldManager', fieldManager);
    ctx.setQueryParam('force', 'true');
    ctx.setBody(JSON.stringify(manifest));
    return (await this.requestPromise(ctx, AS_SENT)) as RawObject;
  }

  /**
   * A successful answer to one of the driver's own requests is parsed and returned as it is: client-node's would make
   * any object with `apiVersion` and `kind` a KubernetesObject, whose metadata model drops a list's `continue`.
   */
  protected override async processResponse<T extends KubernetesObject>(
    response: ResponseContext,
    type?: string,
  ): Promise<T> {
    if (type !== AS_SENT || response.httpStatusCode < 200 || response.httpStatusCode > 299)
      return await super.processResponse<T>(response, type);
    return JSON.parse(await response.body.text()) as T;
  }

  /** `gitVersion` from /version (the generated VersionApi would load every generated API with it). */
  async gitVersion(): Promise<string> {
    const ctx = this.configuration.baseServer.makeRequestContext('/version', HttpMethod.GET);
    ctx.setHeaderParam('Accept', 'application/json');
    return ((await this.requestPromise(ctx, AS_SENT)) as { gitVersion?: string }).gitVersion ?? '';
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

/** The TLS and identity options an agent's connections are made with: requests with equal options share them. */
const CONNECTION_OPTIONS = ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername'] as const;

/**
 * A KubeConfig whose requests share keep-alive connections. client-node 1.x builds a new `https.Agent` for every
 * request, so every request opens a TCP connection, builds a TLS secure context (parsing the CA, certificate and key)
 * and does a full handshake: most of the CPU an apply costs, on both sides. Here each request still gets its options
 * from the kubeconfig as before (so rotated credentials are read), and is then handed the one pooled agent made for
 * exactly those options. Proxy agents are left as client-node makes them.
 */
export class PooledKubeConfig extends KubeConfig {
  private readonly agents = new Map<string, http.Agent>();

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await super.applySecurityAuthentication(context);
    const agent = context.getAgent();
    if (agent) context.setAgent(this.pooled(agent));
  }

  override async applyToFetchOptions(opts: https.RequestOptions): ReturnType<KubeConfig['applyToFetchOptions']> {
    const init = await super.applyToFetchOptions(opts);
    if (init.agent instanceof http.Agent) init.agent = this.pooled(init.agent);
    return init;
  }

  /** Closes the pooled connections (idle ones at once; those in use when their request ends). */
  destroy(): void {
    for (const a of this.agents.values()) a.destroy();
    this.agents.clear();
  }

  private pooled(fresh: http.Agent): http.Agent {
    const isHttps = fresh.constructor === https.Agent;
    if (!isHttps && fresh.constructor !== http.Agent) return fresh;
    const options = (fresh as http.Agent & { options: Record<string, unknown> }).options;
    const hash = createHash('sha256').update(isHttps ? 'https' : 'http');
    for (const k of CONNECTION_OPTIONS) hash.update(`\0${k}=`).update(connectionOption(options[k]));
    const key = hash.digest('hex');
    let agent = this.agents.get(key);
    if (!agent) {
      const picked = Object.fromEntries(
        CONNECTION_OPTIONS.map((k) => [k, options[k]]).filter(([, v]) => v !== undefined),
      );
      agent = isHttps ? new https.Agent({ ...picked, keepAlive: true }) : new http.Agent({ keepAlive: true });
      this.agents.set(key, agent);
    }
    return agent;
  }
}

function connectionOption(v: unknown): string | Buffer {
  if (v === undefined) return '';
  if (Buffer.isBuffer(v)) return v;
  if (Array.isArray(v)) return v.map((x) => (Buffer.isBuffer(x) ? x.toString('base64') : String(x))).join(',');
  return String(v);
}

/** The kubeconfig the agent uses: a file (a mounted Secret), or in-cluster config, or the default lookup. */
export function loadKubeConfig(kubeconfig: string | undefined): PooledKubeConfig {
  const kc = new PooledKubeConfig();
  if (kubeconfig) kc.loadFromFile(kubeconfig);
  else kc.loadFromDefault();
  return kc;
}

/** A member cluster through @kubernetes/client-node 1.x: the only way the kube driver talks to Kubernetes. */
export function clientNodeApi(opts: ClientNodeApiOptions): MemberClusterApi {
  const kc = loadKubeConfig(opts.kubeconfig);
  const objects = kc.makeApiClient(RawObjectApi);
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
