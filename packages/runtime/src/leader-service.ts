import type { z } from 'zod';
import type { BaseConfig } from './config.js';
import { connectionGate } from './connection-gate.js';
import type { Fencing } from './leader.js';
import { startLeaderWork, type LeaderWorkHandle } from './leader-work.js';
import { redisSentinelFromEnv } from './redis.js';
import { watchProvisioning } from './provisioning-watch.js';
import {
  runService,
  type RunServiceOptions,
  type ServiceContext,
  type ServiceDefinition,
  type ServiceHost,
} from './service.js';

/** What every replica holds, leader or not (a bus connection, say), and how to close it. */
export interface ReplicaResources<T> {
  resources: T;
  close(): Promise<void>;
}

export interface LeaderServiceDefinition<S extends z.ZodType<BaseConfig>, T> {
  name: string;
  configSchema: S;
  /** The lease's scope beyond the service name, for services where replicas of different scopes never compete. */
  leaseScope?: (config: z.output<S>) => string;
  /** Opens the replica's connections before it competes for the lease; a throw aborts start-up. */
  open(ctx: ServiceContext<z.output<S>>): Promise<ReplicaResources<T>>;
  /**
   * Starts one term's work when this replica is elected and returns how to stop it when it is demoted; `fencing` is
   * what the term's writes carry so that the store refuses them once a later leader wrote (see Fencing).
   */
  lead(ctx: ServiceContext<z.output<S>>, resources: T, fencing: Fencing): Promise<() => Promise<void>>;
  /**
   * Re-creates the replica's streams and buckets if the server lost them, returning what it re-created (the bus's
   * `repair`). Checked every PROVISION_CHECK_MS; after a repair the leader's work starts over, so that its watches
   * and consumers are made again on the new streams.
   */
  repair?(resources: T): Promise<string[]>;
}

/**
 * The entry point of every leader-elected service: open the replica's connections, compete for the lease
 * `<prefix>:leader:<name>[:<scope>]`, run `lead` while leader, and report ready as soon as the replica competes
 * (a standby is healthy). Stopping stops the work, releases the lease, then closes the connections.
 */
export function runLeaderService<S extends z.ZodType<BaseConfig>, T>(
  definition: LeaderServiceDefinition<S, T>,
  options?: RunServiceOptions,
): Promise<ServiceHost<S>> {
  return runService(
    { name: definition.name, configSchema: definition.configSchema, start: leaderServiceStart(definition) },
    options,
  );
}

/** runLeaderService's start, for a service that decides from its configuration whether its replicas elect a leader. */
export function leaderServiceStart<S extends z.ZodType<BaseConfig>, T>(
  definition: LeaderServiceDefinition<S, T>,
): ServiceDefinition<S>['start'] {
  return async (ctx: ServiceContext<z.output<S>>) => {
    const { config, logger } = ctx;
    const { resources, close } = await definition.open(ctx);
    const scope = definition.leaseScope?.(config);
    let stopLeaderWork: LeaderWorkHandle;
    try {
      stopLeaderWork = await startLeaderWork({
        redisUrl: config.REDIS_URL,
        redisPassword: config.REDIS_PASSWORD,
        redisSentinel: redisSentinelFromEnv(config),
        key: `${config.FLOTILLA_PREFIX}:leader:${definition.name}${scope ? `:${scope}` : ''}`,
        leaseMs: config.LEADER_LEASE_MS,
        logger,
        registry: ctx.registry,
        onConnection: connectionGate(ctx.gates, logger, 'redis'),
        startupRetry: { budgetMs: config.STARTUP_CONNECT_MS, gates: ctx.gates, signal: ctx.signal },
        work: (_token, fencing) => definition.lead(ctx, resources, fencing),
      });
    } catch (err) {
      await close();
      throw err;
    }
    const repair = definition.repair;
    const stopWatch = repair
      ? watchProvisioning({
          repair: () => repair(resources),
          intervalMs: config.PROVISION_CHECK_MS,
          gates: ctx.gates,
          logger,
          onRepaired: (recreated) => stopLeaderWork.restartWork(`re-created ${recreated.join(', ')}`),
        })
      : () => undefined;
    ctx.setReady(true);
    return async () => {
      ctx.setReady(false);
      stopWatch();
      await stopLeaderWork();
      await close();
    };
  };
}
