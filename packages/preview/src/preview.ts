import { isDeepStrictEqual } from 'node:util';
import { type FederatedHPA, FederatedHpaAnnotations, formatTime } from '@flotilla/api';
import {
  AssumedUsage,
  buildBinding,
  claimingPolicy,
  type Cluster,
  type ClusterView,
  decideBinding,
  DEFAULT_FAILOVER_GRACE_MS,
  decideTaints,
  evictionTime,
  type FilteredCluster,
  parseResourceRequest,
  type PropagationPolicy,
  policyClaim,
  type ResourceBinding,
  type ResourceTemplate,
  resultWrite,
  type ScheduleTrigger,
  type Taint,
  type TargetCluster,
  UNSCHEDULABLE_TAINT,
  withDetected,
} from '@flotilla/scheduling';
import { type AutoscalerPreview, previewAutoscalers } from './autoscalers.js';
import { PreviewInputError } from './errors.js';

/** What the live system holds, read once: every object with its status. */
export interface LiveState {
  clusters: readonly Cluster[];
  /** PropagationPolicies and ClusterPropagationPolicies. */
  policies: readonly PropagationPolicy[];
  /** Resource templates (Deployments, StatefulSets, any kind with `spec.replicas`). */
  templates: readonly ResourceTemplate[];
  /** ResourceBindings and ClusterResourceBindings, with status (its aggregatedStatus tells what members reported). */
  bindings: readonly ResourceBinding[];
  /** The stored FederatedHPAs, which a CronFederatedHPA rule may scale. */
  federatedHpas?: readonly (FederatedHPA & { spec: NonNullable<FederatedHPA['spec']> })[];
}

/** A cluster action of `what-if cluster`: `fail` (not Ready), `cordon` (Karmada's unschedulable taint) or `taint`. */
export type ClusterAction =
  | { action: 'fail'; cluster: string }
  | { action: 'cordon'; cluster: string }
  | { action: 'taint'; cluster: string; taint: Taint };

/** The change to preview: admitted objects about to be applied, or a cluster action. */
export type PreviewChange = { objects: readonly unknown[] } | { cluster: ClusterAction };

export interface PreviewOptions {
  /** The time the change lands. */
  now: Date;
  /** The affinity scheduler's FAILOVER_GRACE_MS: how long a cluster is not Ready before its NoExecute taint. */
  failoverGraceMs?: number;
  /** Stop deciding once this clock (ms) passes it: the rest is counted as not previewed (`truncated`). */
  deadlineMs?: number;
  /** The clock the deadline is read on; performance.now by default. */
  clock?: () => number;
}

/** The defaults, defined once: the failover grace is the scheduler's own (packages/scheduling). */
export const PREVIEW_DEFAULTS = {
  failoverGraceMs: DEFAULT_FAILOVER_GRACE_MS,
  clock: (): number => performance.now(),
} as const;

/** One binding the change touches. */
export interface BindingPreview {
  kind: string;
  namespace?: string;
  name: string;
  /** The template it propagates: `Deployment/web`. */
  resource: string;
  /** `Moved` (its clusters or group change), `Created` (a new binding) or `Unschedulable` (no room: it stays). */
  outcome: 'Moved' | 'Created' | 'Unschedulable';
  /** Why it is scheduled again (the scheduler's trigger). */
  trigger?: ScheduleTrigger;
  /** When the scheduler would take this decision (a failover waits for its grace and tolerations). */
  at: string;
  before: TargetCluster[];
  after: TargetCluster[];
  /** The clusterAffinities group it was observed in, and the one it lands in. */
  groupBefore?: string;
  groupAfter?: string;
  /** With overflowAffinities: which tier each cluster came from. */
  tiers?: Record<string, string>;
  /** Every cluster the deciding attempt's filters rejected, with why. */
  rejected: FilteredCluster[];
  /** For Unschedulable: the scheduler's message (each group tried and why it failed). */
  message?: string;
}

export interface Preview {
  kind: 'Preview';
  now: string;
  bindings: BindingPreview[];
  /** The replica changes of the FederatedHPAs, CronFederatedHPAs and EffectiveHPAs applied, each with what it does not know. */
  autoscalers: AutoscalerPreview[];
  /** What the preview cannot know: state that may differ by the time the change lands. */
  unknowns: string[];
  /** The deadline passed: how many bindings were not looked at. */
  truncated?: { notPreviewed: number };
}

const POLICY_KINDS = new Set(['PropagationPolicy', 'ClusterPropagationPolicy']);
const BINDING_KINDS = new Set(['ResourceBinding', 'ClusterResourceBinding']);
/** Autoscalers: their replica change is computed as far as live state tells (previewAutoscalers). */
const AUTOSCALER_KINDS = new Set(['FederatedHPA', 'CronFederatedHPA', 'EffectiveHorizontalPodAutoscaler']);
/** At most this many per-binding notes of unreported pods; the rest are counted. */
const MAX_UNREPORTED_NOTES = 5;

type Obj = { apiVersion?: string; kind?: string; metadata: { name?: string; namespace?: string } };
const keyOf = (o: Obj) => `${o.kind ?? ''}/${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;

/**
 * "If I apply this, what moves?", against the live state: the change is laid over `state` and the affinity
 * scheduler's own functions run on the result: detection (claimingPolicy, buildBinding, withDetected) for every
 * template, then decideBinding for every binding, with the assumed usage of what members have not reported yet, each
 * decision's replicas assumed for the next (as the scheduler assumes them). Pure: nothing is written.
 */
export function previewChange(state: LiveState, change: PreviewChange, options: PreviewOptions): Preview {
  const now = options.now;
  const graceMs = options.failoverGraceMs ?? PREVIEW_DEFAULTS.failoverGraceMs;
  const clock = options.clock ?? PREVIEW_DEFAULTS.clock;
  const unknowns: string[] = [];
  const autoscalers: AutoscalerPreview[] = [];
  const world =
    'objects' in change
      ? withObjects(state, change.objects, now, unknowns, autoscalers)
      : withAction(state, change.cluster, now);
  // A cluster failure is acted on after the failover grace; everything else when it lands.
  const decidedAt = 'cluster' in change && change.cluster.action === 'fail' ? new Date(now.getTime() + graceMs) : now;
  const clusters =
    'cluster' in change && change.cluster.action === 'fail'
      ? failedOver(world.clusters, change.cluster.cluster, decidedAt, graceMs)
      : world.clusters;

  const bindings = detect(world, state.bindings);
  const assumed = new AssumedUsage();
  for (const b of state.bindings) assumed.set(keyOf(b as Obj), b.spec.clusters ?? [], reportedOf(b), requestOf(b));
  const views: ClusterView[] = clusters.map((c) => ({ ...c, assumedUsage: assumed.usageOf(c.metadata.name ?? '') }));

  const out: BindingPreview[] = [];
  let looked = 0;
  for (const { binding, created } of bindings) {
    if (options.deadlineMs !== undefined && clock() > options.deadlineMs) break;
    looked++;
    if (binding.metadata.annotations?.[FederatedHpaAnnotations.owner] !== undefined) continue;
    const at = decisionTime(binding, clusters, decidedAt);
    const d = decideBinding(binding, views, at);
    if (d.kind !== 'Scheduled') continue;
    const before = created ? [] : (binding.spec.clusters ?? []);
    const groupBefore = binding.status?.schedulerObservingAffinityName;
    const common = {
      kind: binding.kind ?? 'ResourceBinding',
      ...(binding.metadata.namespace ? { namespace: binding.metadata.namespace } : {}),
      name: binding.metadata.name ?? '',
      resource: `${binding.spec.resource.kind}/${binding.spec.resource.name}`,
      trigger: d.trigger,
      at: formatTime(at),
      before,
      ...(groupBefore ? { groupBefore } : {}),
    };
    if (!d.result.ok) {
      out.push({
        ...common,
        outcome: 'Unschedulable',
        after: before,
        rejected: d.result.filtered,
        message: d.result.message,
      });
      continue;
    }
    const write = resultWrite(d);
    const after = write ? (write(binding).spec.clusters ?? []) : before;
    assumed.set(keyOf(binding as Obj), after, reportedOf(binding), requestOf(binding));
    const groupAfter = d.result.affinityName;
    if (!created && sameClusters(before, after) && groupAfter === groupBefore) continue;
    out.push({
      ...common,
      outcome: created ? 'Created' : 'Moved',
      after,
      ...(groupAfter ? { groupAfter } : {}),
      ...(d.result.tiers ? { tiers: d.result.tiers } : {}),
      rejected: d.result.filtered,
    });
  }
  unknowns.push(...unreported(state.bindings), ...notReady(state.clusters), LEASE_NOTE);
  if (out.length > 1) unknowns.push(ORDER_NOTE);
  return {
    kind: 'Preview',
    now: formatTime(now),
    bindings: out,
    autoscalers,
    unknowns,
    ...(looked < bindings.length ? { truncated: { notPreviewed: bindings.length - looked } } : {}),
  };
}

const LEASE_NOTE =
  'a member whose lease expires before the change lands (its agent silent past the cluster monitor grace) is failed over as well: the preview takes every cluster as it is now';
const ORDER_NOTE =
  'bindings that compete for the same room get it in the order the scheduler takes them; the preview takes them by name';

/**
 * The state with the objects applied: templates, policies and Clusters replace the stored ones (a Cluster keeps its
 * status), and an autoscaler's replica change now (previewAutoscalers) is laid over its target.
 */
function withObjects(
  state: LiveState,
  objects: readonly unknown[],
  now: Date,
  unknowns: string[],
  autoscalers: AutoscalerPreview[],
): LiveState {
  const applied: unknown[] = [];
  const clusters = new Map(state.clusters.map((c) => [keyOf(c as Obj), c]));
  const policies = new Map(state.policies.map((p) => [keyOf(p as Obj), p]));
  const templates = new Map(state.templates.map((t) => [keyOf(t as Obj), t]));
  let bindings = state.bindings;
  for (const [i, o] of objects.entries()) {
    if (typeof o !== 'object' || o === null || Array.isArray(o))
      throw new PreviewInputError(`objects[${i}]`, 'expected a Kubernetes object');
    const obj = o as Obj;
    if (typeof obj.kind !== 'string' || typeof obj.metadata?.name !== 'string')
      throw new PreviewInputError(`objects[${i}]`, 'expected kind and metadata.name');
    const key = keyOf(obj);
    if (obj.kind === 'Cluster') {
      const stored = clusters.get(key);
      clusters.set(key, { ...(o as Cluster), ...(stored?.status ? { status: stored.status } : {}) });
      if (!stored?.status)
        unknowns.push(
          `cluster ${obj.metadata.name} has no status yet: it takes no replicas until its agent reports it Ready`,
        );
    } else if (POLICY_KINDS.has(obj.kind)) policies.set(key, o as PropagationPolicy);
    else if (obj.kind === 'WorkloadRebalancer') bindings = rebalanced(bindings, o, now);
    else if (AUTOSCALER_KINDS.has(obj.kind)) applied.push(o);
    else if (BINDING_KINDS.has(obj.kind))
      throw new PreviewInputError(`objects[${i}].kind`, `${obj.kind} is written by the scheduler, not applied`);
    else templates.set(key, o as ResourceTemplate);
  }
  const { entries, scaled } = previewAutoscalers({
    applied,
    templates: [...templates.values()],
    federatedHpas: [
      ...(state.federatedHpas ?? []).filter(
        (f) => !applied.some((a) => keyOf(a as Obj) === keyOf({ ...f, kind: 'FederatedHPA' } as Obj)),
      ),
      ...(applied.filter((a) => (a as Obj).kind === 'FederatedHPA') as NonNullable<LiveState['federatedHpas']>),
    ],
    now,
  });
  autoscalers.push(...entries);
  for (const t of scaled) templates.set(keyOf(t as Obj), t);
  return {
    clusters: [...clusters.values()],
    policies: [...policies.values()],
    templates: [...templates.values()],
    bindings,
  };
}

/** A WorkloadRebalancer asks its workloads' bindings for a Fresh schedule now (the rebalancer's rescheduleTriggeredAt). */
function rebalanced(bindings: readonly ResourceBinding[], rebalancer: object, now: Date): ResourceBinding[] {
  const workloads = ((rebalancer as { spec?: { workloads?: unknown } }).spec?.workloads ?? []) as Array<{
    kind?: string;
    name?: string;
    namespace?: string;
  }>;
  const asked = new Set(workloads.map((w) => `${w.kind}/${w.namespace ?? ''}/${w.name}`));
  return bindings.map((b) =>
    asked.has(`${b.spec.resource.kind}/${b.spec.resource.namespace ?? ''}/${b.spec.resource.name}`)
      ? { ...b, spec: { ...b.spec, rescheduleTriggeredAt: formatTime(now) } }
      : b,
  );
}

/** The state with a cluster action applied to its cluster: not Ready now (fail), or a taint added now. */
function withAction(state: LiveState, a: ClusterAction, now: Date): LiveState {
  if (!state.clusters.some((c) => c.metadata.name === a.cluster))
    throw new PreviewInputError('cluster', `no cluster named "${a.cluster}"`);
  const clusters = state.clusters.map((c): Cluster => {
    if (c.metadata.name !== a.cluster) return c;
    if (a.action === 'fail') {
      const others = (c.status?.conditions ?? []).filter((x) => x.type !== 'Ready');
      const ready = {
        type: 'Ready',
        status: 'False',
        reason: 'ClusterNotReachable',
        message: 'preview: the cluster fails',
        lastTransitionTime: formatTime(now),
      };
      return { ...c, status: { ...c.status, conditions: [...others, ready] } };
    }
    const taint: Taint = a.action === 'cordon' ? { key: UNSCHEDULABLE_TAINT, effect: 'NoSchedule' } : a.taint;
    const taints = (c.spec?.taints ?? []).filter((t) => !(t.key === taint.key && t.effect === taint.effect));
    return { ...c, spec: { ...c.spec, taints: [...taints, { ...taint, timeAdded: formatTime(now) }] } };
  });
  return { ...state, clusters };
}

/** After the grace, the cluster taint manager's NoExecute taint on the failed cluster (decideTaints, as the scheduler). */
function failedOver(clusters: readonly Cluster[], name: string, at: Date, graceMs: number): Cluster[] {
  return clusters.map((c) => {
    if (c.metadata.name !== name) return c;
    const d = decideTaints(c, at, graceMs);
    return d.taints ? { ...c, spec: { ...c.spec, taints: d.taints } } : c;
  });
}

/** When a binding is decided: at `at`, or when a toleration of a NoExecute taint on one of its clusters runs out. */
function decisionTime(binding: ResourceBinding, clusters: readonly Cluster[], at: Date): Date {
  let latest = at.getTime();
  const targets = new Set((binding.spec.clusters ?? []).map((t) => t.name));
  for (const c of clusters) {
    if (!targets.has(c.metadata.name ?? '')) continue;
    for (const taint of c.spec?.taints ?? []) {
      const evicts = evictionTime(taint, binding.spec.placement?.clusterTolerations);
      if (Number.isFinite(evicts) && evicts > latest) latest = evicts;
    }
  }
  return new Date(latest);
}

/** Detection over every template, as the scheduler's detection controller: the bindings after it, each marked new or not. */
function detect(
  world: LiveState,
  stored: readonly ResourceBinding[],
): Array<{ binding: ResourceBinding; created: boolean }> {
  const byKey = new Map(world.bindings.map((b) => [keyOf(b as Obj), b]));
  const out = new Map<string, { binding: ResourceBinding; created: boolean }>();
  const storedKeys = new Set(stored.map((b) => keyOf(b as Obj)));
  for (const b of world.bindings) out.set(keyOf(b as Obj), { binding: b, created: false });
  for (const template of world.templates) {
    // A FederatedHPA's member HPA: the hpa-assigner makes and places its binding.
    if (template.metadata.annotations?.[FederatedHpaAnnotations.owner] !== undefined) continue;
    const ns = template.metadata.namespace;
    const key = `${ns ? 'ResourceBinding' : 'ClusterResourceBinding'}/${ns ?? ''}/${template.metadata.name}-${template.kind.toLowerCase()}`;
    const existing = byKey.get(key);
    const candidates = world.policies.filter(
      (p) => p.kind === 'ClusterPropagationPolicy' || (ns !== undefined && p.metadata.namespace === ns),
    );
    const policy = claimingPolicy(template, candidates, policyClaim(existing?.metadata.annotations));
    if (!policy) continue;
    const built = buildBinding(template, policy);
    const binding = existing
      ? updated(existing, withDetected(existing, built))
      : { ...built, metadata: { ...built.metadata, generation: 1 } };
    out.set(key, { binding, created: !storedKeys.has(key) });
  }
  return [...out.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
}

/** An update as the object store makes it: metadata.generation moves by one when spec changes. */
function updated(before: ResourceBinding, after: ResourceBinding): ResourceBinding {
  const generation = (before.metadata.generation ?? 1) + (isDeepStrictEqual(before.spec, after.spec) ? 0 : 1);
  return { ...after, metadata: { ...after.metadata, generation } };
}

/** Cluster → `status.replicas` of the binding's aggregatedStatus entry: what each member reported running. */
function reportedOf(b: ResourceBinding): Map<string, number> {
  const out = new Map<string, number>();
  for (const e of (
    b.status as { aggregatedStatus?: Array<{ clusterName?: string; status?: { replicas?: unknown } }> } | undefined
  )?.aggregatedStatus ?? []) {
    if (typeof e.clusterName === 'string' && typeof e.status?.replicas === 'number')
      out.set(e.clusterName, e.status.replicas);
  }
  return out;
}

function requestOf(b: ResourceBinding) {
  try {
    return parseResourceRequest(b.spec.replicaRequirements?.resourceRequest);
  } catch {
    return undefined;
  }
}

/** Bindings whose members have not reported every replica yet: their capacity is the scheduler's assumption. */
function unreported(bindings: readonly ResourceBinding[]): string[] {
  const notes: string[] = [];
  for (const b of bindings) {
    const reported = reportedOf(b);
    for (const t of b.spec.clusters ?? []) {
      const r = reported.get(t.name) ?? 0;
      if (r < (t.replicas ?? 0))
        notes.push(
          `${b.metadata.name} on ${t.name}: ${r} of ${t.replicas} pods reported; the rest are counted as assumed, as the scheduler counts them, until the member reports`,
        );
    }
  }
  if (notes.length <= MAX_UNREPORTED_NOTES) return notes;
  return [
    ...notes.slice(0, MAX_UNREPORTED_NOTES),
    `and ${notes.length - MAX_UNREPORTED_NOTES} more placements with pods not reported yet`,
  ];
}

function notReady(clusters: readonly Cluster[]): string[] {
  return clusters
    .filter((c) => c.status?.conditions?.find((x) => x.type === 'Ready')?.status !== 'True')
    .map(
      (c) =>
        `cluster ${c.metadata.name} is not Ready now: it takes no new replicas, and its workloads move once it has stayed so for the failover grace`,
    );
}

const sameClusters = (a: readonly TargetCluster[], b: readonly TargetCluster[]) =>
  isDeepStrictEqual(normalised(a), normalised(b));
const normalised = (c: readonly TargetCluster[]) =>
  c.map((x) => [x.name, x.replicas ?? 0] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** The kubectl warnings of a preview: `flotilla: web-deployment member1:4→2 member2:2→4`, one per binding. */
export function previewWarnings(p: Preview, max = PREVIEW_WARNING_LIMIT): string[] {
  const lines = p.bindings.map((b) => {
    if (b.outcome === 'Unschedulable') return `flotilla: ${b.name} stays unschedulable: ${b.message ?? ''}`.trimEnd();
    const names = [...new Set([...b.before, ...b.after].map((t) => t.name))].sort();
    const count = (list: readonly TargetCluster[], n: string) => list.find((t) => t.name === n)?.replicas ?? 0;
    const moves = names
      .filter(
        (n) =>
          count(b.before, n) !== count(b.after, n) ||
          !b.before.some((t) => t.name === n) !== !b.after.some((t) => t.name === n),
      )
      .map((n) => `${n}:${count(b.before, n)}→${count(b.after, n)}`);
    const group = b.groupAfter !== b.groupBefore && b.groupAfter ? ` (group ${b.groupAfter})` : '';
    return `flotilla: ${b.name} ${moves.join(' ')}${group}`.trimEnd();
  });
  for (const a of p.autoscalers ?? []) lines.push(autoscalerLine(a));
  const shown = lines.slice(0, max);
  if (lines.length > max) shown.push(`flotilla: and ${lines.length - max} more bindings change`);
  if (p.truncated)
    shown.push(
      `flotilla: preview cut short: ${p.truncated.notPreviewed} bindings not looked at within the time allowed`,
    );
  return shown;
}

/** `flotilla: FederatedHPA web Deployment/web 6→4 (TooManyReplicas) now`: an autoscaler's change in one line. */
export function autoscalerLine(a: AutoscalerPreview): string {
  const replicas =
    a.replicasAfter === undefined
      ? ''
      : ` ${a.replicasBefore === undefined ? '' : `${a.replicasBefore}→`}${a.replicasAfter}`;
  const range = a.minReplicas === undefined ? '' : ` min ${a.minReplicas} max ${a.maxReplicas ?? '?'}`;
  const rule = a.rule === undefined ? '' : ` rule ${a.rule}`;
  return `flotilla: ${a.kind} ${a.name}${rule} ${a.target}${range}${replicas} (${a.reason}) at ${a.at}`;
}

/** kubectl prints every warning: past this many bindings the rest are counted in one line. */
export const PREVIEW_WARNING_LIMIT = 10;
