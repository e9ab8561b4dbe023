import { describe, expect, it } from 'vitest';
import { connectionGate } from './connection-gate.js';
import { ReadinessGates } from './readiness-gates.js';
import { pino } from 'pino';
import { LogCapture } from './testing/log-capture.js';

function captureLogs() {
  const capture = new LogCapture();
  return { logger: pino({ level: 'debug' }, capture), lines: () => capture.lines };
}

describe('connectionGate', () => {
  it('closes the gate and logs once per outage, and reopens it with the outage length', () => {
    const gates = new ReadinessGates();
    const { logger, lines } = captureLogs();
    const gate = connectionGate(gates, logger, 'nats');
    gate.down({ server: 'nats://127.0.0.1:4222' });
    gate.down({ server: 'nats://127.0.0.1:4222', error: 'ECONNREFUSED' });
    expect(gates.open).toBe(false);
    expect(gates.reasons()).toEqual(['nats: disconnected from nats://127.0.0.1:4222']);
    gate.up({ server: 'nats://127.0.0.1:4222' });
    expect(gates.open).toBe(true);
    const logged = lines().map((l) => [l.level, l.msg, l.connection, l.server]);
    expect(logged).toEqual([
      [40, 'nats connection lost', 'nats', 'nats://127.0.0.1:4222'],
      [30, 'nats connection restored', 'nats', 'nats://127.0.0.1:4222'],
    ]);
    expect(typeof lines()[1]!.outageMs).toBe('number');
  });

  it('keeps the other gates: one connection back does not make a replica ready', () => {
    const gates = new ReadinessGates();
    const { logger } = captureLogs();
    const nats = connectionGate(gates, logger, 'nats');
    const redis = connectionGate(gates, logger, 'redis');
    nats.down({ server: 'n' });
    redis.down({ server: 'r' });
    nats.up({ server: 'n' });
    expect(gates.open).toBe(false);
    expect(gates.reasons()).toEqual(['redis: disconnected from r']);
  });
});
