import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Counter } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { baseConfigSchema } from './config.js';
import { envInt } from './env-fields.js';
import { ConfigError } from './errors.js';
import { ServiceHost, type ServiceContext } from './service.js';
import { LogCapture } from './testing/log-capture.js';

const quietEnv = { LOG_LEVEL: 'silent' };

describe('ServiceHost', () => {
  const hosts: ServiceHost<typeof baseConfigSchema>[] = [];
  afterEach(async () => {
    await Promise.all(hosts.splice(0).map((h) => h.stop().catch(() => undefined)));
  });

  function host(
    start: (ctx: ServiceContext) => Promise<(() => Promise<void>) | undefined> | Promise<void>,
    env: Record<string, string> = quietEnv,
    log?: LogCapture,
  ) {
    const h = new ServiceHost(
      { name: 'demo', configSchema: baseConfigSchema, start },
      { env, logDestination: log, stopTimeoutMs: 500 },
    );
    hosts.push(h);
    return h;
  }

  it('starts: config, http on an ephemeral port, not ready until the service says so', async () => {
    let ctx: ServiceContext | undefined;
    const h = host(async (c) => {
      ctx = c;
    });
    await h.start();
    expect(h.state).toBe('running');
    expect(ctx?.config.LEADER_LEASE_MS).toBe(10_000);
    expect(ctx?.httpPort).toBe(h.httpPort);
    const base = `http://127.0.0.1:${h.httpPort}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(503);
    ctx?.setReady(true);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    ctx?.setReady(false);
    expect((await fetch(`${base}/readyz`)).status).toBe(503);
  });

  it('hands the loaded configuration to onConfig before the service starts, and not at all when it is invalid', async () => {
    const calls: string[] = [];
    const start = async () => {
      calls.push('start');
    };
    const ok = new ServiceHost(
      { name: 'demo', configSchema: baseConfigSchema, start },
      {
        env: { ...quietEnv, HEAP_GROWTH_PERCENT: '40' },
        onConfig: (c) => calls.push(`config ${c.HEAP_GROWTH_PERCENT}`),
      },
    );
    hosts.push(ok);
    await ok.start();
    expect(calls).toEqual(['config 40', 'start']);
    const bad = new ServiceHost(
      { name: 'demo', configSchema: baseConfigSchema, start },
      { env: { ...quietEnv, HEAP_GROWTH_PERCENT: '-1' }, onConfig: () => calls.push('bad config') },
    );
    await expect(bad.start()).rejects.toThrow(/HEAP_GROWTH_PERCENT/);
    expect(calls).toEqual(['config 40', 'start']);
  });

  it('serves default metrics, the ready gauge and the service own metrics', async () => {
    const h = host(async ({ registry, setReady }) => {
      new Counter({ name: 'demo_things_total', help: 'things', registers: [registry] }).inc();
      setReady(true);
    });
    await h.start();
    const body = await (await fetch(`http://127.0.0.1:${h.httpPort}/metrics`)).text();
    expect(body).toContain('process_cpu_user_seconds_total');
    expect(body).toContain('demo_things_total{service="demo"} 1');
    expect(body).toContain('flotilla_service_ready{service="demo"} 1');
  });

  it('the ready gauge follows the readiness gates, as /readyz does', async () => {
    let gates: ServiceContext['gates'] | undefined;
    const h = host(async (ctx) => {
      gates = ctx.gates;
      ctx.setReady(true);
    });
    await h.start();
    const gauge = async () =>
      /flotilla_service_ready\{service="demo"\} (\d)/.exec(
        await (await fetch(`http://127.0.0.1:${h.httpPort}/metrics`)).text(),
      )?.[1];
    expect(await gauge()).toBe('1');
    gates!.set('nats', false, 'disconnected');
    expect(await gauge()).toBe('0');
    expect((await fetch(`http://127.0.0.1:${h.httpPort}/readyz`)).status).toBe(503);
    gates!.set('nats', true);
    expect(await gauge()).toBe('1');
  });

  it('stop: not ready, signal aborted, stop function called, http closed; idempotent', async () => {
    const order: string[] = [];
    let signal: AbortSignal | undefined;
    const h = host(async (ctx) => {
      signal = ctx.signal;
      ctx.setReady(true);
      return async () => {
        order.push(`stop fn (aborted=${String(ctx.signal.aborted)}, ready=${String(h.isReady())})`);
      };
    });
    await h.start();
    const base = `http://127.0.0.1:${h.httpPort}`;
    await Promise.all([h.stop(), h.stop()]);
    expect(order).toEqual(['stop fn (aborted=true, ready=false)']);
    expect(signal?.aborted).toBe(true);
    expect(h.state).toBe('stopped');
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  });

  it('a bad config throws ConfigError before anything starts', async () => {
    let started = false;
    const h = host(
      async () => {
        started = true;
      },
      { LEADER_LEASE_MS: 'abc', HTTP_PORT: '70000' },
    );
    const err = await h.start().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toContain('LEADER_LEASE_MS: expected an integer >= 1000, got "abc"');
    expect((err as ConfigError).message).toContain('HTTP_PORT: expected an integer from 0 to 65535, got "70000"');
    expect(started).toBe(false);
    expect(h.httpPort).toBeUndefined();
    expect(h.state).toBe('failed');
  });

  it('a failing start tears down the http server and rethrows', async () => {
    const h = host(async () => {
      throw new Error('NATS unreachable');
    });
    await expect(h.start()).rejects.toThrow('NATS unreachable');
    expect(h.state).toBe('failed');
    await h.stop();
    expect(h.state).toBe('stopped');
  });

  it('a stop function that throws still closes http, and stop() reports it', async () => {
    const h = host(async () => async () => {
      throw new Error('flush failed');
    });
    await h.start();
    const base = `http://127.0.0.1:${h.httpPort}`;
    await expect(h.stop()).rejects.toThrow('flush failed');
    expect(h.state).toBe('stopped');
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  });

  it('a stop function that hangs is abandoned after stopTimeoutMs', async () => {
    const h = host(async () => () => new Promise<void>(() => undefined));
    await h.start();
    await expect(h.stop()).rejects.toThrow(/did not finish within 500 ms/);
    expect(h.state).toBe('stopped');
  });

  it('a stop during start waits for start, then stops', async () => {
    let release: () => void = () => undefined;
    let stopped = false;
    const h = host(async () => {
      await new Promise<void>((r) => (release = r));
      return async () => {
        stopped = true;
      };
    });
    const starting = h.start();
    await new Promise((r) => setTimeout(r, 20));
    const stopping = h.stop();
    release();
    await starting;
    await stopping;
    expect(stopped).toBe(true);
    expect(h.state).toBe('stopped');
  });

  it('start twice is refused', async () => {
    const h = host(async () => undefined);
    await h.start();
    expect(() => h.start()).toThrow(/start\(\) called in state running/);
  });

  it('refuses a bad service name', () => {
    expect(
      () => new ServiceHost({ name: 'Bad Name', configSchema: baseConfigSchema, start: async () => undefined }),
    ).toThrow(/name must be/);
  });

  it('passes an extended config through, typed', async () => {
    const schema = baseConfigSchema.extend({ SIM_CLUSTERS: envInt({ default: 3, min: 1 }) });
    let clusters = 0;
    const h = new ServiceHost(
      {
        name: 'member-agent',
        configSchema: schema,
        start: async ({ config }) => {
          clusters = config.SIM_CLUSTERS;
        },
      },
      { env: { ...quietEnv, SIM_CLUSTERS: '5' } },
    );
    await h.start();
    await h.stop();
    expect(clusters).toBe(5);
  });

  it('logs its config at start with credentials hidden', async () => {
    const log = new LogCapture();
    const h = host(
      async () => undefined,
      {
        LOG_LEVEL: 'info',
        NATS_URL: 'nats://alice:s3cret@127.0.0.1:4222',
        REDIS_URL: 'redis://:hunter2@127.0.0.1:6379',
        NATS_PASSWORD: 'pw-nats',
        NATS_TOKEN: 'tok-nats',
        REDIS_PASSWORD: 'pw-redis',
      },
      log,
    );
    await h.start();
    await h.stop();
    const text = log.text();
    expect(text).not.toMatch(/s3cret|hunter2|pw-nats|tok-nats|pw-redis/);
    const starting = log.lines.find((l) => l.msg === 'starting') as { config: Record<string, unknown> } | undefined;
    expect(starting?.config).toMatchObject({
      NATS_URL: 'nats://***@127.0.0.1:4222',
      REDIS_URL: 'redis://***@127.0.0.1:6379',
      NATS_PASSWORD: '[redacted]',
    });
    expect(log.lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['starting', 'started', 'stopping', 'stopped']));
  });
});

describe('runService (as a process)', () => {
  const fixture = fileURLToPath(new URL('./testing/demo-service.ts', import.meta.url));

  interface Run {
    output(): string;
    stderr(): string;
    waitFor(text: string): Promise<void>;
    exit: Promise<number | null>;
    kill(signal: NodeJS.Signals): void;
  }

  function run(env: Record<string, string>): Run {
    const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', fixture], {
      env: { ...process.env, LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    const waiters: (() => void)[] = [];
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      for (const w of waiters) w();
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    return {
      output: () => out,
      stderr: () => err,
      exit,
      kill: (s) => child.kill(s),
      waitFor: (text) =>
        new Promise<void>((resolve, reject) => {
          const check = (): void => {
            if (out.includes(text)) resolve();
          };
          waiters.push(check);
          check();
          void exit.then((code) => reject(new Error(`exited (${String(code)}) before "${text}"; stderr: ${err}`)));
        }),
    };
  }

  it('SIGTERM stops the service and exits 0', async () => {
    const p = run({});
    await p.waitFor('READY');
    p.kill('SIGTERM');
    expect(await p.exit).toBe(0);
    expect(p.output()).toContain('STOPPING\nSTOPPED\n');
  });

  it('SIGINT does the same', async () => {
    const p = run({});
    await p.waitFor('READY');
    p.kill('SIGINT');
    expect(await p.exit).toBe(0);
    expect(p.output()).toContain('STOPPED\n');
  });

  it('a second signal forces exit while the stop function hangs', async () => {
    const p = run({ DEMO_HANG_STOP: 'true' });
    await p.waitFor('READY');
    p.kill('SIGTERM');
    await p.waitFor('STOPPING');
    p.kill('SIGTERM');
    expect(await p.exit).toBe(1);
    expect(p.output()).not.toContain('STOPPED');
  });

  it("a supervisor's SIGTERM after the terminal's SIGINT waits for the shutdown; SIGINT again does not", async () => {
    const p = run({ DEMO_HANG_STOP: 'true' });
    await p.waitFor('READY');
    p.kill('SIGINT');
    await p.waitFor('STOPPING');
    p.kill('SIGTERM');
    const early = await Promise.race([
      p.exit.then(() => 'exited'),
      new Promise((r) => setTimeout(() => r('waiting'), 500)),
    ]);
    expect(early).toBe('waiting');
    p.kill('SIGINT');
    expect(await p.exit).toBe(1);
  });

  it('a bad config exits 1 naming the variable, without echoing secrets', async () => {
    const p = run({ LEADER_LEASE_MS: 'abc', REDIS_URL: 'http://:hunter2@redis' });
    expect(await p.exit).toBe(1);
    expect(p.stderr()).toContain('demo: invalid configuration:');
    expect(p.stderr()).toContain('LEADER_LEASE_MS: expected an integer >= 1000, got "abc"');
    expect(p.stderr()).toContain(
      'REDIS_URL: expected a URL starting with redis:// or rediss://, got "http://***@redis"',
    );
    expect(p.stderr()).not.toContain('hunter2');
    expect(p.output()).not.toContain('READY');
  });

  it('a failing start exits 1', async () => {
    const p = run({ DEMO_FAIL_START: 'true', LOG_LEVEL: 'error' });
    expect(await p.exit).toBe(1);
    expect(p.output()).toContain('cannot reach the bus');
  });
});
