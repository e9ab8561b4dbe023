import { describe, expect, it } from 'vitest';
import { runEhpaReport } from './report-ehpa.js';
import { compareRuns, renderReportHtml } from './report-html.js';
import type { ReplayRun } from './replay.js';
import { syntheticDailyTrace } from './synthetic-trace.js';

const MONDAY = Date.parse('2026-03-02T00:00:00Z') / 1000;

/** The table's figures recomputed from the per-minute points the chart is drawn from. */
function fromPoints(run: ReplayRun) {
  let changes = 0;
  for (let i = 1; i < run.points.length; i++) if (run.points[i]!.replicas !== run.points[i - 1]!.replicas) changes++;
  return {
    under: run.points.filter((p) => p.load > p.capacity).length,
    replicaHours: run.points.reduce((s, p) => s + p.replicas, 0) / 60,
    minuteChanges: changes,
  };
}

describe('EffectiveHPA report: predictive vs reactive on the synthetic daily trace', () => {
  // 3 days of pre-seeded history, 1 replayed day (the README's figures come from 3 replayed days)
  const report = runEhpaReport({ trace: syntheticDailyTrace(MONDAY - 3 * 86_400, 4), startSeconds: MONDAY });

  it('the table agrees with the per-minute series the chart draws', () => {
    for (const run of [report.effective, report.reactive]) {
      const p = fromPoints(run);
      expect(run.points).toHaveLength(1440);
      expect(run.summary.underProvisionedMinutes).toBe(p.under);
      // replica-hours integrate every 15 s sync; the minute series samples them
      expect(Math.abs(run.summary.replicaHours - p.replicaHours) / p.replicaHours).toBeLessThan(0.01);
      expect(run.summary.replicaChanges).toBeGreaterThanOrEqual(p.minuteChanges);
    }
  });

  it('the reactive HPA runs short at the sudden rises; the EffectiveHPA scales ahead of them for little extra', () => {
    expect(report.reactive.summary.underProvisionedMinutes).toBeGreaterThan(0);
    const c = compareRuns(report.effective.summary, report.reactive.summary);
    expect(c.underProvisionedReduction).toBeGreaterThanOrEqual(0.8);
    expect(c.extraReplicaHours).toBeLessThanOrEqual(0.1);
    expect(report.effective.wins.prediction).toBeGreaterThan(0);
    // ahead of the 08:00 surge the EffectiveHPA already runs more replicas than the reactive HPA
    const at = (run: ReplayRun, hhmm: string) =>
      run.points.find((p) => p.t === MONDAY + Date.parse(`1970-01-01T${hhmm}:00Z`) / 1000)!;
    expect(at(report.effective, '07:58').replicas).toBeGreaterThan(at(report.reactive, '07:58').replicas);
  });

  it('the HTML page is self-contained: the chart inline, no external scripts, styles or images', () => {
    const html = renderReportHtml(report);
    expect(html).toContain('<svg xmlns="http://www.w3.org/2000/svg"');
    expect(html.replaceAll('http://www.w3.org/2000/svg', '')).not.toMatch(/https?:\/\/|<script|<link|<img/);
    expect(html).toContain(`<td>reactive HPA</td><td>${report.reactive.summary.underProvisionedMinutes}</td>`);
  });
});
