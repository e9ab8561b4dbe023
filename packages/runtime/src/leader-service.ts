import type { z } from 'zod';
import type { BaseConfig } from './config.js';
import { startLeaderWork } from './leader-work.js';
import { runService, type RunServiceOptions, type ServiceContext, type ServiceHost } from './service.js';

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
  /** Starts one term's work when this replica is elected and returns how to stop it when it is demoted. */
  lead(ctx: ServiceContext<z.output<S>>, resources: T): Promise<() => Promise<void>>;
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
    {
      name: definition.name,
      configSchema: definition.configSchema,
      async start(ctx) {
        const { config, logger } = ctx;
        const { resources, close } = await definition.open(ctx);
        const scope = definition.leaseScope?.(config);
        let stopLeaderWork: () => Promise<void>;
        try {
          stopLeaderWork = await startLeaderWork({
            redisUrl: config.REDIS_URL,
            redisPassword: config.REDIS_PASSWORD,
            key: `${config.FLOTILLA_PREFIX}:leader:${definition.name}${scope ? `:${scope}` : ''}`,
            leaseMs: config.LEADER_LEASE_MS,
            logger,
            registry: ctx.registry,
            work: () => definition.lead(ctx, resources),
          });
        } catch (err) {
          await close();
          throw err;
        }
        ctx.setReady(true);
        return async () => {
          ctx.setReady(false);
          await stopLeaderWork();
          await close();
        };
      },
    },
    options,
  );
}
