import type { EhpaReport } from './report-ehpa.js';
import { renderReportSvg } from './report-svg.js';
import type { ReplaySummary } from './replay.js';

export interface ReportComparison {
  /** 1 − effective / reactive under-provisioned minutes (1 when the reactive HPA had none either). */
  underProvisionedReduction: number;
  /** effective / reactive replica-hours − 1. */
  extraReplicaHours: number;
}

export function compareRuns(effective: ReplaySummary, reactive: ReplaySummary): ReportComparison {
  return {
    underProvisionedReduction:
      reactive.underProvisionedMinutes === 0
        ? 1
        : 1 - effective.underProvisionedMinutes / reactive.underProvisionedMinutes,
    extraReplicaHours: effective.replicaHours / reactive.replicaHours - 1,
  };
}

const pct = (f: number) => `${(f * 100).toFixed(1)} %`;
const escape = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** The report as one HTML page with the chart inline: no scripts, styles or images from elsewhere. */
export function renderReportHtml(report: EhpaReport, title = 'EffectiveHPA: predictive vs reactive'): string {
  const e = report.effective.summary;
  const r = report.reactive.summary;
  const c = compareRuns(e, r);
  const row = (name: string, s: ReplaySummary) =>
    `<tr><td>${name}</td><td>${s.underProvisionedMinutes}</td>` +
    `<td>${s.replicaHours.toFixed(1)}</td><td>${s.replicaChanges}</td></tr>`;
  const from = new Date(report.startSeconds * 1000).toISOString();
  const to = new Date(report.endSeconds * 1000).toISOString();
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>
<style>
body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:4px 10px;text-align:right}td:first-child,th:first-child{text-align:left}
</style>
</head><body>
<h1>${escape(title)}</h1>
<p>Replay from ${from} to ${to}, in virtual time, through the EffectiveHPA controller's decision; the same trace once
with prediction and crons and once as a plain reactive HPA of the same target and metric.</p>
${renderReportSvg(report)}
<table>
<thead><tr>
<th>autoscaler</th><th>under-provisioned minutes</th><th>replica-hours</th><th>replica changes</th>
</tr></thead>
<tbody>
${row('EffectiveHPA (prediction + cron)', e)}
${row('reactive HPA', r)}
</tbody></table>
<p>Under-provisioned minutes: ${pct(c.underProvisionedReduction)} fewer.
Replica-hours: ${c.extraReplicaHours >= 0 ? '+' : ''}${pct(c.extraReplicaHours)}.
Scaling decisions won by source: ${escape(JSON.stringify(report.effective.wins))}.</p>
</body></html>
`;
}
