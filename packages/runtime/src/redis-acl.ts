import { redisServices, type ServiceName } from '@flotilla/catalogue';

export interface RedisAclRule {
  service: ServiceName;
  /** The Redis user, `<prefix>-<service>` like the service's NATS user. */
  user: string;
  /** The `ACL SETUSER <user>` rules after `on` and the password: keys, channels and commands. */
  rules: string[];
}

/**
 * The commands every service's user gets. A leader lease's Lua scripts (EVAL/EVALSHA) run GET, SET, PEXPIRE, INCR
 * and DEL; BullMQ runs its queues through Lua scripts too, plus blocking pops; ioredis' ready check asks INFO.
 * `-@dangerous` comes after `+@write`, which alone would allow FLUSHALL, FLUSHDB, KEYS and SWAPDB; INFO, itself
 * counted as dangerous, is added back last.
 */
const COMMANDS = ['-@all', '+@read', '+@write', '+@scripting', '+@connection', '+@blocking', '-@dangerous', '+info'];

/**
 * Each Redis-using service's ACL (the services and their BullMQ queues as the catalogue lists them): only its leases (`<prefix>:leader:<service>` and the keys under it, the fencing
 * counter and scoped leases) and its BullMQ queues (`<prefix>:<queue>:*`), and no Pub/Sub channel.
 */
export function redisAclRules(prefix: string): RedisAclRule[] {
  return redisServices().map(({ service, queues }) => {
    const keys = [
      `~${prefix}:leader:${service}`,
      `~${prefix}:leader:${service}:*`,
      ...queues.map((q) => `~${prefix}:${q}:*`),
    ];
    return {
      service,
      user: `${prefix}-${service}`,
      rules: ['resetkeys', 'resetchannels', ...keys, ...COMMANDS],
    };
  });
}

/** The `ACL SETUSER` arguments that create (or reset) the user of `rule` with `password`. */
export function aclSetUserArgs(rule: RedisAclRule, password: string): string[] {
  return ['SETUSER', rule.user, 'reset', 'on', `>${password}`, ...rule.rules];
}
