import { ownedString } from '@flotilla/bus';
import { memberHpaStatuses, memberReports, type AggregatedWorkloadEntry } from '@flotilla/hpa-math';
import { isReady, type Cluster } from '@flotilla/scheduling';
import {
  allWithStatus,
  memberUsageRef,
  objectKey,
  type CachedKind,
  type Informer,
  type Informers,
  type MemberUsage,
  type StatusRecord,
} from '@flotilla/store';
import type { StatusOfKind } from '@flotilla/api';
import type { BindingMembers } from './pass.js';
import { BINDING_PROJECTION, BINDING_STATUS_PROJECTION, type BindingView } from './projections.js';

/**
 * The caches both of the service's controllers read to see a workload on its member clusters: its binding (projected),
 * the binding's status (the clusters' reports, projected), its latest usage per cluster (the usage bucket) and the
 * clusters with their status. The informers are the
 * process's shared ones, so the FederatedHPA and EffectiveHPA controllers hold one copy of each.
 */
export class MemberCaches {
  readonly bindings: Informer<BindingView>;
  readonly bindingStatus: Informer<StatusRecord<{ aggregatedStatus?: AggregatedWorkloadEntry[] }>>;
  /** Keys `<binding key>.<cluster>` (memberUsageRef). */
  readonly usage: Informer<MemberUsage>;
  readonly clusters: Informer<CachedKind<'Cluster'>>;
  readonly clusterStatus: Informer<StatusRecord<StatusOfKind<'Cluster'>>>;

  constructor(informers: Informers) {
    // The caches keep only what a pass reads: with 10,000 FederatedHPAs they hold 20,000 bindings.
    this.bindings = informers.objects('ResourceBinding', BINDING_PROJECTION);
    this.bindingStatus = informers.status('ResourceBinding', BINDING_STATUS_PROJECTION);
    this.usage = informers.usage<MemberUsage>('ResourceBinding');
    this.clusters = informers.objects('Cluster');
    this.clusterStatus = informers.status('Cluster');
  }

  /** Every cluster joined with its status. */
  clusterList(): Cluster[] {
    return allWithStatus(this.clusters, this.clusterStatus);
  }

  /** The member workloads of a binding, their usage and their member HPAs, as the member clusters reported them. */
  membersOf(namespace: string | undefined, bindingName: string): BindingMembers {
    const ref = { kind: 'ResourceBinding', namespace, name: bindingName };
    const binding = this.bindings.get(ref);
    const spec = binding?.spec ?? {};
    const bound = (spec.clusters ?? []).map((c) => c.name);
    const entries = this.bindingStatus.get(ref)?.status?.aggregatedStatus ?? [];
    const ready = new Map(this.clusterList().map((c) => [c.metadata.name ?? '', isReady(c)]));
    return {
      ...(binding ? { binding } : {}),
      spec,
      members: memberReports(
        entries,
        bound,
        ready,
        (cluster) => this.usage.get(memberUsageRef(ref, cluster))?.cpuUsageMilli,
      ),
      hpas: memberHpaStatuses(entries, bound),
    };
  }
}

/**
 * Binding key → the autoscalers (by key) whose passes read it: a change of the binding wakes them. Compact, as it
 * holds an entry or two per autoscaler: a binding read by one autoscaler keeps its key alone (a Set for more), and
 * binding keys are flat strings of their own (a key built by concatenation keeps its parts too).
 */
export class TargetIndex {
  private readonly byBinding = new Map<string, string | Set<string>>();
  /** What each autoscaler reads now, to forget it without looking at every binding. */
  private readonly byReader = new Map<string, string[]>();

  /** Records what `key` reads now (nothing, once deleted), forgetting what it read before. */
  set(key: string, namespace: string | undefined, bindingNames: string[]): void {
    for (const k of this.byReader.get(key) ?? []) this.remove(k, key);
    const read = bindingNames.map((name) => ownedString(objectKey({ kind: 'ResourceBinding', namespace, name })));
    for (const k of read) this.add(k, key);
    if (read.length) this.byReader.set(key, read);
    else this.byReader.delete(key);
  }

  readersOf(bindingKey: string): Iterable<string> {
    const readers = this.byBinding.get(bindingKey);
    return readers === undefined ? [] : typeof readers === 'string' ? [readers] : readers;
  }

  private add(bindingKey: string, reader: string): void {
    const readers = this.byBinding.get(bindingKey);
    if (readers === undefined || readers === reader) this.byBinding.set(bindingKey, reader);
    else if (typeof readers === 'string') this.byBinding.set(bindingKey, new Set([readers, reader]));
    else readers.add(reader);
  }

  private remove(bindingKey: string, reader: string): void {
    const readers = this.byBinding.get(bindingKey);
    if (readers === reader) this.byBinding.delete(bindingKey);
    else if (typeof readers === 'object') {
      readers.delete(reader);
      if (readers.size === 1) this.byBinding.set(bindingKey, readers.values().next().value!);
    }
  }
}
