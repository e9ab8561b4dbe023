import type { DestinationStream, Logger } from 'pino';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { z } from 'zod';
import { loadConfig, type BaseConfig, type EnvSource } from './config.js';
import { applyHeapGrowth } from './heap.js';
import { isConfigError } from './errors.js';
import { startHttpServer, type HttpServerHandle } from './http.js';
import { createLogger } from './logger.js';
import { ReadinessGates } from './readiness-gates.js';
import { redactConfig } from './redact.js';

export interface ServiceContext<C extends BaseConfig = BaseConfig> {
  name: string;
  config: C;
  logger: Logger;
  /** Register the service's own metrics here; it is what /metrics serves. */
  registry: Registry;
  /** Drives /readyz. The service starts not ready. */
  setReady(ready: boolean): void;
  /** Conditions readiness also waits for (connections, provisioning); /readyz names those that are closed. */
  gates: ReadinessGates;
  /** Aborted when shutdown begins, for loops that should stop before the stop function runs. */
  signal: AbortSignal;
  /** The port /healthz, /readyz and /metrics are served on. */
  httpPort: number;
}

export type StopFunction = () => void | Promise<void>;

export interface ServiceDefinition<S extends z.ZodType<BaseConfig>> {
  name: string;
  configSchema: S;
  /** Starts the service's work and returns how to stop it, if it needs stopping. A throw aborts start-up. */
  start: (ctx: ServiceContext<z.output<S>>) => Promise<StopFunction | undefined> | Promise<void>;
}

export interface ServiceHostOptions {
  /** The environment to read configuration from; process.env by default. */
  env?: EnvSource;
  /** Where log lines go; stdout by default. */
  logDestination?: DestinationStream;
  /** How long the service's stop function may take before shutdown carries on without it. */
  stopTimeoutMs?: number;
  /** Called with the configuration once it is loaded, before the service starts: for process-wide settings. */
  onConfig?: (config: BaseConfig) => void;
}

export type ServiceState = 'new' | 'starting' | 'running' | 'stopping' | 'stopped' | 'failed';

/**
 * Everything a service process needs around its own logic, without touching `process`: config,
 * logger, metrics registry, health server, start and an orderly stop. `runService` adds signals
 * and exit codes.
 */
export class ServiceHost<S extends z.ZodType<BaseConfig>> {
  readonly registry = new Registry();
  readonly gates = new ReadinessGates();
  private readonly controller = new AbortController();
  private stateValue: ServiceState = 'new';
  private ready = false;
  private configValue: z.output<S> | undefined;
  private loggerValue: Logger | undefined;
  private http: HttpServerHandle | undefined;
  private stopFn: StopFunction | undefined;
  private starting: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly definition: ServiceDefinition<S>,
    private readonly options: ServiceHostOptions = {},
  ) {
    if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/.test(definition.name)) {
      throw new RangeError(
        `ServiceHost: name must be lower-case letters, digits and '-', got ${JSON.stringify(definition.name)}`,
      );
    }
  }

  get name(): string {
    return this.definition.name;
  }

  get state(): ServiceState {
    return this.stateValue;
  }

  /** Available once start() has loaded the configuration. */
  get config(): z.output<S> | undefined {
    return this.configValue;
  }

  get logger(): Logger | undefined {
    return this.loggerValue;
  }

  get httpPort(): number | undefined {
    return this.http?.port;
  }

  isReady(): boolean {
    return this.ready && this.stateValue === 'running' && this.gates.open;
  }

  /** Why the service is not ready, for /readyz; empty when it is. */
  notReadyReasons(): string[] {
    if (this.isReady()) return [];
    const own =
      this.stateValue !== 'running' ? [`service ${this.stateValue}`] : this.ready ? [] : ['service not ready'];
    return [...own, ...this.gates.reasons()];
  }

  /**
   * Loads config (throws ConfigError before anything else happens), then brings up logging,
   * metrics and the health server and calls the definition's start. On failure, whatever was
   * started is torn down again and the error is rethrown.
   */
  start(): Promise<void> {
    if (this.stateValue !== 'new')
      throw new Error(`ServiceHost ${this.name}: start() called in state ${this.stateValue}`);
    this.stateValue = 'starting';
    this.starting = this.doStart();
    return this.starting;
  }

  private async doStart(): Promise<void> {
    let config: z.output<S>;
    try {
      config = loadConfig(this.definition.configSchema, this.options.env);
      this.options.onConfig?.(config);
    } catch (err) {
      this.stateValue = 'failed';
      throw err;
    }
    this.configValue = config;
    const logger = createLogger({
      service: this.name,
      level: config.LOG_LEVEL,
      destination: this.options.logDestination,
    });
    this.loggerValue = logger;
    this.registry.setDefaultLabels({ service: this.name });
    collectDefaultMetrics({ register: this.registry });
    const host = this;
    new Gauge({
      name: 'flotilla_service_ready',
      help: '1 while the service reports ready on /readyz',
      registers: [this.registry],
      // Read at each scrape, so it follows the gates (connections, provisioning) as /readyz does.
      collect() {
        this.set(host.isReady() ? 1 : 0);
      },
    });
    try {
      this.http = await startHttpServer({
        host: config.HTTP_HOST,
        port: config.HTTP_PORT,
        registry: this.registry,
        readiness: () => this.notReadyReasons(),
        logger,
      });
      logger.info({ config: redactConfig(config as Record<string, unknown>), httpPort: this.http.port }, 'starting');
      const ctx: ServiceContext<z.output<S>> = {
        name: this.name,
        config,
        logger,
        registry: this.registry,
        setReady: (ready) => {
          if (this.stateValue === 'stopping' || this.stateValue === 'stopped') return;
          this.ready = ready;
        },
        gates: this.gates,
        signal: this.controller.signal,
        httpPort: this.http.port,
      };
      this.stopFn = (await this.definition.start(ctx)) ?? undefined;
      if (this.controller.signal.aborted) return; // stop() arrived during start; it finishes the job
      this.stateValue = 'running';
      logger.info({ httpPort: this.http.port }, 'started');
    } catch (err) {
      this.stateValue = 'failed';
      // A stop during start-up cancels what start was waiting for (a server still out of reach): not a failure.
      if (this.controller.signal.aborted) logger.info({ reason: String(err) }, 'start-up cancelled');
      else logger.error({ err }, 'start-up failed');
      this.controller.abort();
      await this.http?.close().catch(() => undefined);
      throw err;
    }
  }

  /** Stops the service: not ready, signal aborted, stop function, health server. Idempotent. */
  stop(reason = 'stop requested'): Promise<void> {
    this.stopping ??= this.doStop(reason);
    return this.stopping;
  }

  private async doStop(reason: string): Promise<void> {
    this.ready = false;
    this.controller.abort(new Error(reason));
    // A stop during start-up waits for start to settle, so the stop function exists (or start failed).
    await this.starting?.catch(() => undefined);
    if (this.stateValue === 'failed' || this.stateValue === 'new') {
      this.stateValue = 'stopped';
      return;
    }
    this.stateValue = 'stopping';
    const logger = this.loggerValue;
    logger?.info({ reason }, 'stopping');
    let failure: unknown;
    if (this.stopFn) {
      const timeoutMs = this.options.stopTimeoutMs ?? 30_000;
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          Promise.resolve().then(this.stopFn),
          new Promise<never>((_, reject) => {
            timer = setTimeout(
              () => reject(new Error(`stop function did not finish within ${timeoutMs} ms`)),
              timeoutMs,
            );
          }),
        ]);
      } catch (err) {
        failure = err;
        logger?.error({ err }, 'stopping the service failed');
      } finally {
        clearTimeout(timer);
      }
    }
    await this.http?.close().catch((err: unknown) => logger?.warn({ err }, 'closing the health server failed'));
    this.stateValue = 'stopped';
    logger?.info('stopped');
    if (failure !== undefined) throw failure;
  }
}

export interface RunServiceOptions extends ServiceHostOptions {
  /** Exit code and stderr writes go through these; the real process by default. */
  exit?: (code: number) => never | void;
  /**
   * Whether the service has the process to itself (the default): SIGTERM and SIGINT then stop it, and so does the
   * close of a supervisor's IPC channel, which stops keeping the process alive. False where it runs inside a process
   * that owns those (a test runner's worker, whose channel is the runner's and must keep the worker alive while the
   * runner still has answers to send it).
   */
  ownsProcess?: boolean;
}

/**
 * The entry point of every service's main.ts: starts a ServiceHost, exits 1 with a clear message
 * if configuration or start-up fails, and on SIGTERM/SIGINT stops it and exits 0 (1 if stopping
 * failed). The same signal a second time exits at once.
 */
export async function runService<S extends z.ZodType<BaseConfig>>(
  definition: ServiceDefinition<S>,
  options: RunServiceOptions = {},
): Promise<ServiceHost<S>> {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const host = new ServiceHost(definition, {
    ...options,
    onConfig: (config) => {
      applyHeapGrowth(config.HEAP_GROWTH_PERCENT);
      options.onConfig?.(config);
    },
  });
  const received = new Set<NodeJS.Signals | 'supervisor gone'>();
  const onSignal = (signal: NodeJS.Signals | 'supervisor gone'): void => {
    // Ctrl-C reaches a whole process group, so under a supervisor (scripts/up) a service gets SIGINT from the
    // terminal and SIGTERM from the supervisor: only the same signal again means "now".
    if (received.has(signal)) {
      host.logger?.warn({ signal }, 'second signal: exiting without waiting for shutdown');
      exit(1);
      return;
    }
    const first = received.size === 0;
    received.add(signal);
    if (!first) {
      host.logger?.info({ signal }, 'signal received while stopping; still waiting for shutdown');
      return;
    }
    host.logger?.info({ signal }, 'signal received');
    host.stop(`${signal} received`).then(
      () => exit(0),
      () => exit(1),
    );
  };
  if (options.ownsProcess ?? true) watchTheProcess(onSignal);
  try {
    await host.start();
  } catch (err) {
    // A signal during start-up: the stop it began exits 0 once start has given up.
    if (received.size > 0) return host;
    if (isConfigError(err)) {
      process.stderr.write(`${definition.name}: ${err.message}\n`);
    } else if (!host.logger) {
      process.stderr.write(
        `${definition.name}: start-up failed: ${err instanceof Error ? err.message : String(err)}\n`,
      );
    }
    exit(1);
  }
  return host;
}

/** Stops the service on SIGTERM, SIGINT and, under a supervisor, when the supervisor's IPC channel closes. */
function watchTheProcess(onSignal: (signal: NodeJS.Signals | 'supervisor gone') => void): void {
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  // Started by a supervisor over an IPC channel (packages/launcher's Suite: tests, benches, scripts/up): the channel
  // closes when the supervisor is gone, crashed or killed -9 included, and then nothing else would ever stop this
  // process. The channel itself must not keep the process alive.
  if (process.channel) {
    process.channel.unref();
    process.once('disconnect', () => onSignal('supervisor gone'));
  }
}
