import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { applyCommand } from './commands/apply.js';
import {
  CLUSTER_ADD_DEFAULTS,
  CLUSTER_LOAD_DEFAULTS,
  clusterAddCommand,
  clusterFailCommand,
  clusterLoadCommand,
} from './commands/cluster.js';
import { deleteCommand } from './commands/delete.js';
import { describeCommand } from './commands/describe.js';
import { eventsCommand } from './commands/events.js';
import { explainReplicasCommand } from './commands/explain.js';
import { getCommand } from './commands/get.js';
import { WAIT_DEFAULTS, waitCommand } from './commands/wait.js';
import { REBALANCE_DEFAULTS, rebalanceCommand } from './commands/rebalance.js';
import { whatIfRebalanceCommand } from './commands/what-if-rebalance.js';
import { WHAT_IF_DEFAULTS, whatIfCronCommand, whatIfFhpaCommand, whatIfScheduleCommand } from './commands/what-if.js';
import { whatIfEhpaCommand } from './commands/what-if-ehpa.js';
import { whatIfApplyCommand, whatIfClusterCommand } from './commands/what-if-live.js';
import { REPORT_EHPA_DEFAULTS, reportEhpaCommand } from './commands/report-ehpa.js';
import { processIo, withLazySession, withSession, type CliIo, type Session } from './context.js';
import { errorText } from './errors.js';

const collect = (v: string, acc: readonly string[]) => [...acc, v];

/** The CLI package's own version (src/ and dist/ both sit one level below the package.json). */
function cliVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

/** Builds the command tree; each action stores its exit code in `result`. */
function program(io: CliIo, result: { code: number }): Command {
  const run = (fn: () => Promise<number>) => async () => {
    result.code = await fn();
  };
  const online = (fn: (s: Session) => Promise<number>) => run(() => withSession(io, fn));
  // apply and delete read their files before connecting, so a bad file fails without touching the bus.
  const lazy = (fn: (session: () => Promise<Session>) => Promise<number>) => run(() => withLazySession(io, fn));

  const cli = new Command('flotilla')
    .description(
      'Flotilla: multi-cluster scheduling and autoscaling (kubectl-like CLI). Connects to NATS_URL with FLOTILLA_PREFIX.',
    )
    .configureOutput({ writeOut: (t) => io.out(t), writeErr: (t) => io.err(t) })
    .version(cliVersion(), '--version', 'print the version of the flotilla command')
    .exitOverride()
    .showHelpAfterError();

  cli
    .command('apply')
    .description('create or update objects from multi-document YAML (files, directories or - for stdin)')
    .requiredOption('-f, --filename <path>', 'file, directory or -', collect, [])
    .option('--dry-run', 'run admission only, store nothing')
    .action((o: { filename: string[]; dryRun?: boolean }) => lazy((session) => applyCommand(io, session, o))());

  cli
    .command('get')
    .description('list objects of a kind, or show some by name')
    .argument('<kind>', 'kind, plural or short name (clusters, pp, cpp, rb, crb, fhpa, cronfhpa, ehpa, deploy, ...)')
    .argument('[names...]')
    .option('-n, --namespace <ns>')
    .option('-A, --all-namespaces')
    .option('-o, --output <format>', 'json | yaml | wide')
    .action((kind: string, names: string[], o) => online((s) => getCommand(io, s, { ...o, kind, names }))());

  cli
    .command('describe')
    .description('show an object with its status and events')
    .argument('<kind>')
    .argument('<name>')
    .option('-n, --namespace <ns>')
    .action((kind: string, name: string, o: { namespace?: string }) =>
      online((s) => describeCommand(io, s, { ...o, kind, name }))(),
    );

  cli
    .command('delete')
    .description('delete objects by KIND NAME... or by -f FILE')
    .argument('[kind]')
    .argument('[names...]')
    .option('-f, --filename <path>', 'file, directory or -', collect, [])
    .option('-n, --namespace <ns>')
    .action((kind: string | undefined, names: string[], o: { filename: string[]; namespace?: string }) =>
      lazy((session) => deleteCommand(io, session, { ...o, kind, names }))(),
    );

  cli
    .command('wait')
    .description('wait for a condition on one object: --for=condition=Ready[=True], --for=create or --for=delete')
    .argument('<target>', 'KIND/NAME')
    .requiredOption('--for <condition>')
    .option('--timeout <duration>', 'how long to wait', WAIT_DEFAULTS.timeout)
    .option('-n, --namespace <ns>')
    .action((target: string, o: { for: string; timeout: string; namespace?: string }) =>
      online((s) => waitCommand(io, s, { ...o, target }))(),
    );

  cli
    .command('events')
    .description('print the domain event log (CloudEvents); --follow to keep printing')
    .option('--follow', 'keep printing new events')
    .option('--for <target>', 'only the events of KIND/NAME')
    .option('-n, --namespace <ns>')
    .option('-o, --output <format>', 'json: one CloudEvents envelope per line')
    .action((o: { follow?: boolean; for?: string; namespace?: string; output?: string }) =>
      online(async (s) => {
        const ac = new AbortController();
        const stop = () => ac.abort();
        process.once('SIGINT', stop);
        try {
          return await eventsCommand(io, s, { ...o, signal: ac.signal });
        } finally {
          process.off('SIGINT', stop);
        }
      })(),
    );

  cli
    .command('rebalance')
    .description(
      'create a WorkloadRebalancer: a Fresh rescheduling of the workloads named (and selected); --wait prints the results',
    )
    .argument('[targets...]', 'KIND/NAME of each workload (deploy/web, clusterrole/viewer, ...)')
    .option('-n, --namespace <ns>', 'namespace of the named workloads (default: default), and of --selector')
    .option(
      '--selector <k=v>',
      'also rebalance the workloads with this label (repeatable; all must match)',
      collect,
      REBALANCE_DEFAULTS.selector,
    )
    .option('--ttl <duration>', 'delete the rebalancer this long after it finishes (ttlSecondsAfterFinished)')
    .option('--name <name>', "the rebalancer's name (default: rebalance-<time>-<random>)")
    .option(
      '--wait',
      'wait until it finishes and the scheduler has rescheduled the workloads, then print results and placements',
    )
    .option('--timeout <duration>', 'how long --wait waits', REBALANCE_DEFAULTS.timeout)
    .action((targets: string[], o) => online((s) => rebalanceCommand(io, s, { ...o, targets }))());

  const cluster = cli
    .command('cluster')
    .description('member clusters: add simulated ones, fail and recover them, set load');
  cluster
    .command('add')
    .argument('<name>')
    .option('--sim', 'a simulated member cluster')
    .option('--cpu <quantity>', 'allocatable CPU', CLUSTER_ADD_DEFAULTS.cpu)
    .option('--memory <quantity>', 'allocatable memory', CLUSTER_ADD_DEFAULTS.memory)
    .option('--pods <count>', 'allocatable pods', CLUSTER_ADD_DEFAULTS.pods)
    .option('--label <k=v>', 'cluster label (repeatable)', collect, CLUSTER_ADD_DEFAULTS.label)
    .option('--taint <k=v:Effect>', 'cluster taint (repeatable)', collect, CLUSTER_ADD_DEFAULTS.taint)
    .option('--provider <name>')
    .option('--region <name>')
    .option('--zone <name>')
    .action((name: string, o) => online((s) => clusterAddCommand(io, s, { ...o, name }))());
  cluster
    .command('fail')
    .argument('<name>')
    .description('make a simulated cluster unreachable (its Ready condition turns False)')
    .action((name: string) => online((s) => clusterFailCommand(io, s, { name, failed: true }))());
  cluster
    .command('recover')
    .argument('<name>')
    .action((name: string) => online((s) => clusterFailCommand(io, s, { name, failed: false }))());
  cluster
    .command('load')
    .argument('<name>', 'simulated cluster')
    .requiredOption('--workload <kind/name>')
    .option('-n, --namespace <ns>')
    .option('--constant <cores>')
    .option('--step <before,after,at>')
    .option('--sine <mean,amplitude,period>')
    .option('--series <v1,v2,...>')
    .option('--interval <duration>', 'step of --series', CLUSTER_LOAD_DEFAULTS.interval)
    .description('set the CPU demand (cores) of a workload in a simulated cluster, driving its HPA there')
    .action((name: string, o) => online((s) => clusterLoadCommand(io, s, { ...o, name }))());

  cli
    .command('explain')
    .description('why an object is as it is')
    .command('replicas')
    .description(
      "every change of a workload's replicas (spec.replicas, each cluster's share, member HPA min/max): when, from, to, who decided it and why, from the event stream",
    )
    .argument('<target>', 'KIND/NAME, e.g. deploy/web')
    .option('-n, --namespace <ns>')
    .option('--since <duration>', 'only changes in this last span, e.g. 24h')
    .option('-o, --output <format>', 'json')
    .action((target: string, o: { namespace?: string; since?: string; output?: string }) =>
      online((s) => explainReplicasCommand(io, s, { ...o, target }))(),
    );

  const whatIf = cli
    .command('what-if')
    .description('planning: offline from files (no NATS or Redis needed), or --live against the running system');
  whatIf
    .command('schedule')
    .description(
      'print the bindings the scheduler would write for Clusters, templates, policies (and bindings) in FILE',
    )
    .requiredOption('-f, --filename <path>', 'file, directory or -', collect, [])
    .addOption(new Option('-o, --output <format>').choices(['json', 'yaml']))
    .option('--now <rfc3339>', 'the scheduling time (default: now)')
    .action((o: { filename: string[]; output?: string; now?: string }) => run(() => whatIfScheduleCommand(io, o))());
  whatIf
    .command('fhpa')
    .description("print the target's binding after the FederatedHPA assignment and each cluster's member HPA min/max")
    .requiredOption('-f, --filename <path>', 'file, directory or -', collect, [])
    .addOption(new Option('-o, --output <format>').choices(['json', 'yaml']))
    .option('--now <rfc3339>', 'the assignment time (default: now)')
    .action((o: { filename: string[]; output?: string; now?: string }) => run(() => whatIfFhpaCommand(io, o))());
  whatIf
    .command('cron')
    .description("print each rule's next execution and the executions in (now, until]")
    .requiredOption('-f, --filename <path>', 'file, directory or -', collect, [])
    .requiredOption('--now <rfc3339>')
    .option('--until <rfc3339>')
    .option('--time-zone <zone>', 'the controller zone for rules without timeZone', WHAT_IF_DEFAULTS.timeZone)
    .addOption(new Option('-o, --output <format>').choices(['json', 'yaml']))
    .action((o: { filename: string[]; output?: string; now: string; until?: string; timeZone: string }) =>
      run(() => whatIfCronCommand(io, o))(),
    );

  whatIf
    .command('rebalance')
    .description(
      'print what the rebalancer would do at --now with the WorkloadRebalancer and (Cluster)ResourceBindings in FILE',
    )
    .requiredOption('-f, --filename <path>', 'file, directory or -', collect, [])
    .requiredOption('--now <rfc3339>')
    .addOption(new Option('-o, --output <format>').choices(['json', 'yaml']))
    .action((o: { filename: string[]; output?: string; now: string }) => run(() => whatIfRebalanceCommand(io, o))());

  whatIf
    .command('ehpa')
    .description('print the status the EffectiveHPA controller would write at --now, its cron metric and forecast')
    .requiredOption('-f, --filename <path>', 'the EffectiveHPA and its target (file, directory or -)', collect, [])
    .requiredOption('--now <rfc3339>')
    .option('--history <file.json>', 'the workload usage as a Prometheus range-query response')
    .option('--horizon <duration>', 'how far to forecast (default: one detected period, at least the window)')
    .option('--time-zone <zone>', 'the controller zone for crons with timezone Local', WHAT_IF_DEFAULTS.timeZone)
    .addOption(new Option('-o, --output <format>').choices(['json', 'yaml']))
    .action(
      (o: { filename: string[]; output?: string; now: string; history?: string; horizon?: string; timeZone: string }) =>
        run(() => whatIfEhpaCommand(io, o))(),
    );

  whatIf
    .command('apply')
    .description(
      'ask the running system what applying FILE would move: every binding touched, before → after, rejected clusters, what stays Unschedulable; nothing is written',
    )
    .requiredOption('-f, --filename <path>', 'file, directory or -', collect, [])
    .option('--live', 'read the live state through the gateway (required)')
    .addOption(new Option('-o, --output <format>').choices(['json', 'yaml']))
    .action((o: { filename: string[]; live?: boolean; output?: string }) =>
      lazy((session) => whatIfApplyCommand(io, session, o))(),
    );
  const whatIfCluster = whatIf
    .command('cluster')
    .description(
      'ask the running system what a cluster action would move, after the failover grace; nothing is written',
    );
  for (const action of ['fail', 'cordon', 'taint'] as const) {
    const c = whatIfCluster.command(action).argument('<name>');
    if (action === 'taint') c.argument('<taint>', 'KEY[=VALUE]:EFFECT');
    c.option('--live', 'read the live state through the gateway (required)')
      .addOption(new Option('-o, --output <format>').choices(['json', 'yaml']))
      .action((name: string, ...rest: unknown[]) => {
        const taint = action === 'taint' ? (rest[0] as string) : undefined;
        const o = (action === 'taint' ? rest[1] : rest[0]) as { live?: boolean; output?: string };
        return online((s) =>
          whatIfClusterCommand(io, s, { ...o, action, name, ...(taint !== undefined ? { taint } : {}) }),
        )();
      });
  }

  cli
    .command('report')
    .description('offline reports')
    .command('ehpa')
    .description(
      'replay a load trace with the EffectiveHPA and with a reactive HPA; write an HTML report and SVG chart',
    )
    .option(
      '--trace <file.json>',
      'demand in cores as a Prometheus range-query response (the last --days are replayed)',
    )
    .option('--synthetic <shape>', 'a generated trace: daily')
    .option('--days <n>', 'days to replay', REPORT_EHPA_DEFAULTS.days)
    .option('--out <dir>', 'where to write ehpa-report.html and ehpa-report.svg', REPORT_EHPA_DEFAULTS.out)
    .action((o: { trace?: string; synthetic?: string; days: string; out: string }) =>
      run(() => reportEhpaCommand(io, o))(),
    );

  return cli;
}

/** Runs the CLI and returns the exit code (0 ok, 1 failure); errors go to stderr. */
export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const result = { code: 0 };
  try {
    await program(io, result).parseAsync(argv, { from: 'user' });
    return result.code;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 1;
    io.err(errorText(err));
    return 1;
  }
}
