import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compareRuns, renderReportHtml, renderReportSvg, runEhpaReport, syntheticDailyTrace } from '@flotilla/ehpa';
import { CliError, type CliIo } from '../context.js';
import { formatTable } from '@flotilla/presentation';
import { readRangeFile } from '../range-file.js';

/** The synthetic trace starts on a Monday, so the weekday cron of the default EffectiveHPA takes part. */
const SYNTHETIC_START = Date.parse('2026-03-02T00:00:00Z') / 1000;
/** Days of history the synthetic replay starts with (Crane's DSP needs two whole periods; 3 days is its example). */
const SYNTHETIC_HISTORY_DAYS = 3;

export interface ReportEhpaOptions {
  /** `--trace`: demand in cores as a Prometheus range-query response. */
  trace?: string;
  /** `--synthetic daily`: a generated trace instead. */
  synthetic?: string;
  /** Days to replay, a whole number as typed; REPORT_EHPA_DEFAULTS.days when not given. */
  days?: string;
  /** Where the report is written; REPORT_EHPA_DEFAULTS.out when not given. */
  out?: string;
}

export const REPORT_EHPA_DEFAULTS = { days: '3', out: '.' } as const;

/**
 * `report ehpa`: replays a load trace through the EffectiveHPA decision and through a reactive HPA, and writes
 * `ehpa-report.html` (self-contained) and `ehpa-report.svg` into --out.
 */
export async function reportEhpaCommand(io: CliIo, options: ReportEhpaOptions): Promise<number> {
  const o = {
    ...options,
    days: options.days ?? REPORT_EHPA_DEFAULTS.days,
    out: options.out ?? REPORT_EHPA_DEFAULTS.out,
  };
  const days = Number(o.days);
  if (!Number.isInteger(days) || days < 1)
    throw new CliError(`error: --days must be a whole number of days ≥ 1, not "${o.days}"`);
  if ((o.trace === undefined) === (o.synthetic === undefined))
    throw new CliError('error: give exactly one of --trace FILE or --synthetic daily');
  let trace: Awaited<ReturnType<typeof readRangeFile>>;
  let start: number;
  if (o.synthetic !== undefined) {
    if (o.synthetic !== 'daily') throw new CliError(`error: --synthetic must be "daily", not "${o.synthetic}"`);
    trace = syntheticDailyTrace(SYNTHETIC_START - SYNTHETIC_HISTORY_DAYS * 86_400, SYNTHETIC_HISTORY_DAYS + days);
    start = SYNTHETIC_START;
  } else {
    trace = await readRangeFile(o.trace!, '--trace');
    if (trace.length === 0) throw new CliError(`error: --trace ${o.trace}: no samples`);
    // the last --days days are replayed; everything before them is the history the prediction starts from
    start = trace[trace.length - 1]![0] - days * 86_400;
    if (trace[0]![0] >= start)
      throw new CliError(`error: --trace ${o.trace}: needs history before the last ${days} day(s)`);
  }
  const report = runEhpaReport({ trace, startSeconds: start });
  await mkdir(o.out, { recursive: true });
  const html = join(o.out, 'ehpa-report.html');
  const svg = join(o.out, 'ehpa-report.svg');
  await writeFile(html, renderReportHtml(report));
  await writeFile(svg, `${renderReportSvg(report)}\n`);
  const e = report.effective.summary;
  const r = report.reactive.summary;
  const c = compareRuns(e, r);
  io.out(
    formatTable(
      ['AUTOSCALER', 'UNDER-PROVISIONED MIN', 'REPLICA-HOURS', 'REPLICA CHANGES'],
      [
        ['EffectiveHPA', String(e.underProvisionedMinutes), e.replicaHours.toFixed(1), String(e.replicaChanges)],
        ['reactive HPA', String(r.underProvisionedMinutes), r.replicaHours.toFixed(1), String(r.replicaChanges)],
      ],
    ),
  );
  io.out(
    `under-provisioned minutes ${(c.underProvisionedReduction * 100).toFixed(1)} % fewer, replica-hours ` +
      `${c.extraReplicaHours >= 0 ? '+' : ''}${(c.extraReplicaHours * 100).toFixed(1)} %`,
  );
  io.out(`wrote ${html} and ${svg}`);
  return 0;
}
