import { createHash } from 'node:crypto';
import type https from 'node:https';
// client-node's modules one by one, not its index: the index loads every generated API (~20 MB of JavaScript) where a
// process may need a KubeConfig only; patches/ makes this module load without the generated APIs too.
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import type { Cluster } from '@kubernetes/client-node/dist/config_types.js';
import type { RequestContext } from '@kubernetes/client-node/dist/gen/http/http.js';

/**
 * How long a request may go unanswered before the client gives it up: the API server's own limit for a request that
 * is not a watch (`--request-timeout`, 1 minute). The server ends what it is slow to answer; this ends what it never
 * will, such as a request on a connection that went dead without a reset, which TCP keep-alive takes minutes to find
 * and which would hold a controller's pass for as long. (client-go finds those with HTTP/2 pings; Node's client speaks
 * HTTP/1.1.)
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

export interface PooledKubeConfigOptions {
  /** Default DEFAULT_REQUEST_TIMEOUT_MS. */
  requestTimeoutMs?: number;
}

/** An undici Dispatcher as client-node hands it to fetch (undici is client-node's dependency, not ours). */
type Dispatcher = NonNullable<ReturnType<RequestContext['getDispatcher']>>;
type CreateDispatcher = (cluster: Cluster | null, agentOptions: https.AgentOptions) => Dispatcher | undefined;

/**
 * A KubeConfig whose requests share keep-alive connections. client-node 2.x makes a new undici Agent for every
 * request, so every request opens a TCP connection, builds a TLS secure context (parsing the CA, certificate and key)
 * and does a full handshake: most of the CPU a write costs, on both sides. Here each request still gets its options
 * from the kubeconfig as before (so rotated credentials are read), and is then handed the one pooled Agent made for
 * exactly those options. Proxy dispatchers are left as client-node makes them, and a plain http server without TLS
 * options gets undici's global dispatcher, which keeps connections alive already. Every request client-node makes
 * (`makeApiClient`, `Watch`, `Health`, `Metrics`, `KubernetesObjectApi`) gets its dispatcher in
 * applySecurityAuthentication.
 */
export class PooledKubeConfig extends KubeConfig {
  private readonly dispatchers = new Map<string, Dispatcher>();
  /** How long a request may go unanswered before this client gives it up (a watch's own signal replaces it). */
  readonly requestTimeoutMs: number;

  constructor(options: PooledKubeConfigOptions = {}) {
    super();
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    // createDispatcher is where client-node makes each request's dispatcher from the options it read; its typings
    // call it private, so it is replaced on the instance (the one way to pool without copying what surrounds it).
    const fresh = (KubeConfig.prototype as unknown as { createDispatcher: CreateDispatcher }).createDispatcher;
    (this as unknown as { createDispatcher: CreateDispatcher }).createDispatcher = (cluster, agentOptions) =>
      this.pooled(cluster, agentOptions, (c, o) => fresh.call(this, c, o));
  }

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await super.applySecurityAuthentication(context);
    // The API clients' fetch takes this signal; Watch sets its own controller (it must stay open), and Health and
    // Metrics take only the signal their caller passes.
    if (!context.getSignal()) context.setSignal(AbortSignal.timeout(this.requestTimeoutMs));
  }

  /** Closes the pooled connections (idle ones at once; those in use when their request ends). */
  destroy(): void {
    for (const d of this.dispatchers.values()) d.close().catch(() => undefined);
    this.dispatchers.clear();
  }

  private pooled(cluster: Cluster | null, agentOptions: https.AgentOptions, fresh: CreateDispatcher) {
    const options = this.createDispatcherOptions(cluster, agentOptions);
    if (options.type !== 'agent') return fresh(cluster, agentOptions);
    const hash = createHash('sha256');
    const connect = options.connect as Record<string, unknown>;
    for (const k of Object.keys(connect).sort()) hash.update(`\0${k}=`).update(connectionOption(connect[k]));
    const key = hash.digest('hex');
    let dispatcher = this.dispatchers.get(key);
    if (!dispatcher) {
      dispatcher = fresh(cluster, agentOptions);
      if (!dispatcher) return dispatcher;
      this.dispatchers.set(key, dispatcher);
    }
    return dispatcher;
  }
}

function connectionOption(v: unknown): string | Buffer {
  if (v === undefined) return '';
  if (Buffer.isBuffer(v)) return v;
  if (Array.isArray(v)) return v.map((x) => (Buffer.isBuffer(x) ? x.toString('base64') : String(x))).join(',');
  return String(v);
}

/** Where the credentials come from when no kubeconfig file is given. */
export type KubeConfigFallback =
  /** KUBECONFIG, ~/.kube/config, then the in-cluster service account (client-node's `loadFromDefault`). */
  | 'default'
  /** The in-cluster service account only: a Deployment that must not pick up a developer's ~/.kube/config. */
  | 'in-cluster';

/** A pooled kubeconfig from `file` (a mounted Secret), or else from `fallback`. */
export function loadPooledKubeConfig(file: string | undefined, fallback: KubeConfigFallback): PooledKubeConfig {
  const kc = new PooledKubeConfig();
  if (file) kc.loadFromFile(file);
  else if (fallback === 'in-cluster') kc.loadFromCluster();
  else kc.loadFromDefault();
  return kc;
}
