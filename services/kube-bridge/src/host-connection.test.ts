import { ReadinessGates } from '@flotilla/runtime';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HOST_GATE, HostConnection } from './host-connection.js';

const logger = pino({ level: 'silent' });

describe('HostConnection', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('one failed request, answered again within the grace, leaves the bridge ready', () => {
    vi.useFakeTimers();
    const gates = new ReadinessGates();
    const c = new HostConnection({ gates, logger, server: 'https://host', graceMs: 2000 });
    c.lost('CronFederatedHPA', 'ECONNRESET');
    expect(gates.open).toBe(true);
    vi.advanceTimersByTime(1999);
    c.restored('CronFederatedHPA');
    vi.advanceTimersByTime(10_000);
    expect(gates.open).toBe(true);
  });

  it('unreachable for the grace: not ready, naming the server and the last error; ready once every part is back', () => {
    vi.useFakeTimers();
    const gates = new ReadinessGates();
    const c = new HostConnection({ gates, logger, server: 'https://host', graceMs: 2000 });
    c.lost('CronFederatedHPA', 'ECONNREFUSED');
    c.lost('FederatedHPA', 'ECONNREFUSED');
    vi.advanceTimersByTime(2000);
    expect(gates.reasons()).toEqual([
      `${HOST_GATE}: cannot reach the host API server https://host (FederatedHPA: ECONNREFUSED)`,
    ]);
    c.restored('CronFederatedHPA');
    expect(gates.open).toBe(false);
    c.restored('FederatedHPA');
    expect(gates.open).toBe(true);
  });
});
