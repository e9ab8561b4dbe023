import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, type Bus } from '@flotilla/bus';
import { testBus } from '@flotilla/bus/testing';
import { ManualClock } from '@flotilla/runtime';
import { memberUsageKey, type MemberUsage } from '@flotilla/store';
import { MemberUsageWriter } from './member-usage.js';

let bus: Bus & { dispose(): Promise<void> };
beforeAll(async () => {
  bus = await testBus('member-usage');
});
afterAll(async () => {
  await bus?.dispose();
});

const web = { kind: 'ResourceBinding', namespace: 'default', name: 'web-deployment' };
const api = { kind: 'ResourceBinding', namespace: 'shop', name: 'api.v2-deployment' };

describe('MemberUsageWriter (real NATS)', () => {
  it('writes what moved, keeps what did not, and deletes what is gone', async () => {
    const clock = new ManualClock(new Date('2026-03-02T10:00:00Z'));
    const w = new MemberUsageWriter({ bus, clock });
    const read = (ref: typeof web, cluster: string) => getJson<MemberUsage>(bus.usage, memberUsageKey(ref, cluster));

    expect(
      await w.publish([
        { ref: web, cluster: 'member1', cpuUsageMilli: 20 },
        { ref: web, cluster: 'member2', cpuUsageMilli: 30 },
        { ref: api, cluster: 'member1', cpuUsageMilli: 5 },
      ]),
    ).toBe(3);
    expect((await read(web, 'member1'))?.value).toEqual({ cpuUsageMilli: 20, observedAt: '2026-03-02T10:00:00.000Z' });
    // a dotted binding name: the key's last token is the cluster
    expect(memberUsageKey(api, 'member1')).toBe('ResourceBinding.shop.api.v2-deployment.member1');
    const kept = (await read(web, 'member2'))!.revision;

    clock.advance(10_000);
    expect(
      await w.publish([
        { ref: web, cluster: 'member1', cpuUsageMilli: 23 },
        { ref: web, cluster: 'member2', cpuUsageMilli: 30 },
      ]),
    ).toBe(2); // member1 moved, api's usage is gone
    expect((await read(web, 'member1'))?.value.cpuUsageMilli).toBe(23);
    expect((await read(web, 'member2'))?.revision).toBe(kept);
    expect(await read(api, 'member1')).toBeUndefined();

    expect(
      await w.publish([
        { ref: web, cluster: 'member1', cpuUsageMilli: 23 },
        { ref: web, cluster: 'member2', cpuUsageMilli: 30 },
      ]),
    ).toBe(0);
  });
});
