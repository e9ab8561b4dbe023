/**
 * The services that use Redis (the gateway does not), and the key spaces `<prefix>:<name>:*` each one owns besides its
 * leases: the BullMQ queues it runs (the kube-bridge's is its sync records).
 */
export const REDIS_SERVICE_QUEUES = {
  'status-writer': [],
  'member-agent': [],
  'affinity-scheduler': [],
  'cron-scheduler': ['cron-scheduler'],
  rebalancer: ['rebalancer'],
  'hpa-assigner': ['hpa-assigner', 'effective-hpa'],
  'kube-bridge': ['kube-bridge'],
} as const satisfies Record<string, readonly string[]>;
export type RedisService = keyof typeof REDIS_SERVICE_QUEUES;

export interface RedisAclRule {
  service: RedisService;
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
 * Each Redis-using service's ACL: only its leases (`<prefix>:leader:<service>` and the keys under it, the fencing
 * counter and scoped leases) and its BullMQ queues (`<prefix>:<queue>:*`), and no Pub/Sub channel.
 */
export function redisAclRules(prefix: string): RedisAclRule[] {
  return (Object.keys(REDIS_SERVICE_QUEUES) as RedisService[]).map((service) => {
    const queues: readonly string[] = REDIS_SERVICE_QUEUES[service];
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
