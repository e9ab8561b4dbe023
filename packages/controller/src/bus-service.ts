import {
  busOptionsFromEnv,
  connectBus,
  isCredentialsRefused,
  publishEvent,
  type Bus,
  type CloudEvent,
} from '@flotilla/bus';
import {
  closeRedis,
  connectionGate,
  connectRedisAtStartup,
  redisSentinelFromEnv,
  retryAtStartup,
  leaderServiceStart,
  runService,
  watchProvisioning,
  type ConfigOf,
  type ConfigSchema,
  type Fencing,
  type Logger,
  type RunServiceOptions,
  type ServiceContext,
  type ServiceHost,
} from '@flotilla/runtime';
import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';

/** What every replica of a service on the bus holds once it has connected. */
export interface BusConnections {
  bus: Bus;
  /** Publishes a domain event on the bus's event stream (publishEvent). */
  publish(e: CloudEvent): ReturnType<typeof publishEvent>;
}

/** A Redis connection of the replica's own, besides the lease's (BullMQ timers, sync records). */
export interface OwnRedis {
  /** The readiness gate that closes while it is down (`redis-timers`, say): /readyz names it. */
  gate: string;
}

/**
 * The connections a definition gets: the bus always; its own Redis connection when it asks for one, with the BullMQ
 * key prefix (FLOTILLA_PREFIX) that keeps installations sharing a Redis apart.
 */
export type ConnectionsOf<D extends OwnRedis | undefined> = BusConnections &
  (D extends OwnRedis ? { redis: Redis; queuePrefix: string } : Record<never, never>);

/**
 * What the work is built from: the connections, what `prepare` and `open` returned, and the service's logger and
 * registry, in one object, so that a controller's options can start from it (`{ ...deps, resyncMs }`).
 */
export type ServiceDeps<D extends OwnRedis | undefined, P, R> = ConnectionsOf<D> &
  P &
  R & {
    logger: Logger;
    registry: Registry;
    /** The leader's term, for the writes that must be refused once it is over (see Fencing); none without a leader. */
    fencing?: Fencing;
  };

export interface BusServiceDefinition<
  S extends ConfigSchema,
  D extends OwnRedis | undefined = undefined,
  P extends object = Record<never, never>,
  R extends object = Record<never, never>,
> {
  /** The service's name (the catalogue's): the NATS and Redis connection names, the lease, the logs. */
  name: string;
  configSchema: S;
  /**
   * true (default): replicas compete for the lease `<prefix>:leader:<name>[:<scope>]` and `run` runs in the leader
   * only, started again after a repair of the streams. false: every replica runs `run` from the start (the gateway).
   * A function decides from the configuration (the affinity scheduler's SCHEDULER_REPLICAS: leader or active).
   */
  leader?: boolean | ((config: ConfigOf<S>) => boolean);
  /** The lease's scope beyond the service name, for replicas of different scopes that never compete. */
  leaseScope?: (config: ConfigOf<S>) => string;
  /** A Redis connection of the replica's own, closed after the bus on stop. */
  redis?: D;
  /** Before any connection: what must fail start-up before it connects anywhere (a kube config that cannot load). */
  prepare?(ctx: ServiceContext<ConfigOf<S>>): Promise<P> | P;
  /** After the connections, per replica whether leader or not: informers, per-process metrics. */
  open?(ctx: ServiceContext<ConfigOf<S>>, connections: ConnectionsOf<D> & P): Promise<R> | R;
  /** The service's work: starts it and returns how to stop it (on demotion, or at shutdown). */
  run(ctx: ServiceContext<ConfigOf<S>>, deps: ServiceDeps<D, P, R>): Promise<() => Promise<void>>;
}

/**
 * The opening of every service's main: connect the bus (and Redis where the service keeps timers or records of its
 * own), each connection behind a readiness gate; open what the replica holds (informers); re-create the streams
 * and buckets if the server lost them; compete for the lease and run the work while leader (or at once, for a
 * service every replica serves); on SIGTERM stop the work, release the lease and close the connections. Metrics,
 * /healthz and /readyz are the service host's. What a main adds is only its own: `open` and `run`.
 *
 * @example
 * await runBusService({
 *   name: 'rebalancer',
 *   configSchema,
 *   redis: { gate: 'redis-timers' },
 *   open: openInformers, // the store's: `{ informers }`
 *   async run({ config }, deps) {
 *     const controller = new RebalancerController({ ...deps, resyncMs: config.REBALANCER_RESYNC_MS });
 *     await controller.start();
 *     return () => controller.stop();
 *   },
 * });
 */
export function runBusService<
  S extends ConfigSchema,
  D extends OwnRedis | undefined = undefined,
  P extends object = Record<never, never>,
  R extends object = Record<never, never>,
>(definition: BusServiceDefinition<S, D, P, R>, options?: RunServiceOptions): Promise<ServiceHost<S>> {
  const d = definition;
  if (d.leader === false && d.leaseScope)
    throw new TypeError(`runBusService(${d.name}): leaseScope goes with leader election, not with leader: false`);
  type Resources = ConnectionsOf<D> & P & R;
  const depsOf = (ctx: ServiceContext<ConfigOf<S>>, resources: Resources, fencing?: Fencing): ServiceDeps<D, P, R> => ({
    ...resources,
    logger: ctx.logger,
    registry: ctx.registry,
    ...(fencing ? { fencing } : {}),
  });

  /** Opens in order, and closes what it opened (bus first, as the services always did) if a later step fails. */
  async function open(ctx: ServiceContext<ConfigOf<S>>): Promise<{ resources: Resources; close(): Promise<void> }> {
    const { config, gates, logger } = ctx;
    const retry = { gates, logger, budgetMs: config.STARTUP_CONNECT_MS, signal: ctx.signal };
    const prepared = ((await d.prepare?.(ctx)) ?? {}) as P;
    const bus = await retryAtStartup(
      () => connectBus(busOptionsFromEnv(config, d.name, connectionGate(gates, logger, 'nats'))),
      { ...retry, gate: 'nats', isPermanent: isCredentialsRefused, dispose: (made) => made.close() },
    );
    const closers: Array<() => Promise<void>> = [() => bus.close()];
    const close = async () => {
      for (const c of closers) await c();
    };
    try {
      const connections: BusConnections & { redis?: Redis; queuePrefix?: string } = {
        bus,
        publish: (e) => publishEvent(bus, e),
      };
      if (d.redis) {
        const gate = d.redis.gate;
        const redis = await connectRedisAtStartup(
          config.REDIS_URL,
          {
            password: config.REDIS_PASSWORD,
            sentinel: redisSentinelFromEnv(config),
            connectionName: d.name,
            onConnection: connectionGate(gates, logger, gate),
          },
          { ...retry, gate },
        );
        closers.push(() => closeRedis(redis));
        connections.redis = redis;
        connections.queuePrefix = config.FLOTILLA_PREFIX;
      }
      const withPrepared = { ...prepared, ...connections } as ConnectionsOf<D> & P;
      const own = ((await d.open?.(ctx, withPrepared)) ?? {}) as R;
      return { resources: { ...withPrepared, ...own }, close };
    } catch (err) {
      await close().catch(() => undefined);
      throw err;
    }
  }

  const everyReplicaStart = async (ctx: ServiceContext<ConfigOf<S>>) => {
    const { resources, close } = await open(ctx);
    const stopWatch = watchProvisioning({
      repair: () => resources.bus.repair(),
      intervalMs: ctx.config.PROVISION_CHECK_MS,
      gates: ctx.gates,
      logger: ctx.logger,
    });
    let stop: () => Promise<void>;
    try {
      stop = await d.run(ctx, depsOf(ctx, resources));
    } catch (err) {
      stopWatch();
      await close().catch(() => undefined);
      throw err;
    }
    ctx.setReady(true);
    return async () => {
      ctx.setReady(false);
      stopWatch();
      await stop();
      await close();
    };
  };
  const leaderStart = leaderServiceStart({
    name: d.name,
    configSchema: d.configSchema,
    ...(d.leaseScope ? { leaseScope: d.leaseScope } : {}),
    open,
    repair: (resources: Resources) => resources.bus.repair(),
    lead: (ctx: ServiceContext<ConfigOf<S>>, resources: Resources, fencing: Fencing) =>
      d.run(ctx, depsOf(ctx, resources, fencing)),
  });
  const leader = d.leader ?? true;
  return runService(
    {
      name: d.name,
      configSchema: d.configSchema,
      start: (ctx) =>
        (typeof leader === 'function' ? leader(ctx.config) : leader) ? leaderStart(ctx) : everyReplicaStart(ctx),
    },
    options,
  );
}
