import { describe, expect, it } from 'vitest';
import { createLogger, stalledOutputRetry } from './logger.js';
import { LogCapture } from './testing/log-capture.js';

describe('createLogger', () => {
  it('writes JSON lines with service, level label and ISO time', () => {
    const out = new LogCapture();
    const logger = createLogger({ service: 'cron-scheduler', level: 'info', destination: out });
    logger.info({ rule: 'peak' }, 'fired');
    logger.debug('hidden at info');
    expect(out.lines).toHaveLength(1);
    expect(out.lines[0]).toMatchObject({ service: 'cron-scheduler', level: 'info', rule: 'peak', msg: 'fired' });
    expect(typeof out.lines[0]?.time).toBe('string');
    expect(new Date(out.lines[0]?.time as string).toISOString()).toBe(out.lines[0]?.time);
  });

  it('blanks password and token fields wherever they appear', () => {
    const out = new LogCapture();
    const logger = createLogger({ service: 's', destination: out });
    logger.info(
      {
        password: 'p0',
        token: 't0',
        nats: { password: 'p1', token: 't1', user: 'alice' },
        config: { NATS_PASSWORD: 'p2', NATS_TOKEN: 't2', REDIS_PASSWORD: 'p3' },
        req: { headers: { authorization: 'Bearer t3' } },
      },
      'connecting',
    );
    const text = out.text();
    expect(text).not.toMatch(/p0|p1|p2|p3|t0|t1|t2|t3/);
    expect(out.lines[0]).toMatchObject({ password: '[redacted]', nats: { user: 'alice', password: '[redacted]' } });
  });

  it('respects the level', () => {
    const out = new LogCapture();
    const logger = createLogger({ service: 's', level: 'warn', destination: out });
    logger.info('no');
    logger.warn('yes');
    expect(out.lines.map((l) => l.msg)).toEqual(['yes']);
  });
});

describe('stalledOutputRetry', () => {
  it.each([
    // [ms since the first EAGAIN, retry?]
    [0, true],
    [4_999, true],
    [5_000, false],
    [60_000, false],
  ])('EAGAIN for %i ms: retry %s', (elapsed, retry) => {
    let now = 1_000;
    const rule = stalledOutputRetry(5_000, () => now);
    expect(rule.retry()).toBe(true);
    now += elapsed;
    expect(rule.retry()).toBe(retry);
  });

  it('starts the clock again after a write that went through', () => {
    let now = 0;
    const rule = stalledOutputRetry(5_000, () => now);
    rule.retry();
    now = 4_000;
    rule.written();
    now = 8_000;
    expect(rule.retry()).toBe(true);
    now = 12_999;
    expect(rule.retry()).toBe(true);
    now = 13_000;
    expect(rule.retry()).toBe(false);
  });
});
