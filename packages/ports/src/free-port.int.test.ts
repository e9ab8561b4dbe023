import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ephemeralPortRange, freePortPicker, freeTcpPort, pickWindow } from './free-port.js';

const listening: Server[] = [];
afterEach(async () => {
  await Promise.all(listening.splice(0).map((s) => new Promise((r) => s.close(r))));
});

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(port, '127.0.0.1', () => {
      listening.push(srv);
      resolve(srv);
    });
  });
}

describe('pickWindow', () => {
  it.each([
    [
      { low: 32_768, high: 60_999 },
      { low: 16_384, high: 32_767 },
    ],
    [
      { low: 10_000, high: 65_535 },
      { low: 1_024, high: 9_999 },
    ],
    [{ low: 1_500, high: 65_535 }, undefined],
  ])('below the ephemeral range %o: %o', (ephemeral, window) => {
    expect(pickWindow(ephemeral)).toEqual(window);
  });
});

describe('ephemeralPortRange', () => {
  it("reads the kernel's setting, and falls back to Linux's default when it cannot", () => {
    const dir = mkdtempSync(join(tmpdir(), 'ports-'));
    try {
      writeFileSync(join(dir, 'range'), '40000\t50000\n');
      expect(ephemeralPortRange(join(dir, 'range'))).toEqual({ low: 40_000, high: 50_000 });
      expect(ephemeralPortRange(join(dir, 'missing'))).toEqual({ low: 32_768, high: 60_999 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('freeTcpPort', () => {
  it('hands out distinct listenable ports outside the ephemeral range, also to calls made at once', async () => {
    const { low, high } = ephemeralPortRange();
    const ports = await Promise.all(Array.from({ length: 40 }, () => freeTcpPort()));
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) expect(port < low || port > high, `port ${port} in ${low}-${high}`).toBe(true);
    await Promise.all(ports.map(listen));
  });

  it('skips a port something listens on, and lets the kernel choose once the window is used up', async () => {
    const held = await freeTcpPort();
    await listen(held);
    // A window of the held port alone: every pick finds it taken.
    const picker = freePortPicker({ low: held, high: held }, () => 0);
    const port = await picker.next();
    expect(port).not.toBe(held);
    await listen(port);
  });

  it('never hands out the same port twice, even once it is free again', async () => {
    const port = await freeTcpPort();
    const picker = freePortPicker({ low: port, high: port }, () => 0);
    expect(await picker.next()).toBe(port);
    expect(await picker.next()).not.toBe(port);
  });
});
