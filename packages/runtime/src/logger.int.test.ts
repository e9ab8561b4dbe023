// A service's log lines go to stdout, a pipe its supervisor reads. Neither a supervisor that is gone (killed -9) nor
// one that keeps the pipe open but stops reading may keep the service from exiting.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { scaled } from '@flotilla/testkit';
import { describe, expect, it } from 'vitest';
import { STALLED_OUTPUT_GIVE_UP_MS } from './logger.js';

const runtimeDist = fileURLToPath(new URL('../dist/index.js', import.meta.url));

/** Logs far more than a pipe holds, then exits: with nobody reading, the last lines can never be written. */
const chatty = `
const { createLogger } = await import(process.env.RUNTIME_DIST);
const logger = createLogger({ service: 'chatty' });
for (let i = 0; i < 20000; i++) logger.info({ i, pad: 'x'.repeat(200) }, 'a line nobody reads');
process.stderr.write('logged\\n');
setTimeout(() => process.exit(0), 100);
`;

/** Waits for the word on stdin, then logs a burst and exits at once, with lines still waiting to be written. */
const exitsMidBurst = `
const { createLogger } = await import(process.env.RUNTIME_DIST);
const logger = createLogger({ service: 'orphan' });
process.stdin.once('data', () => {
  for (let i = 0; i < 200; i++) logger.info({ i }, 'a line for a reader that is gone');
  process.exit(0);
});
`;

describe('stdout whose reader is gone', () => {
  it('cannot keep a process from exiting with lines still to write', async () => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', exitsMidBurst], {
      env: { ...process.env, RUNTIME_DIST: runtimeDist },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    // The supervisor is gone: its end of the pipe is closed, so every write from now on fails with EPIPE.
    child.stdout.destroy();
    child.stdin.write('go\n');
    const exited = once(child, 'exit');
    const budget = scaled(10_000);
    const timer = setTimeout(() => child.kill('SIGKILL'), budget);
    const [, signal] = await exited;
    clearTimeout(timer);
    expect(signal, `still running ${budget} ms later, so it was killed`).toBeNull();
  }, 30_000);
});

describe('stdout that nobody reads', () => {
  it(
    'cannot keep a process from exiting: lines are dropped once the reader stalls',
    async () => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', chatty], {
        env: { ...process.env, RUNTIME_DIST: runtimeDist },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      // stdout is never read (the stream stays paused, so the pipe fills up); stderr tells when logging is done.
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
      });
      const exited = once(child, 'exit');
      const budget = scaled(STALLED_OUTPUT_GIVE_UP_MS * 3);
      const timer = setTimeout(() => child.kill('SIGKILL'), budget);
      const [, signal] = await exited;
      clearTimeout(timer);
      expect(stderr).toContain('logged');
      expect(signal, `still running ${budget} ms later, so it was killed`).toBeNull();
    },
    scaled(STALLED_OUTPUT_GIVE_UP_MS * 4),
  );
});
