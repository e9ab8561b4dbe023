import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudEvent, publishEvent, type Bus } from '@flotilla/bus';
import { GatewayClient } from '@flotilla/client';
import { testBus } from '@flotilla/bus/testing';
import { eventually } from '@flotilla/testkit';
import type { CliIo } from '../context.js';
import { eventsCommand } from './events.js';

let bus: Bus & { dispose(): Promise<void> };
beforeAll(async () => {
  bus = await testBus('cli-ev');
});
afterAll(async () => {
  await bus?.dispose();
});

const scheduled = (name: string) =>
  cloudEvent({
    source: 'affinity-scheduler',
    type: 'BindingScheduled',
    kind: 'ResourceBinding',
    namespace: 'default',
    name,
    time: new Date('2026-01-01T00:00:00Z'),
    data: { kubeEvent: { type: 'Normal', reason: 'ScheduleBindingSucceed', message: `placed ${name}` } },
  });

describe('flotilla events --follow -o json', () => {
  it('prints each stored and each new CloudEvents envelope as it is, one per line, until interrupted', async () => {
    const first = scheduled('web-deployment');
    await publishEvent(bus, first);
    await publishEvent(bus, scheduled('other-deployment'));
    const lines: string[] = [];
    const io: CliIo = {
      out: (t) => void lines.push(t),
      err: () => undefined,
      readStdin: async () => '',
      now: () => new Date(),
      env: {},
    };
    const ac = new AbortController();
    const session = { bus, client: new GatewayClient(bus.nc, { apiRoot: bus.names.apiRoot }) };
    const running = eventsCommand(io, session, {
      follow: true,
      output: 'json',
      for: 'rb/web-deployment',
      signal: ac.signal,
    });
    await eventually(() => (lines.length >= 1 ? true : undefined), 5000, 'the stored event');
    const second = scheduled('web-deployment');
    await publishEvent(bus, second);
    await eventually(() => (lines.length >= 2 ? true : undefined), 5000, 'the new event');
    ac.abort();
    expect(await running).toBe(0);
    expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual([first, second]);
  });

  it('prints a table without -o, and rejects other formats', async () => {
    const lines: string[] = [];
    const io: CliIo = {
      out: (t) => void lines.push(t),
      err: () => undefined,
      readStdin: async () => '',
      now: () => new Date(),
      env: {},
    };
    const session = { bus, client: new GatewayClient(bus.nc, { apiRoot: bus.names.apiRoot }) };
    await eventsCommand(io, session, { for: 'rb/other-deployment' });
    expect(lines.join('\n')).toMatch(
      /^TIME\s+EVENT\s+OBJECT\s+MESSAGE\n2026-01-01T00:00:00.000Z\s+BindingScheduled\s+ResourceBinding\/default\/other-deployment\s+placed other-deployment$/,
    );
    await expect(eventsCommand(io, session, { output: 'yaml' })).rejects.toThrow(/-o json only/);
  });
});
