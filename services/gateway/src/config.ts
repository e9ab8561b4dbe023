import { reservedNamespacesEnv } from '@flotilla/api';
import { baseConfigSchema, envBool, envInt, envPort, envString } from '@flotilla/runtime';
import { DEFAULT_FAILOVER_GRACE_MS } from '@flotilla/scheduling';
import { FAIL_BACK_BUDGET_DEFAULTS } from '@flotilla/rebalance';
import { CALLER_LIMIT_DEFAULTS } from './caller-limits.js';
import { STREAM_DEFAULTS } from './dashboard.js';

/** The gateway's environment: the base variables plus its HTTP API, webhook and limits (docs/configuration.md). */
export const configSchema = baseConfigSchema.extend({
  /** The HTTP API (`POST /api/<op>`), the dashboard and the admission webhook (`POST /validate`). */
  GATEWAY_API_PORT: envPort(8081),
  /**
   * A port of the admission webhook's own (`POST /validate`, with the API port's TLS and callers' rules), answered by
   * a thread that the gateway's other work cannot delay; point the ValidatingWebhookConfiguration at it. Unset, the
   * webhook is served on GATEWAY_API_PORT alone (it stays there when this is set).
   */
  GATEWAY_WEBHOOK_PORT: envInt({ min: 0, max: 65535 }),
  /** Where the HTTP API listens; anywhere but loopback it needs GATEWAY_TOKENS_FILE (or GATEWAY_ALLOW_ANONYMOUS). */
  GATEWAY_API_HOST: envString({ default: '127.0.0.1' }),
  /**
   * PEM certificate; with GATEWAY_TLS_KEY_FILE the HTTP API and the admission webhook are served over HTTPS (an API
   * server calls webhooks over HTTPS only).
   */
  GATEWAY_TLS_CERT_FILE: envString(),
  /** PEM private key of GATEWAY_TLS_CERT_FILE. */
  GATEWAY_TLS_KEY_FILE: envString(),
  /** PEM CA: the admission webhook then takes only callers with a client certificate it signed (the API server). */
  GATEWAY_TLS_CLIENT_CA_FILE: envString(),
  /**
   * Lines `token,role,name` (role `read` or `admin`; `#` comments), mounted from a Secret: every HTTP API request then
   * needs `Authorization: Bearer <token>`. Without it the API is anonymous, which only a loopback host allows.
   */
  GATEWAY_TOKENS_FILE: envString(),
  /**
   * Anonymous access on a non-loopback host, for docker-compose on a developer machine, where the container must
   * listen on all of its interfaces and the host publishes the port on its loopback only.
   */
  GATEWAY_ALLOW_ANONYMOUS: envBool(false),
  /**
   * Creates and updates are refused (`403 Forbidden`, naming JetStream storage) once less than this share of
   * JetStream storage is free, so that deletes, which write too, still fit; 0 turns the check off.
   */
  GATEWAY_STORE_HEADROOM_PERCENT: envInt({ min: 0, max: 50, default: 5 }),
  /**
   * The store's size when the NATS account has no JetStream `max_store` of its own (the server's `max_file_store` is
   * not reported to clients); without either, no headroom is kept.
   */
  GATEWAY_STORE_MAX_BYTES: envInt({ min: 1 }),
  /** Namespaces admission refuses objects in, added to kube-* and flotilla-system (comma-separated; `tenant-*` a prefix). */
  RESERVED_NAMESPACES: reservedNamespacesEnv,
  /** HTTP API, per caller (a token's name, or the address without tokens): requests in flight, event streams included. */
  GATEWAY_HTTP_MAX_IN_FLIGHT: envInt({ min: 1, default: CALLER_LIMIT_DEFAULTS.maxInFlight }),
  /** HTTP API, per caller: requests a second on average; past it, `429 Too Many Requests` with `Retry-After`. */
  GATEWAY_HTTP_RATE: envInt({ min: 1, default: CALLER_LIMIT_DEFAULTS.ratePerSecond }),
  /** HTTP API, per caller: how many requests at once beyond GATEWAY_HTTP_RATE. */
  GATEWAY_HTTP_BURST: envInt({ min: 1, default: CALLER_LIMIT_DEFAULTS.burst }),
  /** The dashboard's event stream: how many events behind the last a `Last-Event-ID` may resume (further: 410). */
  GATEWAY_STREAM_MAX_REPLAY: envInt({ min: 0, default: STREAM_DEFAULTS.maxReplay }),
  /** The dashboard's event stream: how long a reader may leave its socket full before its stream is ended. */
  GATEWAY_STREAM_STALLED_MS: envInt({ min: 1, default: STREAM_DEFAULTS.stalledMs }),
  /**
   * The affinity scheduler's FAILOVER_GRACE_MS, which a preview of a cluster failure (`what-if cluster fail --live`)
   * waits out before it moves anything: set it to the scheduler's, or the preview's times are not the scheduler's.
   */
  FAILOVER_GRACE_MS: envInt({ default: DEFAULT_FAILOVER_GRACE_MS, min: 0 }),
  /**
   * The rebalancer's REBALANCER_FAILBACK_BUDGET, which `flotilla get failbacks` and the dashboard plan the fail-back
   * queue with: give the gateway the rebalancer's value (the chart and deploy/ do), or the queue's times are not its.
   */
  REBALANCER_FAILBACK_BUDGET: envInt({ default: FAIL_BACK_BUDGET_DEFAULTS.max, min: 1 }),
  /** The rebalancer's REBALANCER_FAILBACK_BUDGET_PERIOD_MS, likewise. */
  REBALANCER_FAILBACK_BUDGET_PERIOD_MS: envInt({ default: FAIL_BACK_BUDGET_DEFAULTS.periodMs, min: 1000 }),
});
