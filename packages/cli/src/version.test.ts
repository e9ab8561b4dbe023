import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CliIo } from './context.js';
import { main } from './main.js';

describe('flotilla --version', () => {
  it("prints the CLI package's version and exits 0 without connecting", async () => {
    let out = '';
    const io: CliIo = {
      out: (t) => void (out += t),
      err: () => undefined,
      readStdin: async () => '',
      now: () => new Date(),
      env: { NATS_URL: 'nats://127.0.0.1:1' },
    };
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    expect(await main(['--version'], io)).toBe(0);
    expect(out.trim()).toBe(version);
  });
});
