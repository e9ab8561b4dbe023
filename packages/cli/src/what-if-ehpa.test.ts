import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliIo } from './context.js';
import { main } from './main.js';

const FILE = fileURLToPath(new URL('./testdata/ehpa.yaml', import.meta.url));
const NOW = '2026-03-04T03:00:00Z';
const nowS = Date.parse(NOW) / 1000;
const dir = mkdtempSync(join(tmpdir(), 'what-if-ehpa-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A range-query answer of three days of one-minute samples `value(t)` up to one minute before `end`, as a file. */
function rangeQueryFile(name: string, end: number, value: (t: number) => string): string {
  const values: Array<[number, string]> = [];
  for (let t = end - 3 * 86_400; t < end; t += 60) values.push([t, value(t)]);
  const body = { status: 'success', data: { resultType: 'matrix', result: [{ metric: {}, values }] } };
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(body));
  return path;
}

/** Three days of a daily sine (4 ± 3 cores, peak at 06:00 UTC) up to one minute before --now. */
const historyFile = () =>
  rangeQueryFile('history.json', nowS, (t) => (4 + 3 * Math.sin((2 * Math.PI * (t % 86_400)) / 86_400)).toFixed(4));

async function run(args: string[]) {
  let out = '';
  let err = '';
  const io: CliIo = {
    out: (t) => {
      out += `${t}\n`;
    },
    err: (t) => {
      err += `${t}\n`;
    },
    readStdin: async () => '',
    now: () => new Date(NOW),
    env: {},
  };
  const code = await main(args, io);
  return { code, out, err };
}

interface Result {
  items: Array<{ kind: string; status: Record<string, unknown> & { proposals: Record<string, unknown> } }>;
  cron: { activeCrons: unknown[]; metricValue: number };
  prediction: { periodic: boolean; periodSeconds: number | null; samples: Array<[number, number]> };
}

describe('flotilla what-if ehpa (offline)', () => {
  const history = historyFile();

  it('prints a List: the EffectiveHPA as the controller would write it, the cron metric, the forecast', async () => {
    const r = await run(['what-if', 'ehpa', '-f', FILE, '--now', NOW, '--history', history, '-o', 'json']);
    expect(r.err).toBe('');
    const out = JSON.parse(r.out) as Result & Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['apiVersion', 'kind', 'items', 'cron', 'prediction']);
    expect([out.apiVersion, out.kind, out.items.length]).toEqual(['v1', 'List', 1]);
    expect(out.cron).toEqual({ activeCrons: [{ name: 'night-batch', targetReplicas: 12 }], metricValue: 12 });

    expect([out.prediction.periodic, out.prediction.periodSeconds]).toEqual([true, 86_400]);
    // from the first step after the last history sample, one period by default
    expect(out.prediction.samples[0]![0]).toBe(nowS);
    expect(out.prediction.samples).toHaveLength(1440);
    const peak = Math.max(...out.prediction.samples.map(([, v]) => v));
    expect(peak).toBeGreaterThan(7);
    expect(peak).toBeLessThan(7 * 1.05);

    const status = out.items[0]!.status;
    // window [03:00, 06:00] reaches the 06:00 peak: trunc(≈7.07) = 7 cores against 500m per pod -> 14
    expect(status.predictionWindowMax).toBeGreaterThan(7);
    expect(status.proposals.prediction).toMatchObject({ replicas: 14, metricValue: 7 });
    // observed: 6.12 cores over 10 pods requesting 1 core, 61 % against 50 % -> 13
    expect(status.proposals.observed).toMatchObject({ replicas: 13 });
    expect(status.proposals.cron).toMatchObject({ replicas: 12 });
    expect(status).toMatchObject({
      expectReplicas: 14,
      currentReplicas: 10,
      winningSource: 'prediction',
      lastScaleTime: NOW,
    });
    expect(status.nextCronBoundary).toBe('2026-03-04T04:00:00Z');
    expect(status.conditions).toContainEqual(
      expect.objectContaining({
        type: 'PredictionReady',
        status: 'True',
        reason: 'PredictSucceed',
        lastTransitionTime: NOW,
      }),
    );
  });

  it("gives Crane's forecast for a daily square wave (20 from 08:00 to 20:00 UTC, 5 otherwise, 3 days)", async () => {
    const midnight = Date.parse('2026-03-04T00:00:00Z') / 1000;
    const path = rangeQueryFile('square.json', midnight, (t) => {
      const minute = (t % 86_400) / 60;
      return minute >= 480 && minute < 1200 ? '20' : '5';
    });
    const args = ['what-if', 'ehpa', '-f', FILE, '--history', path, '-o', 'json'];
    const r = await run([...args, '--now', '2026-03-04T00:00:00Z']);
    const samples = (JSON.parse(r.out) as Result).prediction.samples;
    expect(samples[0]![0]).toBe(midnight);
    // Crane's numbers at minutes 0, 120, 840 and 1439 of the next day
    expect([0, 120, 840, 1439].map((m) => Number(samples[m]![1].toFixed(4)))).toEqual([
      5.0328, 5.0975, 20.1525, 5.0118,
    ]);
  });

  it('--horizon sets how far the forecast reaches', async () => {
    const r = await run([
      'what-if',
      'ehpa',
      '-f',
      FILE,
      '--now',
      NOW,
      '--history',
      history,
      '--horizon',
      '2h',
      '-o',
      'json',
    ]);
    const out = JSON.parse(r.out) as Result;
    expect(out.prediction.samples).toHaveLength(120);
    expect(out.prediction.samples[119]![0] - out.prediction.samples[0]![0]).toBe(119 * 60);
  });

  it('without history the prediction is not ready, says why, and the cron decides', async () => {
    const r = await run(['what-if', 'ehpa', '-f', FILE, '--now', NOW, '-o', 'json']);
    const out = JSON.parse(r.out) as Result;
    expect(out.prediction).toEqual({ periodic: false, periodSeconds: null, samples: [] });
    const status = out.items[0]!.status;
    expect(status.conditions).toContainEqual(
      expect.objectContaining({ type: 'PredictionReady', status: 'False', reason: 'NoHistory' }),
    );
    expect(status.proposals.observed).toMatchObject({ reason: 'FailedGetResourceMetric' });
    expect(status).toMatchObject({ expectReplicas: 12, winningSource: 'cron' });
  });

  it('prints a summary table without -o', async () => {
    const r = await run(['what-if', 'ehpa', '-f', FILE, '--now', NOW, '--history', history]);
    expect(r.out).toMatch(
      /NAME\s+EXPECT\s+CURRENT\s+WINNER\s+OBSERVED\s+PREDICTION\s+CRON\nweb\s+14\s+10\s+prediction\s+13\s+14\s+12/,
    );
    expect(r.out).toContain('Active crons: night-batch(12); cron metric 12');
  });

  it('a history file that is not a range-query answer fails with the field at fault', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ status: 'success', data: { resultType: 'vector', result: [] } }));
    const r = await run(['what-if', 'ehpa', '-f', FILE, '--now', NOW, '--history', bad, '-o', 'json']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('data.resultType');
  });

  it('refuses what the gateway refuses: a cron window that never fires, with its field path', async () => {
    const never = join(dir, 'never.yaml');
    writeFileSync(never, readFileSync(FILE, 'utf8').replace('end: "0 4 * * *"', 'end: "0 0 30 2 *"'));
    const r = await run(['what-if', 'ehpa', '-f', never, '--now', NOW]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('spec.crons[0].end');
  });

  it('a file without the target fails naming scaleTargetRef', async () => {
    const only = join(dir, 'only-ehpa.yaml');
    writeFileSync(only, readFileSync(FILE, 'utf8').split('---\n')[1]!);
    const r = await run(['what-if', 'ehpa', '-f', only, '--now', NOW]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('spec.scaleTargetRef: Deployment default/web is not in the files');
  });
});
