import { spawn, type ChildProcess } from 'node:child_process';
import { stopWithThisProcess } from './reaper.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeTcpPort } from '@flotilla/ports';

/**
 * A Prometheus server of a test's own (Debian's `prometheus`; PROMETHEUS names the binary), on a free loopback
 * port with a throw-away TSDB, scraping the given `host:port` targets every `scrapeIntervalS` seconds. Without
 * the binary the test fails with a message saying what to install; it does not skip.
 */
export class PrivatePrometheus {
  readonly output: string[] = [];
  private child: ChildProcess | undefined;
  private dir: string | undefined;
  private readonly bin = process.env.PROMETHEUS ?? 'prometheus';
  port = 0;

  constructor(
    private readonly targets: string[],
    private readonly scrapeIntervalS = 1,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(timeoutMs = 20_000): Promise<void> {
    this.port = await freeTcpPort();
    this.dir = mkdtempSync(join(tmpdir(), 'flotilla-prometheus-'));
    const config = join(this.dir, 'prometheus.yml');
    writeFileSync(
      config,
      [
        'global:',
        `  scrape_interval: ${this.scrapeIntervalS}s`,
        `  evaluation_interval: ${this.scrapeIntervalS}s`,
        'scrape_configs:',
        '  - job_name: test',
        '    static_configs:',
        `      - targets: [${this.targets.map((t) => JSON.stringify(t)).join(', ')}]`,
        '',
      ].join('\n'),
    );
    const child = spawn(
      this.bin,
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${join(this.dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${this.port}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.child = child;
    for (const s of [child.stdout, child.stderr])
      s?.on('data', (b: Buffer) => this.output.push(...b.toString('utf8').split('\n').filter(Boolean)));
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (err) =>
        reject(
          new Error(
            `cannot run ${this.bin} (${err.message}): this test needs a Prometheus server; apt-get install prometheus`,
          ),
        ),
      );
    });
    await stopWithThisProcess(child);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (child.exitCode !== null)
        throw new Error(`prometheus exited with code ${child.exitCode}: ${this.output.slice(-5).join(' | ')}`);
      const ok = await fetch(`${this.url}/-/ready`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return;
      if (Date.now() > deadline) throw new Error(`prometheus was not ready within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }
}
