import { admit, toYaml } from '@flotilla/api';
import { whatIfEhpa, WhatIfInputError } from '@flotilla/ehpa';
import { CliError, readManifests, type CliIo } from '../context.js';
import { parseDuration } from '../duration.js';
import { formatTable } from '@flotilla/presentation';
import { readRangeFile } from '../range-file.js';
import { scheduleChecks } from '@flotilla/cron';
import { WHAT_IF_DEFAULTS, type WhatIfOptions } from './what-if.js';

export interface WhatIfEhpaOptions extends WhatIfOptions {
  /** Required here: the answer depends on the time of day of the crons and the forecast. */
  now: string;
  /** `--history`: the workload usage as a Prometheus range-query response. */
  history?: string;
  /** `--horizon`: how far to forecast, a duration. */
  horizon?: string;
  /** WHAT_IF_DEFAULTS.timeZone when not given. */
  timeZone?: string;
}

/** `what-if ehpa`: the status the EffectiveHPA controller would write at --now, the cron metric and the forecast. */
export async function whatIfEhpaCommand(io: CliIo, o: WhatIfEhpaOptions): Promise<number> {
  const now = new Date(Date.parse(o.now));
  if (Number.isNaN(now.getTime()) || !/^\d{4}-\d{2}-\d{2}T/.test(o.now)) {
    throw new CliError(`error: --now "${o.now}" is not an RFC 3339 time such as 2026-03-08T09:04:00Z`);
  }
  // The gateway's admission, cron and time-zone checks included, so a file it refuses is refused here too.
  const docs = (await readManifests(io, o.filename)).map(({ doc }) => admit(doc, { schedules: scheduleChecks }));
  const history = o.history === undefined ? undefined : await readRangeFile(o.history, '--history');
  const horizonMs = o.horizon === undefined ? undefined : parseDuration(o.horizon, '--horizon');
  if (horizonMs !== undefined && horizonMs <= 0) throw new CliError('error: --horizon must be longer than zero');
  let result: ReturnType<typeof whatIfEhpa>;
  try {
    result = whatIfEhpa(docs, {
      now,
      ...(history ? { history } : {}),
      ...(horizonMs === undefined ? {} : { horizonSeconds: Math.ceil(horizonMs / 1000) }),
      controllerZone: o.timeZone || WHAT_IF_DEFAULTS.timeZone,
    });
  } catch (err) {
    if (err instanceof WhatIfInputError) throw new CliError(`error: ${err.message}`);
    throw err;
  }
  if (o.output === 'json') {
    io.out(JSON.stringify(result, null, 2));
    return 0;
  }
  if (o.output === 'yaml') {
    io.out(toYaml(result).trimEnd());
    return 0;
  }
  const item = result.items[0];
  const status = item.status as Record<string, unknown> & {
    proposals?: Record<string, { replicas?: number; reason?: string }>;
  };
  const proposal = (s: string) => {
    const p = status.proposals?.[s];
    return p === undefined ? '-' : p.replicas !== undefined ? String(p.replicas) : `<${p.reason}>`;
  };
  io.out(
    formatTable(
      ['NAME', 'EXPECT', 'CURRENT', 'WINNER', 'OBSERVED', 'PREDICTION', 'CRON'],
      [
        [
          item.metadata.name,
          String(status.expectReplicas ?? '-'),
          String(status.currentReplicas ?? '-'),
          String(status.winningSource ?? '-'),
          proposal('observed'),
          proposal('prediction'),
          proposal('cron'),
        ],
      ],
    ),
  );
  const active = result.cron.activeCrons.map((c) => `${c.name}(${c.targetReplicas})`).join(', ') || '<none>';
  io.out(`Active crons: ${active}; cron metric ${result.cron.metricValue}`);
  io.out(
    result.prediction.periodic
      ? `Forecast: periodic every ${result.prediction.periodSeconds}s, ${result.prediction.samples.length} samples`
      : 'Forecast: none (not periodic or not enough history)',
  );
  return 0;
}
