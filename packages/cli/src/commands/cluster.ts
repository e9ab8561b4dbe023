import { resolveKind } from '@flotilla/api';
import { CliError, type CliIo, type Session } from '../context.js';
import { errorText } from '../errors.js';

export interface AddClusterOptions {
  name: string;
  /** Only simulated clusters can be added from the CLI. */
  sim?: boolean;
  /** Allocatable capacity; CLUSTER_ADD_DEFAULTS where not given. */
  cpu?: string;
  memory?: string;
  pods?: string;
  /** `k=v`, repeatable. */
  label?: readonly string[];
  /** `k[=v]:Effect`, repeatable. */
  taint?: readonly string[];
  provider?: string;
  region?: string;
  zone?: string;
}

export const CLUSTER_ADD_DEFAULTS = {
  cpu: '8',
  memory: '32Gi',
  pods: '110',
  label: [] as readonly string[],
  taint: [] as readonly string[],
} as const;

const TAINT = /^([^=:]+)(?:=([^:]*))?:(NoSchedule|PreferNoSchedule|NoExecute)$/;

/** The Cluster object `cluster add` applies; simulated capacity lives in `spec.simulation`. */
export function simulatedCluster(options: AddClusterOptions): object {
  const o = { ...CLUSTER_ADD_DEFAULTS, ...definedOnly(options) };
  const { name } = o;
  const labels: Record<string, string> = {};
  for (const l of o.label) {
    const i = l.indexOf('=');
    if (i <= 0) throw new CliError(`error: --label "${l}" is not KEY=VALUE`);
    labels[l.slice(0, i)] = l.slice(i + 1);
  }
  const taints = o.taint.map((t) => {
    const m = TAINT.exec(t);
    if (!m)
      throw new CliError(
        `error: --taint "${t}" is not KEY[=VALUE]:EFFECT with EFFECT one of NoSchedule, PreferNoSchedule, NoExecute`,
      );
    return { key: m[1]!, ...(m[2] !== undefined ? { value: m[2] } : {}), effect: m[3]! };
  });
  return {
    apiVersion: 'cluster.karmada.io/v1alpha1',
    kind: 'Cluster',
    metadata: { name, ...(Object.keys(labels).length ? { labels } : {}) },
    spec: {
      syncMode: 'Push',
      ...(o.provider ? { provider: o.provider } : {}),
      ...(o.region ? { region: o.region } : {}),
      ...(o.zone ? { zone: o.zone } : {}),
      ...(taints.length ? { taints } : {}),
      simulation: { allocatable: { cpu: o.cpu, memory: o.memory, pods: o.pods } },
    },
  };
}

/** The fields of `o` that are set: an option left undefined takes its default. */
function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export async function clusterAddCommand(io: CliIo, s: Session, o: AddClusterOptions): Promise<number> {
  if (!o.sim)
    throw new CliError(
      'error: only simulated clusters can be added from the CLI (--sim); join a real cluster by applying its Cluster object and running a member-agent with the kube driver',
    );
  const r = await s.client.apply(simulatedCluster(o));
  io.out(`cluster/${o.name} ${r.outcome}`);
  return 0;
}

type Sim = Record<string, unknown>;

/** Read-modify-write of `spec.simulation` through the gateway, guarded by the resourceVersion read. */
async function updateSimulation(s: Session, name: string, change: (sim: Sim) => Sim) {
  const info = resolveKind('Cluster');
  const c = await s.client.get(info.kind, name);
  const spec = (c.spec ?? {}) as { simulation?: Sim };
  if (!spec.simulation) throw new CliError(`error: cluster "${name}" is not simulated (it has no spec.simulation)`);
  const { status: _status, ...rest } = c;
  return s.client.apply({ ...rest, spec: { ...spec, simulation: change({ ...spec.simulation }) } });
}

export interface ClusterFailOptions {
  name: string;
  /** true: `cluster fail` (unreachable); false: `cluster recover`. */
  failed: boolean;
}

export async function clusterFailCommand(io: CliIo, s: Session, o: ClusterFailOptions): Promise<number> {
  const { name, failed } = o;
  try {
    const r = await updateSimulation(s, name, (sim) => ({ ...sim, failed }));
    io.out(`cluster/${name} ${failed ? 'failed' : 'recovered'}${r.outcome === 'unchanged' ? ' (unchanged)' : ''}`);
    return 0;
  } catch (err) {
    io.err(errorText(err));
    return 1;
  }
}

export interface LoadOptions {
  /** The simulated cluster. */
  name: string;
  /** KIND/NAME. */
  workload: string;
  namespace?: string;
  constant?: string;
  sine?: string;
  step?: string;
  series?: string;
  /** The step of --series; CLUSTER_LOAD_DEFAULTS.interval when not given. */
  interval?: string;
}

export const CLUSTER_LOAD_DEFAULTS = { interval: '1m' } as const;

/**
 * The load model of one workload in one simulated cluster, as total CPU demand in cores:
 * `--constant 2`, `--step 1,4,10m` (1 core, then 4 from 10 minutes on), `--sine 2,1,1h` (mean, amplitude, period)
 * or `--series 1,2,3 --interval 30s` (replayed in a loop).
 */
export function loadModel(o: LoadOptions): object {
  const nums = (t: string, n: number, flag: string) => {
    const parts = t.split(',');
    if (parts.length !== n) throw new CliError(`error: ${flag} takes ${n} comma-separated values, got "${t}"`);
    return parts;
  };
  const given = [o.constant, o.sine, o.step, o.series].filter((v) => v !== undefined).length;
  if (given !== 1) throw new CliError('error: give exactly one of --constant, --step, --sine, --series');
  if (o.constant !== undefined) return { type: 'constant', cores: Number(o.constant) };
  if (o.step !== undefined) {
    const [before, after, at] = nums(o.step, 3, '--step');
    return { type: 'step', cores: Number(before), stepCores: Number(after), stepAfter: at };
  }
  if (o.sine !== undefined) {
    const [mean, amplitude, period] = nums(o.sine, 3, '--sine');
    return { type: 'sine', cores: Number(mean), amplitude: Number(amplitude), period };
  }
  return {
    type: 'series',
    values: o.series!.split(',').map(Number),
    interval: o.interval ?? CLUSTER_LOAD_DEFAULTS.interval,
  };
}

export async function clusterLoadCommand(io: CliIo, s: Session, o: LoadOptions): Promise<number> {
  const { name } = o;
  const slash = o.workload.indexOf('/');
  if (slash <= 0) throw new CliError(`error: --workload takes KIND/NAME, not "${o.workload}"`);
  const workload = {
    kind: resolveKind(o.workload.slice(0, slash)).kind,
    namespace: o.namespace ?? 'default',
    name: o.workload.slice(slash + 1),
  };
  const model = loadModel(o);
  const same = (l: { workload: typeof workload }) =>
    l.workload.kind === workload.kind &&
    l.workload.namespace === workload.namespace &&
    l.workload.name === workload.name;
  await updateSimulation(s, name, (sim) => {
    const loads = ((sim.loads as Array<{ workload: typeof workload }> | undefined) ?? []).filter((l) => !same(l));
    return { ...sim, loads: [...loads, { workload, model }] };
  });
  io.out(`cluster/${name} load of ${workload.kind.toLowerCase()}/${workload.name} set`);
  return 0;
}
