import { readFile } from 'node:fs/promises';
import { busOptionsFromEnv, connectBus, publishEvent } from '@flotilla/bus';
import { baseConfigSchema, envPort, envString, runService } from '@flotilla/runtime';
import { KubeEventStore, ObjectStore } from '@flotilla/store';
import { GatewayHandler } from './handler.js';
import { serveHttpApi } from './http-api.js';
import { serveNatsApi } from './nats-api.js';

const configSchema = baseConfigSchema.extend({
  GATEWAY_API_PORT: envPort(8081),
  GATEWAY_API_HOST: envString({ default: '127.0.0.1' }),
  /** PEM files; when both are set the HTTP API and the admission webhook are served over HTTPS. */
  GATEWAY_TLS_CERT_FILE: envString(),
  GATEWAY_TLS_KEY_FILE: envString(),
});

await runService({
  name: 'gateway',
  configSchema,
  async start({ config, logger, setReady, registry }) {
    const bus = await connectBus(busOptionsFromEnv(config, 'gateway'));
    const handler = new GatewayHandler(new ObjectStore(bus), new KubeEventStore(bus), (e) => publishEvent(bus, e));
    const nats = serveNatsApi(bus, handler, logger, registry);
    const tls =
      config.GATEWAY_TLS_CERT_FILE && config.GATEWAY_TLS_KEY_FILE
        ? { cert: await readFile(config.GATEWAY_TLS_CERT_FILE), key: await readFile(config.GATEWAY_TLS_KEY_FILE) }
        : undefined;
    const http = await serveHttpApi(
      handler,
      { host: config.GATEWAY_API_HOST, port: config.GATEWAY_API_PORT, tls, registry },
      logger,
    );
    logger.info({ apiPort: http.port, subjects: `${bus.names.apiRoot}.*` }, 'gateway serving');
    setReady(true);
    return async () => {
      setReady(false);
      await nats.stop();
      await http.close();
      await bus.close();
    };
  },
});
