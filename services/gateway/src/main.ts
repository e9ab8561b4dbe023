import type { ServiceName } from '@flotilla/catalogue';
import { readFile } from 'node:fs/promises';
import { runBusService } from '@flotilla/controller';
import { Informers, KubeEventStore, ObjectStore, replicaWriterSpecs } from '@flotilla/store';
import { ApiTokens } from './api-tokens.js';
import { configSchema } from './config.js';
import { DashboardViews } from './dashboard.js';
import { GatewayHandler } from './handler.js';
import { serveHttpApi } from './http-api.js';
import { serveNatsApi } from './nats-api.js';
import { serveWebhookThread } from './webhook-thread.js';
import { policySelectorSpecs } from './reserved-template.js';
import { jetStreamStorageUse, StoreHeadroom } from './store-headroom.js';

const SERVICE: ServiceName = 'gateway';

await runBusService({
  name: SERVICE,
  configSchema,
  // Every replica serves the API: no lease.
  leader: false,
  async run({ config, logger, registry }, { bus, publish }) {
    const headroom = new StoreHeadroom(
      jetStreamStorageUse(bus.jsm, config.GATEWAY_STORE_MAX_BYTES),
      config.GATEWAY_STORE_HEADROOM_PERCENT,
    );
    const store = new ObjectStore(bus);
    // Admission's conflict checks read informers of the replica writers instead of listing the store per apply.
    // Their gates are not the gateway's readiness, and serving does not wait for their first list: a cache that
    // cannot be trusted yet is bypassed (the store is listed instead).
    const informers = new Informers({ bus, logger, registry });
    const specs = replicaWriterSpecs({
      bus,
      informers,
      store,
      registry,
      logger,
    });
    void specs.start();
    // The webhook's judgment of a template in a reserved namespace reads the policies that may select it, likewise.
    const policies = policySelectorSpecs({ bus, informers, store, registry, logger });
    void policies.start();
    const handler = new GatewayHandler({
      store,
      specs,
      kubeEvents: new KubeEventStore(bus),
      publish,
      ensureRoom: () => headroom.ensureRoom(),
      reservedNamespaces: config.RESERVED_NAMESPACES,
      policies,
      failoverGraceMs: config.FAILOVER_GRACE_MS,
      failBackBudget: { max: config.REBALANCER_FAILBACK_BUDGET, periodMs: config.REBALANCER_FAILBACK_BUDGET_PERIOD_MS },
    });
    const nats = serveNatsApi(bus, handler, logger, registry);
    if (
      Boolean(config.GATEWAY_TLS_CERT_FILE) !== Boolean(config.GATEWAY_TLS_KEY_FILE) ||
      (config.GATEWAY_TLS_CLIENT_CA_FILE && !config.GATEWAY_TLS_CERT_FILE)
    ) {
      // Half a TLS configuration would silently serve plain HTTP (and a webhook without client certificates).
      throw new Error(
        'GATEWAY_TLS_CERT_FILE and GATEWAY_TLS_KEY_FILE go together, and GATEWAY_TLS_CLIENT_CA_FILE needs both',
      );
    }
    const tls =
      config.GATEWAY_TLS_CERT_FILE && config.GATEWAY_TLS_KEY_FILE
        ? {
            cert: await readFile(config.GATEWAY_TLS_CERT_FILE),
            key: await readFile(config.GATEWAY_TLS_KEY_FILE),
            clientCa: config.GATEWAY_TLS_CLIENT_CA_FILE ? await readFile(config.GATEWAY_TLS_CLIENT_CA_FILE) : undefined,
          }
        : undefined;
    const tokensFile = config.GATEWAY_TOKENS_FILE;
    const tokensText = tokensFile ? await readFile(tokensFile, 'utf8') : undefined;
    const tokens = tokensFile && tokensText !== undefined ? ApiTokens.parse(tokensText, tokensFile) : undefined;
    const dashboard = new DashboardViews({
      bus,
      store,
      informers,
      stream: { maxReplay: config.GATEWAY_STREAM_MAX_REPLAY, stalledMs: config.GATEWAY_STREAM_STALLED_MS },
    });
    // The Workloads page answers from memory once its first request started the cache (bench/dashboard: 14 MiB for
    // 10,000 bindings); until someone opens it, the gateway watches no binding.
    const http = await serveHttpApi(
      handler,
      {
        host: config.GATEWAY_API_HOST,
        port: config.GATEWAY_API_PORT,
        tls,
        tokens,
        allowAnonymous: config.GATEWAY_ALLOW_ANONYMOUS,
        registry,
        dashboard,
        limits: {
          maxInFlight: config.GATEWAY_HTTP_MAX_IN_FLIGHT,
          ratePerSecond: config.GATEWAY_HTTP_RATE,
          burst: config.GATEWAY_HTTP_BURST,
        },
      },
      logger,
    );
    const webhook =
      config.GATEWAY_WEBHOOK_PORT === undefined
        ? undefined
        : await serveWebhookThread(
            handler,
            {
              host: config.GATEWAY_API_HOST,
              port: config.GATEWAY_WEBHOOK_PORT,
              tls,
              tokens: tokensFile && tokensText !== undefined ? { text: tokensText, source: tokensFile } : undefined,
              allowAnonymous: config.GATEWAY_ALLOW_ANONYMOUS,
              limits: {
                maxInFlight: config.GATEWAY_HTTP_MAX_IN_FLIGHT,
                ratePerSecond: config.GATEWAY_HTTP_RATE,
                burst: config.GATEWAY_HTTP_BURST,
              },
              reservedNamespaces: config.RESERVED_NAMESPACES,
              registry,
              // A webhook port no longer answered fails every write the API server admits: the gateway exits, to be
              // restarted with it, rather than run on with that port dead.
              onFailure: (err) => {
                logger.fatal({ err }, 'the webhook thread ended');
                process.exit(1);
              },
            },
            logger,
          );
    logger.info(
      {
        apiPort: http.port,
        webhookPort: webhook?.port,
        subjects: `${bus.names.apiRoot}.*`,
        apiTokens: tokens?.size ?? 0,
      },
      'gateway serving',
    );
    return async () => {
      await nats.stop();
      // Open event streams first: the HTTP server waits for every open request before it closes.
      dashboard.stop();
      await http.close();
      await webhook?.close();
      specs.stop();
      policies.stop();
    };
  },
});
