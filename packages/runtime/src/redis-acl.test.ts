import { describe, expect, it } from 'vitest';
import { aclSetUserArgs, redisAclRules } from './redis-acl.js';

describe('redisAclRules', () => {
  const rules = redisAclRules('flotilla');

  it.each([
    ['status-writer', ['~flotilla:leader:status-writer', '~flotilla:leader:status-writer:*']],
    ['member-agent', ['~flotilla:leader:member-agent', '~flotilla:leader:member-agent:*']],
    ['affinity-scheduler', ['~flotilla:leader:affinity-scheduler', '~flotilla:leader:affinity-scheduler:*']],
    [
      'cron-scheduler',
      ['~flotilla:leader:cron-scheduler', '~flotilla:leader:cron-scheduler:*', '~flotilla:cron-scheduler:*'],
    ],
    ['rebalancer', ['~flotilla:leader:rebalancer', '~flotilla:leader:rebalancer:*', '~flotilla:rebalancer:*']],
    [
      'hpa-assigner',
      [
        '~flotilla:leader:hpa-assigner',
        '~flotilla:leader:hpa-assigner:*',
        '~flotilla:hpa-assigner:*',
        '~flotilla:effective-hpa:*',
      ],
    ],
    ['kube-bridge', ['~flotilla:leader:kube-bridge', '~flotilla:leader:kube-bridge:*', '~flotilla:kube-bridge:*']],
  ])('lets %s reach only its leases and queues', (service, keys) => {
    const rule = rules.find((r) => r.service === service);
    expect(rule?.user).toBe(`flotilla-${service}`);
    expect(rule?.rules.filter((r) => r.startsWith('~'))).toEqual(keys);
  });

  it('gives the gateway, which does not use Redis, no user', () => {
    expect(rules.map((r) => r.service)).not.toContain('gateway');
  });

  it('removes dangerous commands after granting writes, and adds back only INFO', () => {
    for (const { rules: r } of rules) {
      expect(r.indexOf('-@dangerous')).toBeGreaterThan(r.indexOf('+@write'));
      expect(r.slice(r.indexOf('-@dangerous') + 1)).toEqual(['+info']);
    }
  });

  it('creates the user afresh with its password', () => {
    const rule = rules[0];
    if (!rule) throw new Error('no rules');
    expect(aclSetUserArgs(rule, 's3cret').slice(0, 5)).toEqual(['SETUSER', rule.user, 'reset', 'on', '>s3cret']);
  });
});
