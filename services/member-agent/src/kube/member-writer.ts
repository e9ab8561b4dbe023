import type { KubeInformer } from '@flotilla/kube-client';
import type { Registry } from 'prom-client';
import type { AgentLogger } from '../agent-projections.js';
import type { BindingRef } from '../report-model.js';
import type { MemberClusterApi } from './kube-api.js';
import { kubeDriverMetrics } from './kube-metrics.js';
import { type ApplyAction, type Manifest, MemberMarks, type MemberRef, memberKey } from './member-objects.js';
import type { MemberObjectView } from './workload-status.js';
import { mapLimited, TokenBucket } from './rate-limit.js';

/** client-go's write rate limit (KUBE_API_QPS / KUBE_API_BURST) and how many writes are in flight at once. */
export interface WriteLimits {
  qps: number;
  burst: number;
  concurrency: number;
}

export const DEFAULT_WRITE_LIMITS: WriteLimits = Object.freeze({ qps: 50, burst: 100, concurrency: 8 });

/** One write that failed: the object, the binding it was for (an apply's), and the member API server's refusal. */
export interface FailedWrite {
  object: string;
  binding?: BindingRef;
  message: string;
}

export interface MemberWriterOptions {
  cluster: string;
  api: MemberClusterApi;
  limits: WriteLimits;
  logger: AgentLogger;
  registry: Registry;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The kube driver's writes to its member cluster, and nothing else: the namespaces the objects need, then the
 * applies and deletes a plan decided, rate limited and a few at once. What a write returns goes into the informer
 * at once, so the next plan does not repeat it.
 */
export class MemberWriter {
  /** How many writes were sent (applies and deletes), for tests and the benchmark. */
  sent = 0;
  private readonly bucket: TokenBucket;
  private readonly counters: ReturnType<typeof kubeDriverMetrics>;

  constructor(private readonly o: MemberWriterOptions) {
    this.bucket = new TokenBucket(o.limits.qps, o.limits.burst);
    this.counters = kubeDriverMetrics(o.registry);
  }

  /** Creates the namespaces the objects to apply live in, when missing (never removed: others may use them). */
  async ensureNamespaces(actions: readonly ApplyAction[], namespaces: KubeInformer<string> | undefined): Promise<void> {
    if (!namespaces?.synced) return;
    const missing = new Set<string>();
    for (const a of actions)
      if (a.type === 'apply' && a.object.ref.namespace && !namespaces.cache.has(`/${a.object.ref.namespace}`))
        missing.add(a.object.ref.namespace);
    await mapLimited([...missing], this.o.limits.concurrency, async (name) => {
      const manifest: Manifest = {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name, labels: { [MemberMarks.managedBy]: MemberMarks.managedByValue } },
      };
      try {
        await this.rateLimited('apply', () => this.o.api.apply(manifest));
        namespaces.upsert({ metadata: { name } });
      } catch (err) {
        // The objects in it fail to apply next, and say why.
        this.o.logger.error({ err: (err as Error).message, cluster: this.o.cluster }, 'creating a namespace failed');
      }
    });
  }

  /**
   * Carries out `actions` (none once `stopped()`); returns each write's outcome by member key: undefined when it
   * succeeded, the failure otherwise.
   */
  async execute(
    actions: readonly ApplyAction[],
    informerOf: (ref: MemberRef) => KubeInformer<MemberObjectView> | undefined,
    stopped: () => boolean,
  ): Promise<Map<string, FailedWrite | undefined>> {
    const outcomes = new Map<string, FailedWrite | undefined>();
    await mapLimited(actions, this.o.limits.concurrency, async (a) => {
      if (stopped()) return;
      const ref = a.type === 'apply' ? a.object.ref : a.ref;
      const key = memberKey(ref);
      const informer = informerOf(ref);
      try {
        if (a.type === 'apply') informer?.upsert(await this.rateLimited('apply', () => this.o.api.apply(a.manifest)));
        else {
          await this.rateLimited('delete', () => this.o.api.remove(a.ref));
          informer?.remove(`${a.ref.namespace}/${a.ref.name}`);
        }
        outcomes.set(key, undefined);
      } catch (err) {
        const message = (err as Error).message;
        outcomes.set(key, { object: key, message, ...(a.type === 'apply' ? { binding: a.object.binding } : {}) });
        this.o.logger.error(
          { err: message, cluster: this.o.cluster, object: key, action: a.type },
          'writing to the member cluster failed',
        );
      }
    });
    return outcomes;
  }

  private async rateLimited<T>(action: 'apply' | 'delete', write: () => Promise<T>): Promise<T> {
    const wait = this.bucket.take(performance.now());
    if (wait > 0) await sleep(wait);
    this.sent++;
    this.counters.writes.inc({ cluster: this.o.cluster, action });
    return write();
  }
}
