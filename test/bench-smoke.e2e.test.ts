// Every bench at a smoke size (seconds, not minutes), so that none can crash unseen: the crash of
// `bench/run scheduler-e2e` at its default size went unnoticed because nothing ran it. The figures themselves stay in
// the benches (bench/run at their defaults), never asserted here.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/suite.js';
import { scaled } from '@flotilla/testkit';

/** Each bench's size variables at their smoke values; a bench missing here fails the completeness check below. */
const SMOKE_ENV: Record<string, Record<string, string>> = {
  'apply-throughput': { BENCH_OBJECTS: '200', BENCH_IN_FLIGHT: '16' },
  assignment: { BENCH_HPAS: '200', BENCH_CLUSTERS: '10', BENCH_ROUNDS: '1' },
  'chart-memory': { BENCH_CLUSTERS: '3', BENCH_OBJECTS: '50', BENCH_SETTLE_MS: '1000' },
  'cron-burst': { BENCH_OBJECTS: '100', BENCH_SPREAD_RULES: '5', BENCH_SPREAD_S: '3' },
  dashboard: { BENCH_BINDINGS: '200', BENCH_RUNS: '2' },
  ehpa: { BENCH_EHPAS: '20' },
  'event-publish': { BENCH_N: '200' },
  failover: { BENCH_KILLS: '1' },
  'explain-replicas': { BENCH_OWN_EVENTS: '200', BENCH_OTHER_EVENTS: '500', BENCH_RUNS: '2' },
  'fhpa-memory': { BENCH_FHPAS: '100', BENCH_CLUSTERS: '3', BENCH_SETTLE_MS: '500' },
  'fhpa-reaction': { BENCH_FHPAS: '10' },
  'kube-bridge': { BENCH_KUBE_BRIDGE_OBJECTS: '10', BENCH_KUBE_BRIDGE_MIRRORED: '50', BENCH_SETTLE_MS: '500' },
  'kube-member': { BENCH_KUBE_WORKLOADS: '10', BENCH_KUBE_PODS: '50' },
  prediction: { BENCH_DAYS: '2', BENCH_RUNS: '2' },
  'quiet-host': { BENCH_QUIET_WORKLOADS: '5', BENCH_QUIET_MS: '5000', BENCH_QUIET_SETTLE_MS: '2000' },
  rebalance: { BENCH_CLUSTERS: '5', BENCH_WORKLOADS: '100' },
  scale: { BENCH_CLUSTERS: '12', BENCH_WORKLOADS: '100', BENCH_FAIL: '2', BENCH_QUIET_MS: '1000' },
  'scheduler-algorithm': { BENCH_BINDINGS: '200', BENCH_CLUSTERS: '10', BENCH_ROUNDS: '1' },
  'scheduler-e2e': { BENCH_CLUSTERS: '5', BENCH_BINDINGS: '200', BENCH_PACED: '50', BENCH_IN_FLIGHT: '16' },
  'scheduler-memory': { BENCH_CLUSTERS: '5', BENCH_BINDINGS: '200' },
  'scheduler-replicas': { BENCH_CLUSTERS: '5', BENCH_BINDINGS: '200', BENCH_IN_FLIGHT: '16' },
  'service-memory': { BENCH_CLUSTERS: '5', BENCH_OBJECTS: '100', BENCH_SETTLE_MS: '500' },
  'status-replay': { BENCH_EVENTS: '1000', BENCH_OBJECTS: '100' },
};

const benches = readdirSync(join(ROOT, 'bench'))
  .filter((f) => f.endsWith('.ts') && f !== 'support.ts')
  .map((f) => f.slice(0, -'.ts'.length))
  .sort();

const BENCH_TIMEOUT_MS = 240_000;

function runBench(name: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    // As bench/run starts each one.
    const child = spawn(
      process.execPath,
      ['--expose-gc', '--conditions=source', '--import', 'tsx', `bench/${name}.ts`],
      {
        cwd: ROOT,
        env: { ...process.env, ...SMOKE_ENV[name] },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    // A bench that hangs is stopped at the budget with what it printed, rather than outliving the test unseen (its
    // services stop with it: they watch the IPC channel of the process that started them).
    const budget = setTimeout(() => {
      output += `\n[bench-smoke] ${name} still running after ${scaled(BENCH_TIMEOUT_MS)} ms: killed`;
      child.kill('SIGKILL');
    }, scaled(BENCH_TIMEOUT_MS));
    child.on('exit', (code) => {
      clearTimeout(budget);
      resolve({ code, output });
    });
  });
}

describe('benches at a smoke size', () => {
  it('every bench has a smoke size', () => {
    expect(benches.filter((b) => !(b in SMOKE_ENV))).toEqual([]);
    expect(Object.keys(SMOKE_ENV).filter((b) => !benches.includes(b))).toEqual([]);
  });

  it.each(benches)(
    '%s runs to the end and prints its figures',
    { timeout: scaled(BENCH_TIMEOUT_MS + 30_000) },
    async (name) => {
      const { code, output } = await runBench(name);
      expect(code, output.slice(-3000)).toBe(0);
      // Every bench reports through bench/support's report(): a title line, then indented "name  value" rows.
      expect(output).toMatch(/\n {2}\S.* {2}\S/);
      // Counts, unlike rates, hold from one machine and day to the next: a change that adds a reconcile per binding
      // (1 today: the echo of the binding's creation, placed) or a write (8 today: objects 2, status 2 (the decision's
      // fold, then the member reports of its clusters folded together), Kubernetes events 1, events 3 (the apply's
      // ReplicasApplied, the decision, one report of every cluster the binding landed on); a new workload's trail is
      // not projected) fails here. The half is room for a binding whose clusters report in different
      // passes on a slow machine.
      if (name === 'scheduler-e2e') {
        const reconciles = Number(/scheduling reconciles .*?: ([\d.]+) per binding/.exec(output)?.[1]);
        expect(reconciles, output.slice(-3000)).toBeLessThanOrEqual(1.5);
        const writes = Number(/stream writes per binding +([\d.]+) /.exec(output)?.[1]);
        expect(writes, output.slice(-3000)).toBeLessThanOrEqual(8.5);
        // One read per binding: the gateway's of what an apply replaces (a miss for a new Deployment); the status
        // writer creates a new binding's status without one.
        const gets = Number(/KV gets per binding +([\d.]+) /.exec(output)?.[1]);
        expect(gets, output.slice(-3000)).toBeLessThanOrEqual(1.1);
        // The member side: each binding looked at once in each of its clusters (replicas 1-5 over the fleet: 3 on
        // average), not again when pod metrics are due (its usage is read again without a look).
        const looks = Number(/member passes .*?: ([\d.]+) looks per binding/.exec(output)?.[1]);
        expect(looks, output.slice(-3000)).toBeLessThanOrEqual(3.5);
      }
    },
  );
});
