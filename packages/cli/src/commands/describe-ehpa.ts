import { formatAge, formatTable } from '@flotilla/presentation';

type Proposal = { replicas?: number; metricValue?: number; detail?: string; reason?: string; message?: string };
interface EhpaStatusView {
  proposals?: Record<string, Proposal>;
  winningSource?: string | null;
  activeCrons?: Array<{ name: string; targetReplicas: number }>;
  predictionWindowMax?: number | null;
  nextCronBoundary?: string | null;
  forecastError?: { mape: number; windowSeconds: number; samples: number } | null;
}

/**
 * The EffectiveHPA's "Sources:" section: each source's proposal (or why it has none), which one won, the active
 * crons, the forecast's maximum over the prediction window, how far the forecasts for the last window were from what
 * was then observed, and when the next cron boundary comes.
 */
export function effectiveHpaLines(
  spec: Record<string, unknown> | undefined,
  status: Record<string, unknown> | undefined,
  now: Date,
): string[] {
  const s = (status ?? {}) as EhpaStatusView;
  const proposals = s.proposals ?? {};
  const rows = ['observed', 'prediction', 'cron']
    .filter((source) => proposals[source] !== undefined)
    .map((source) => {
      const p = proposals[source]!;
      return p.replicas !== undefined
        ? [source, String(p.replicas), p.detail ?? '']
        : [source, '-', `${p.reason ?? 'Unknown'}: ${p.message ?? ''}`];
    });
  const lines = rows.length
    ? [
        'Sources:',
        ...formatTable(['Source', 'Proposal', 'Detail'], rows)
          .split('\n')
          .map((l) => `  ${l}`),
      ]
    : ['Sources:      <none yet>'];
  lines.push(`Winning source:         ${s.winningSource ?? '<none>'}`);
  const crons = (spec?.crons as unknown[] | undefined)?.length ?? 0;
  if (crons > 0) {
    const active = (s.activeCrons ?? []).map((c) => `${c.name} (${c.targetReplicas})`).join(', ');
    lines.push(`Active crons:           ${active || '<none>'}`);
    const next = s.nextCronBoundary;
    const until = next ? formatAge(now.toISOString(), new Date(Date.parse(next))) : undefined;
    lines.push(`Next cron boundary:     ${next ? `${next} (in ${until})` : '<none>'}`);
  }
  const window = (spec?.prediction as { predictionWindowSeconds?: number } | undefined)?.predictionWindowSeconds;
  if (window !== undefined) {
    const max = s.predictionWindowMax;
    const shown = typeof max === 'number' ? `${max.toFixed(3)} over the next ${window}s` : '<no forecast>';
    lines.push(`Prediction window max:  ${shown}`);
    const e = s.forecastError;
    lines.push(
      `Forecast error:         ${
        e
          ? `${(e.mape * 100).toFixed(1)} % MAPE over the last ${e.windowSeconds}s (${e.samples} samples)`
          : '<no past forecast to compare yet>'
      }`,
    );
  }
  return lines;
}
