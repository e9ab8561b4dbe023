import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { extraServiceNodeFlags, nextRestartDelay, Suite, type LifecycleEvent } from './suite.js';

const policy = { initialDelayMs: 100, maxDelayMs: 400, resetAfterMs: 1_000 };

describe('nextRestartDelay', () => {
  it.each([
    { last: undefined, upFor: 0, want: 100, why: 'first exit waits the initial delay' },
    { last: 100, upFor: 50, want: 200, why: 'a quick second exit doubles the wait' },
    { last: 300, upFor: 50, want: 400, why: 'the wait is capped' },
    { last: 400, upFor: 1_000, want: 100, why: 'a replica that stayed up long enough starts over' },
  ])('$why', ({ last, upFor, want }) => {
    expect(nextRestartDelay(policy, last, upFor)).toBe(want);
  });
});

describe('extraServiceNodeFlags', () => {
  it.each([
    [undefined, []],
    ['', []],
    ['--cpu-prof  --cpu-prof-dir=prof ', ['--cpu-prof', '--cpu-prof-dir=prof']],
  ])('FLOTILLA_SERVICE_NODE_FLAGS=%j gives %j', (value, flags) => {
    expect(extraServiceNodeFlags(value === undefined ? {} : { FLOTILLA_SERVICE_NODE_FLAGS: value })).toEqual(flags);
  });
});

/**
 * A stand-in service (a real process): answers /readyz on HTTP_PORT and, the first N times it is started (a file
 * counts the starts), exits with code 3 CRASH_AFTER_MS after its readiness was first asked, so the supervisor has
 * seen it ready before it crashes, however slow the machine.
 */
const crashingService = `
import { createServer } from 'node:http';
import { appendFileSync, readFileSync } from 'node:fs';
const counter = process.env.START_COUNTER;
appendFileSync(counter, 'x');
const starts = readFileSync(counter, 'utf8').length;
let armed = false;
createServer((_q, r) => {
  r.end('ok');
  if (armed || starts > Number(process.env.CRASHES)) return;
  armed = true;
  setTimeout(() => process.exit(3), Number(process.env.CRASH_AFTER_MS));
}).listen(Number(process.env.HTTP_PORT), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
`;

let root: string | undefined;
let suite: Suite | undefined;
afterEach(async () => {
  await suite?.stop();
  suite = undefined;
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

function makeRoot(): string {
  const dir = mkdtempSync(join(tmpdir(), 'flotilla-launcher-'));
  root = dir;
  mkdirSync(join(dir, 'services', 'crashy', 'dist'), { recursive: true });
  writeFileSync(join(dir, 'services', 'crashy', 'dist', 'main.js'), crashingService);
  return dir;
}

async function until(cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('Suite supervision', () => {
  it('restarts a service that exits, with growing waits, on the same HTTP port, until it stays up', async () => {
    const r = makeRoot();
    const events: LifecycleEvent[] = [];
    suite = new Suite({
      root: r,
      services: ['crashy'],
      env: { START_COUNTER: join(r, 'starts'), CRASHES: '2', CRASH_AFTER_MS: '150' },
      // The reset after a long enough life is the table's case above. Here a replica's life includes node's start-up,
      // which takes longer than a second on a loaded machine, so a real-time reset window would race the clock.
      restart: { ...policy, resetAfterMs: 600_000 },
      onLifecycle: (e) => events.push(e),
    });
    await suite.start();
    const port = suite.processes[0]!.httpPort;
    await until(() => events.filter((e) => e.type === 'restarted').length === 2);
    const exits = events.filter((e) => e.type === 'exited');
    expect(exits.map((e) => [e.code, e.restartInMs])).toEqual([
      [3, 100],
      [3, 200],
    ]);
    expect(events.filter((e) => e.type === 'restarted').map((e) => e.httpPort)).toEqual([port, port]);
    expect(suite.processes).toHaveLength(1);
    const res = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(res.ok).toBe(true);
  });

  it('without a restart policy reports the exit and leaves the service down; stop() restarts nothing', async () => {
    const r = makeRoot();
    const events: LifecycleEvent[] = [];
    suite = new Suite({
      root: r,
      services: ['crashy'],
      env: { START_COUNTER: join(r, 'starts'), CRASHES: '1', CRASH_AFTER_MS: '100' },
      onLifecycle: (e) => events.push(e),
    });
    await suite.start();
    await until(() => events.length === 1);
    expect(events[0]).toMatchObject({ type: 'exited', service: 'crashy', code: 3 });
    expect(events[0]).not.toHaveProperty('restartInMs');
    // The exit was handled (its event came), and nothing was scheduled in its place: the service stays down.
    expect(suite.pendingRestarts).toBe(0);
    expect(suite.processes.map((p) => p.child.exitCode)).toEqual([3]);
    await suite.stop();
    expect(events).toHaveLength(1);
  });

  it('gives the first replica the fixed HTTP port it is configured with', async () => {
    const r = makeRoot();
    const { freeTcpPort } = await import('@flotilla/ports');
    const port = await freeTcpPort();
    suite = new Suite({
      root: r,
      services: ['crashy'],
      env: { START_COUNTER: join(r, 'starts'), CRASHES: '0', CRASH_AFTER_MS: '0' },
      httpPorts: { crashy: port },
    });
    await suite.start();
    expect(suite.processes[0]!.httpPort).toBe(port);
  });
});
