import { describe, expect, it } from 'vitest';
import { failBackRows } from './failbacks.js';

const now = new Date('2026-01-01T00:10:00Z');
const item = {
  namespace: 'default',
  name: 'shop-deployment',
  resource: 'Deployment/shop',
  fromGroup: 'away',
  toGroup: 'home',
  holdingSince: '2026-01-01T00:09:00Z',
  waitingFor: 'Budget',
  clusters: [{ name: 'away', replicas: 2 }],
};

describe('failBackRows', () => {
  it('says who waits, since when, when each moves and where', () => {
    expect(
      failBackRows(
        [
          {
            ...item,
            moveAt: '2026-01-01T00:10:30Z',
            turn: 2,
            targetClusters: [{ name: 'home', replicas: 2 }],
            targetGroup: 'home',
          },
          { ...item, name: 'cart-deployment', waitingFor: 'MaxConcurrent', unschedulable: 'no group fits' },
        ],
        now,
      ),
    ).toEqual([
      {
        binding: 'default/shop-deployment',
        resource: 'Deployment/shop',
        groups: 'away → home',
        since: '2026-01-01T00:09:00Z (60 s ago)',
        moves: 'in 30 s (2026-01-01T00:10:30Z)',
        turn: '2',
        reason: 'Budget',
        target: 'away:2 → home:2 (home)',
      },
      {
        binding: 'default/cart-deployment',
        resource: 'Deployment/shop',
        groups: 'away → home',
        since: '2026-01-01T00:09:00Z (60 s ago)',
        moves: 'after one of its policy under way',
        turn: '-',
        reason: 'MaxConcurrent',
        target: 'no room now: no group fits',
      },
    ]);
  });
});
