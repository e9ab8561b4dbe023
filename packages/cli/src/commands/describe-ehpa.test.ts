import { describe, expect, it } from 'vitest';
import { effectiveHpaLines } from './describe-ehpa.js';

const spec = {
  prediction: { predictionWindowSeconds: 3600 },
  crons: [{ name: 'peak', start: '0 8 * * *', end: '0 9 * * *', targetReplicas: 10 }],
};

describe('describe ehpa: the sources section', () => {
  it('shows the three proposals, the winner, the active crons, the window maximum and the next boundary', () => {
    const lines = effectiveHpaLines(
      spec,
      {
        proposals: {
          observed: { replicas: 7, detail: 'cpu resource' },
          prediction: { replicas: 6, metricValue: 3, detail: 'forecast maximum 3.950' },
          cron: { replicas: 10, metricValue: 10, detail: 'active: peak' },
        },
        winningSource: 'cron',
        activeCrons: [{ name: 'peak', targetReplicas: 10 }],
        predictionWindowMax: 3.95,
        nextCronBoundary: '2026-03-02T09:00:00Z',
        forecastError: { mape: 0.083, windowSeconds: 3600, samples: 60 },
      },
      new Date('2026-03-02T08:30:00Z'),
    );
    expect(lines.join('\n')).toBe(
      [
        'Sources:',
        '  Source       Proposal   Detail',
        '  observed     7          cpu resource',
        '  prediction   6          forecast maximum 3.950',
        '  cron         10         active: peak',
        'Winning source:         cron',
        'Active crons:           peak (10)',
        'Next cron boundary:     2026-03-02T09:00:00Z (in 30m)',
        'Prediction window max:  3.950 over the next 3600s',
        'Forecast error:         8.3 % MAPE over the last 3600s (60 samples)',
      ].join('\n'),
    );
  });

  it('says why a source has no proposal, and when nothing has been decided yet', () => {
    const lines = effectiveHpaLines(
      spec,
      {
        proposals: { prediction: { reason: 'NotEnoughHistory', message: '20h of contiguous history' } },
        predictionWindowMax: null,
      },
      new Date('2026-03-02T08:30:00Z'),
    );
    expect(lines).toContain('Prediction window max:  <no forecast>');
    expect(lines).toContain('Forecast error:         <no past forecast to compare yet>');
    expect(lines.some((l) => l.includes('NotEnoughHistory: 20h of contiguous history'))).toBe(true);
    expect(effectiveHpaLines(undefined, undefined, new Date())).toEqual([
      'Sources:      <none yet>',
      'Winning source:         <none>',
    ]);
  });
});
