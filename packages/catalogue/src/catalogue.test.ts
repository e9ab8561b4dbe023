import { describe, expect, it } from 'vitest';
import {
  API_CALLERS,
  Controllers,
  MEMBER_NATS,
  NATS_USERS,
  SERVICE_CATALOGUE,
  SERVICE_NAMES,
  natsUserEntry,
  redisServices,
} from './index.js';

const who = (grant: string) =>
  NATS_USERS.filter((u) => [...natsUserEntry(u).publish, ...natsUserEntry(u).subscribe].includes(grant as never));

describe('the service catalogue', () => {
  it('lists every deployable once, the kube-bridge last and optional', () => {
    expect(SERVICE_NAMES).toEqual([
      'gateway',
      'status-writer',
      'member-agent',
      'affinity-scheduler',
      'cron-scheduler',
      'rebalancer',
      'hpa-assigner',
      'kube-bridge',
    ]);
    expect(SERVICE_NAMES.filter((s) => SERVICE_CATALOGUE[s].optional)).toEqual(['kube-bridge']);
  });

  it('runs every controller in exactly one service, and a queue only where its controller runs', () => {
    const run = SERVICE_NAMES.flatMap((s) => SERVICE_CATALOGUE[s].controllers);
    expect([...run].sort()).toEqual(Object.values(Controllers).sort());
    for (const s of SERVICE_NAMES) {
      const entry = SERVICE_CATALOGUE[s];
      for (const q of entry.queues) expect(entry.controllers as readonly string[]).toContain(q);
      if (entry.queues.length) expect(entry.redis).toBe(true);
    }
  });

  it('only the gateway answers the API, only the status writer writes status, API clients only call it', () => {
    expect(who('api-requests')).toEqual(['gateway']);
    expect(who('status')).toEqual(['status-writer']);
    expect(who('metrics')).toEqual(['member-agent']);
    expect(who('api')).toEqual(['kube-bridge', 'cli', 'cli-read']);
    expect(natsUserEntry('cli').publish).toEqual(['api']);
    expect(natsUserEntry('cli-read').publish).toEqual(['api']);
  });

  it('one identity administers JetStream; the member-agent writes no objects; every object writer names its kinds', () => {
    expect(NATS_USERS.filter((u) => natsUserEntry(u).administers)).toEqual(['gateway']);
    expect(who('objects')).not.toContain('member-agent');
    expect(MEMBER_NATS.publish).not.toContain('objects');
    for (const u of who('objects')) expect(natsUserEntry(u).objectWrites, u).toBeDefined();
    expect(natsUserEntry('affinity-scheduler').objectWrites).toEqual({
      kinds: ['ResourceBinding', 'ClusterResourceBinding', 'Cluster'],
    });
    // A named durable consumer has one owner.
    const durables = NATS_USERS.flatMap((u) => (natsUserEntry(u).consumers ?? []).map((c) => `${c.stream}/${c.name}`));
    expect(new Set(durables).size).toBe(durables.length);
  });

  it('gives each API caller a role: the CLI and the kube-bridge admin, cli-read read', () => {
    expect(API_CALLERS).toEqual({ cli: 'admin', 'cli-read': 'read', 'kube-bridge': 'admin' });
  });

  it('the Redis users: every service but the gateway, with the queues they run', () => {
    expect(redisServices().map((s) => s.service)).not.toContain('gateway');
    expect(redisServices().find((s) => s.service === 'hpa-assigner')?.queues).toEqual([
      'hpa-assigner',
      'effective-hpa',
    ]);
  });
});
