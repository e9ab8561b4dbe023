import { connectBus } from '@flotilla/bus';
import { dailyDemandCores } from '@flotilla/ehpa';
import { JetStreamHistory, type Sample } from '@flotilla/metric-history';
import { seededRandom } from '@flotilla/prediction';

/**
 * `scripts/up --seed-load` (FLOTILLA_SEED_LOAD=1): the example php-apache's CPU follows a working day (the EHPA
 * report's synthetic day scaled to its 200m pods: 0.12 cores at night, 0.6 from 08:00, 0.84 at lunch, UTC), and
 * days of it are recorded before its EffectiveHPA is applied: the day the dashboard charts, and before it what the
 * forecasts of that day were fitted on. A fresh system then forecasts at once, and the dashboard shows a day of usage beside
 * its forecast rather than flat lines.
 */
export const SEED_LOAD = {
  workload: { namespace: 'default', kind: 'Deployment', name: 'php-apache' },
  cluster: 'member1',
  /**
   * Days recorded: the day charted, the up to 12 h before it where its first forecast was fitted (fits fall on whole
   * 12 h), and the example EffectiveHPA's historyLength (3 days: a daily pattern needs two whole ones) before that.
   */
  days: 5,
  /** php-apache's share of the synthetic day (whose night is 3 cores and lunch 21). */
  scale: 0.04,
} as const;

/** The seeded day, one value (cores) a minute from 00:00 UTC: the simulator replays it in a loop from the epoch. */
export function seededWorkingDay(): number[] {
  const random = seededRandom(11);
  return Array.from(
    { length: 1440 },
    (_, m) => Math.round(dailyDemandCores(m * 60, random) * SEED_LOAD.scale * 1000) / 1000,
  );
}

/** The `flotilla cluster load` arguments that make php-apache follow the seeded day. */
export function seededLoadArgs(): string[] {
  return [
    'cluster',
    'load',
    SEED_LOAD.cluster,
    '--workload',
    'deploy/php-apache',
    '--series',
    seededWorkingDay().join(','),
    '--interval',
    '1m',
  ];
}

/**
 * Records SEED_LOAD.days of the seeded day up to the current minute into the metrics stream (with fresh ±3 % noise
 * per minute, as days differ); returns how many samples. The stream must exist (the services provision it).
 */
export async function seedLoad(o: { natsUrl: string; prefix: string; now?: Date }): Promise<number> {
  const bus = await connectBus({ url: o.natsUrl, prefix: o.prefix, name: 'seed-load' });
  try {
    const history = new JetStreamHistory(bus);
    const day = seededWorkingDay();
    const random = seededRandom(12);
    const nowS = Math.floor((o.now ?? new Date()).getTime() / 60_000) * 60;
    const samples: Sample[] = [];
    for (let t = nowS - SEED_LOAD.days * 86_400; t < nowS; t += 60) {
      const v = day[(t / 60) % 1440]! * (1 + 0.03 * (2 * random() - 1));
      samples.push([t, Math.round(v * 1000) / 1000]);
    }
    await history.recordAll(SEED_LOAD.workload, samples);
    return samples.length;
  } finally {
    await bus.close();
  }
}
