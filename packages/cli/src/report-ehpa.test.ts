import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliIo } from './context.js';
import { main } from './main.js';

const dir = mkdtempSync(join(tmpdir(), 'report-ehpa-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(args: string[]) {
  let out = '';
  let err = '';
  const io: CliIo = {
    out: (t) => void (out += `${t}\n`),
    err: (t) => void (err += `${t}\n`),
    readStdin: async () => '',
    now: () => new Date(),
    env: {},
  };
  return { code: await main(args, io), out, err };
}

describe('flotilla report ehpa', () => {
  it('writes the HTML page and the SVG chart and prints the table', async () => {
    const r = await run(['report', 'ehpa', '--synthetic', 'daily', '--days', '1', '--out', dir]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const rows = r.out.split('\n');
    expect(rows[0]).toMatch(/^AUTOSCALER\s+UNDER-PROVISIONED MIN\s+REPLICA-HOURS\s+REPLICA CHANGES/);
    const [, effUnder] = /EffectiveHPA\s+(\d+)/.exec(r.out)!;
    const html = readFileSync(join(dir, 'ehpa-report.html'), 'utf8');
    expect(html).toContain(`<td>EffectiveHPA (prediction + cron)</td><td>${effUnder}</td>`);
    expect(readFileSync(join(dir, 'ehpa-report.svg'), 'utf8')).toMatch(/^<svg [^>]*>[\s\S]*<polyline[\s\S]*<\/svg>\n$/);
  });

  it('needs exactly one trace source', async () => {
    const r = await run(['report', 'ehpa', '--days', '1', '--out', dir]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('exactly one of --trace FILE or --synthetic daily');
  });
});
