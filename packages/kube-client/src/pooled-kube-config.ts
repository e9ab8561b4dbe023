import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
// client-node's modules one by one, not its index: the index loads every generated API (~20 MB of JavaScript) where a
// process may need a KubeConfig only; patches/ makes this module load without the generated APIs too.
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
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

/** The TLS and identity options a request's connection is made with: requests with equal options share them. */
const CONNECTION_OPTIONS = ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername'] as const;

/**
 * A KubeConfig whose requests share keep-alive connections. client-node 1.x builds a new `https.Agent` for every
 * request, so every request opens a TCP connection, builds a TLS secure context (parsing the CA, certificate and key)
 * and does a full handshake: most of the CPU a write costs, on both sides (and Node's agent without keep-alive asks
 * the API server to close the connection after each answer). Here each request still gets its options from the
 * kubeconfig as before (so rotated credentials are read), and is then handed the one pooled agent made for exactly
 * those options. Proxy agents are left as client-node makes them. Every API client made from it
 * (`makeApiClient`, `Watch`, `Health`, `Metrics`, `KubernetesObjectApi`) goes through these two methods.
 */
export class PooledKubeConfig extends KubeConfig {
  private readonly agents = new Map<string, http.Agent>();
  /** How long a request may go unanswered before this client gives it up (a watch's own signal replaces it). */
  readonly requestTimeoutMs: number;

  constructor(options: PooledKubeConfigOptions = {}) {
    super();
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await super.applySecurityAuthentication(context);
    const agent = context.getAgent();
    if (agent) context.setAgent(this.pooled(agent));
    if (!context.getSignal()) context.setSignal(AbortSignal.timeout(this.requestTimeoutMs));
  }

  override async applyToFetchOptions(opts: https.RequestOptions): ReturnType<KubeConfig['applyToFetchOptions']> {
    const init = await super.applyToFetchOptions(opts);
    if (init.agent instanceof http.Agent) init.agent = this.pooled(init.agent);
    // Watch sets its own signal after this (it must stay open); Metrics and Health (without one of its own) keep it.
    init.signal ??= AbortSignal.timeout(this.requestTimeoutMs);
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
