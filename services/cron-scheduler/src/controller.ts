import { Controllers } from '@flotilla/catalogue';
import { createHash } from 'node:crypto';
import { isAlreadyExists, cloudEvent, ConflictError, type Bus, type CloudEvent } from '@flotilla/bus';
import { defineController, type Controller, type ControllerLogger, type WorkQueue } from '@flotilla/controller';
import { Registry } from 'prom-client';
import {
  executionId,
  DEFAULT_CATCH_UP_WINDOW_MS,
  DEFAULT_CONTROLLER_TIME_ZONE,
  executionEvent,
  missedEvent,
  nextScheduledData,
  planCronExecutions,
  skippedEvent,
  targetKindOf,
  type AdmittedCronFederatedHPA,
  type CronEvent,
  type CronPlan,
} from '@flotilla/cron';
import {
  type Fencing,
  isStaleFencingToken,
  NotLeaderError,
  StaleFencingTokenError,
  systemClock,
  type Clock,
} from '@flotilla/runtime';
import { scheduleAt } from '@flotilla/runtime/delayed-jobs';
import {
  Informers,
  isNotFound,
  ObjectStore,
  objectKey,
  refFromKey,
  type CachedKind,
  type Informer,
  type StoredObject,
} from '@flotilla/store';
import type { Redis } from 'ioredis';
import { applyExecutions, type ExecutionOutcome } from './apply-executions.js';
import { needsNextScheduled } from './next-scheduled.js';
import { fenceOf, withFence } from './execution-markers.js';
import { RuleStateStore, type StoredCronState } from './rule-state-store.js';
import { WakeSchedule } from './wake-schedule.js';
import { CronMetrics } from './cron-metrics.js';

export const CONTROLLER_NAME = Controllers.cron;
export const CRON_KIND = 'CronFederatedHPA';

/** How often every object is reconsidered and its timers re-armed (survives lost Redis keys). */
export const DEFAULT_RESYNC_MS = 60_000;
/** Objects reconciled at once. */
export const DEFAULT_CRON_CONCURRENCY = 32;
const DEFAULT_ARM_HORIZON_MS = 3_600_000;

/** One execution's outcome, for metrics and benchmarks. */
export interface ExecutionReport {
  key: string;
  ruleName: string;
  scheduleTime: Date;
  executionTime: Date;
  ok: boolean;
}

export interface CronControllerOptions {
  bus: Bus;
  store?: ObjectStore;
  states?: RuleStateStore;
  /** Shared by the timer queue; the worker runs on a duplicate of it. The owner closes it. */
  redis: Redis;
  /** BullMQ key prefix (FLOTILLA_PREFIX), so installations and test runs sharing a Redis stay apart. */
  queuePrefix: string;
  /** BullMQ queue name; default `cron-scheduler`. */
  queueName?: string;
  /** How events reach the bus; publishEvent in production. */
  publish: (e: CloudEvent) => Promise<unknown>;
  clock?: Clock;
  logger: ControllerLogger;
  /** How late a missed occurrence may still be applied. Default 15 minutes. */
  catchUpWindowMs?: number;
  /** The zone of rules without `timeZone`. Default UTC. */
  defaultTimeZone?: string;
  /** Objects reconciled at once. Default 32. */
  concurrency?: number;
  /** BullMQ jobs handled at once. Default 50. */
  workerConcurrency?: number;
  /** Every object is reconsidered and its timers re-armed this often (survives lost Redis keys). Default 60 s. */
  resyncMs?: number;
  /**
   * Durable (BullMQ) wake-ups are armed only for instants due within this long; a resync arms the later ones as
   * they come within it (the horizon is never shorter than two resync periods, so one arms it with a period to spare,
   * whatever the interval's drift). Default 1 hour.
   */
  armHorizonMs?: number;
  /** Attempts at a target write failing for other reasons than the target's absence before it is recorded as failed. */
  maxWriteAttempts?: number;
  onExecution?: (r: ExecutionReport) => void;
  /** The service's registry: reconcile, queue, object and execution metrics are reported there. */
  registry?: Registry;
  /** The process's shared informers; a controller of its own gets private ones. */
  informers?: Informers;
  /**
   * The leader's term (runBusService's deps): every target write carries its token and is refused when the target
   * already carries a larger one (FENCING_ANNOTATION), so a deposed leader that has not noticed yet writes nothing.
   * Without it (tests of one controller) writes carry no token.
   */
  fencing?: Fencing;
}

/** A wake-up names no object: whatever is due when it fires is woken (and jobs of earlier versions, per rule, too). */
type JobData = Record<string, never>;

/** The BullMQ job id of the wake-up at `at`: one per instant, so re-arming it is a no-op. */
export function wakeJobId(at: number): string {
  return `wake.${new Date(at).toISOString().replace(/[-:.]/g, '')}`;
}

/**
 * The CronFederatedHPA controller. Per object (a work-queue key, so never two reconciles of one object at once):
 *
 * 1. plan from the stored rule state (next due instants in JetStream, never recomputed from "now");
 * 2. apply the due executions to the target in one compare-and-set that also records them in the target's
 *    execution markers, so a repeat finds them applied;
 * 3. publish the outcome events with ids derived from (uid, rule, schedule time), so a repeat is de-duplicated;
 * 4. advance the stored state with a compare-and-set;
 * 5. wake the object at its earliest next due instant: a local timer (shared by every object due then) and, for
 *    instants within the arming horizon, one BullMQ delayed job per instant as a durable backstop that also
 *    follows the wall clock (BullMQ's promotion adds tens of milliseconds, so the local timer normally wins).
 *
 * A crash between any two steps repeats the earlier ones harmlessly; a deposed leader's late state write fails
 * its compare-and-set. Only the leader runs it.
 */
export class CronController {
  private readonly clock: Clock;
  private readonly store: ObjectStore;
  private readonly states: RuleStateStore;
  private readonly informer: Informer<CachedKind<typeof CRON_KIND>>;
  private readonly controller: Controller<JobData>;
  private readonly cache = new Map<string, StoredCronState>();
  private readonly uids = new Map<string, string>();
  private readonly wakes: WakeSchedule;
  /** Instants whose BullMQ wake-up is added (or being added). */
  private readonly armed = new Set<number>();
  /** BullMQ adds in flight (idle() waits for them, reconciles do not). */
  private readonly arming = new Set<Promise<void>>();
  private readonly armHorizonMs: number;
  private readonly writeFailures = new Map<string, number>();
  private stored = new Map<string, StoredCronState>();
  private readonly cronMetrics: CronMetrics;

  constructor(private readonly o: CronControllerOptions) {
    this.clock = o.clock ?? systemClock;
    this.cronMetrics = CronMetrics.of(o.registry ?? new Registry());
    this.armHorizonMs = Math.max(o.armHorizonMs ?? DEFAULT_ARM_HORIZON_MS, 2 * (o.resyncMs ?? DEFAULT_RESYNC_MS));
    this.wakes = new WakeSchedule(this.clock, (key) => this.controller.enqueue(key));
    this.store = o.store ?? new ObjectStore(o.bus);
    this.states = o.states ?? new RuleStateStore(o.bus);
    this.informer = (o.informers ?? new Informers({ bus: o.bus })).objects(CRON_KIND);
    this.controller = defineController<JobData>({
      name: CONTROLLER_NAME,
      watches: [{ source: this.informer }],
      reconcile: (key) => this.reconcile(key),
      concurrency: o.concurrency ?? DEFAULT_CRON_CONCURRENCY,
      // Every object in the background lane at once, after forgetting what was armed (see resync()).
      resyncMs: o.resyncMs ?? DEFAULT_RESYNC_MS,
      resyncSpread: false,
      onResync: () => this.armed.clear(),
      logger: o.logger,
      registry: o.registry,
      failureEvents: { publish: o.publish, objectOf: refFromKey },
      delayed: {
        redis: o.redis,
        prefix: o.queuePrefix,
        queueName: o.queueName ?? CONTROLLER_NAME,
        concurrency: o.workerConcurrency ?? 50,
        // The job only wakes up what is due by now, usually already woken by its local timer: what is due is
        // decided from the stored state, so a redelivered or stale job finds nothing to do.
        handler: async () => this.wakes.wakeDue(this.clock.now().getTime()),
      },
      onStart: async () => {
        this.stored = await this.states.list();
        for (const [uid, s] of this.stored) this.cache.set(uid, s);
      },
      onStop: async () => this.wakes.clear(),
    });
  }

  /** The controller's work queue (for tests and benchmarks). */
  get workQueue(): WorkQueue {
    return this.controller.queue;
  }

  /** Lists the objects and their stored state, rebuilds every timer, and catches up on what came due meanwhile. */
  async start(): Promise<void> {
    await this.controller.start();
    await this.collectOrphans(this.stored);
  }

  /**
   * Reconsiders every object (every resyncMs): instants that came within the arming horizon get their wake-up,
   * and forgetting what was armed re-adds the others (a no-op while Redis still has them), so timers lost with
   * Redis come back.
   */
  resync(): void {
    this.controller.resync();
  }

  async stop(): Promise<void> {
    this.wakes.clear();
    await this.controller.stop();
  }

  /** Resolves when no reconcile is queued or running and every wake-up being armed is added: for tests and benchmarks. */
  async idle(): Promise<void> {
    await this.controller.idle();
    await Promise.all(this.arming);
  }

  /** State of objects deleted while no leader ran. */
  private async collectOrphans(stored: Map<string, StoredCronState>): Promise<void> {
    for (const [uid, s] of stored) {
      const obj = this.informer.cache.get(s.state.objectKey)?.value;
      if (obj?.metadata.uid === uid) continue;
      this.cache.delete(uid);
      await this.states
        .delete(uid, s.revision)
        .catch((err: unknown) => this.o.logger.warn({ err, uid }, 'could not remove the state of a deleted object'));
    }
  }

  private async loadState(uid: string): Promise<StoredCronState> {
    const cached = this.cache.get(uid);
    if (cached) return cached;
    const s = (await this.states.get(uid)) ?? { state: { objectKey: '', rules: [] }, revision: 0 };
    this.cache.set(uid, s);
    return s;
  }

  private async forget(key: string, uid: string): Promise<void> {
    const s = this.cache.get(uid) ?? (await this.states.get(uid));
    this.cache.delete(uid);
    this.uids.delete(key);
    this.writeFailures.delete(key);
    this.wakes.set(key, undefined);
    // Its BullMQ wake-ups stay and wake what else is due then; the state goes so a later object of that name starts afresh.
    if (s && s.revision > 0) await this.states.delete(uid).catch(() => undefined);
  }

  private async reconcile(key: string): Promise<void> {
    const obj = this.informer.cache.get(key)?.value as (StoredObject & AdmittedCronFederatedHPA) | undefined;
    const knownUid = this.uids.get(key);
    if (!obj) {
      if (knownUid) await this.forget(key, knownUid);
      return;
    }
    const uid = obj.metadata.uid;
    if (!uid) return;
    if (knownUid && knownUid !== uid) await this.forget(key, knownUid);
    this.uids.set(key, uid);

    const stored = await this.loadState(uid);
    const now = this.clock.now();
    let plan: CronPlan;
    try {
      plan = planCronExecutions({
        object: obj,
        state: stored.state.rules,
        now,
        catchUpWindowMs: this.o.catchUpWindowMs ?? DEFAULT_CATCH_UP_WINDOW_MS,
        defaultTimeZone: this.o.defaultTimeZone ?? DEFAULT_CONTROLLER_TIME_ZONE,
      });
    } catch (err) {
      // Admission rejects what cannot be planned; an object that still cannot be is left alone, loudly.
      this.o.logger.error({ err, key }, 'cannot plan this CronFederatedHPA; its rules do not run');
      return;
    }
    if (Object.keys(plan.unrecorded).length)
      this.o.logger.warn({ key, unrecorded: plan.unrecorded }, 'outage longer than the history can record');

    if (plan.execute.length || plan.missed.length || plan.stateChanged) {
      // 2. the target (refused to a deposed leader: then nothing after it happens either)
      let outcomes: ExecutionOutcome[];
      try {
        outcomes = await this.applyToTarget(key, obj, uid, plan);
      } catch (err) {
        if (!isStaleFencingToken(err) && !(err instanceof NotLeaderError)) throw err;
        if (isStaleFencingToken(err) && (await this.o.fencing?.raise(err.seen)) !== undefined) {
          this.controller.enqueue(key); // still the holder: the counter went back and is raised now; write again
          return;
        }
        this.cronMetrics.fencingRefused();
        this.o.logger.warn({ key, err: (err as Error).message }, 'target write refused: this replica no longer leads');
        return;
      }
      // 3. the events, in the order the status writer should fold them
      await this.publishAll(this.eventsOf(obj, uid, stored, plan, outcomes, now));
      this.cronMetrics.missed(plan.missed.length);
      this.cronMetrics.skipped(plan.skipped.length);
      for (const o of outcomes) {
        this.cronMetrics.executed(o.effect.ok, o.execution.scheduleTime, now);
        this.o.onExecution?.({
          key,
          ruleName: o.execution.ruleName,
          scheduleTime: o.execution.scheduleTime,
          executionTime: now,
          ok: o.effect.ok,
        });
      }
      // 4. the state
      const next = { objectKey: key, rules: plan.state };
      try {
        const revision = await this.states.put(uid, next, stored.revision);
        this.cache.set(uid, { state: next, revision });
      } catch (err) {
        if (!(err instanceof ConflictError || isAlreadyExists(err))) throw err;
        // Another replica advanced it (a leader change): plan again from what it stored.
        this.cache.delete(uid);
        this.controller.enqueue(key);
        return;
      }
    }
    // 5. the timers: the earliest instant is enough, its reconcile arms the next one
    const wakeAt = plan.nextWakeAt?.getTime();
    this.wakes.set(key, wakeAt);
    if (wakeAt !== undefined) this.armDurable(wakeAt, now.getTime());
  }

  private async applyToTarget(
    key: string,
    obj: AdmittedCronFederatedHPA,
    uid: string,
    plan: CronPlan,
  ): Promise<ExecutionOutcome[]> {
    if (!plan.execute.length) return [];
    const ref = obj.spec.scaleTargetRef;
    const namespace = obj.metadata.namespace;
    const input = {
      ref,
      namespace,
      cronUid: uid,
      ruleNames: obj.spec.rules.map((r) => r.name),
      executions: plan.execute,
    };
    if (targetKindOf(ref) === 'Unsupported') return applyExecutions({ ...input, target: undefined }).outcomes;
    let outcomes: ExecutionOutcome[] = [];
    try {
      const targetRef = { kind: ref.kind, namespace, name: ref.name };
      await this.store.update(targetRef, (current) => {
        // Read at each attempt: a term that ended meanwhile writes nothing.
        const token = this.o.fencing?.current();
        if (this.o.fencing && token === undefined) throw new NotLeaderError('cron-scheduler', key);
        const seen = fenceOf(current);
        if (token !== undefined && seen > token) throw new StaleFencingTokenError(objectKey(targetRef), token, seen);
        const r = applyExecutions({ ...input, target: current });
        outcomes = r.outcomes;
        return r.target && token !== undefined ? withFence(r.target, token) : r.target;
      });
      this.writeFailures.delete(key);
      return outcomes;
    } catch (err) {
      if (isStaleFencingToken(err) || err instanceof NotLeaderError) throw err;
      if (isNotFound(err)) return applyExecutions({ ...input, target: undefined }).outcomes;
      const attempt = (this.writeFailures.get(key) ?? 0) + 1;
      if (attempt < (this.o.maxWriteAttempts ?? 5)) {
        this.writeFailures.set(key, attempt);
        throw err;
      }
      this.writeFailures.delete(key);
      const message = `scaling ${ref.kind} ${namespace ? `${namespace}/` : ''}${ref.name} failed: ${(err as Error).message}`;
      return plan.execute.map((execution) => ({
        execution,
        repeated: false,
        effect: { ok: false, reason: 'WriteFailed', message } as const,
      }));
    }
  }

  private eventsOf(
    obj: AdmittedCronFederatedHPA,
    uid: string,
    stored: StoredCronState,
    plan: CronPlan,
    outcomes: ExecutionOutcome[],
    now: Date,
  ): CloudEvent[] {
    const ruleOf = (name: string) => obj.spec.rules.find((r) => r.name === name)!;
    const wrap = (id: string, e: CronEvent): CloudEvent =>
      cloudEvent({
        id,
        source: CONTROLLER_NAME,
        type: e.type,
        kind: CRON_KIND,
        namespace: obj.metadata.namespace,
        name: obj.metadata.name,
        time: now,
        data: e.data,
      });
    const out: CloudEvent[] = [];
    if (needsNextScheduled(stored.state.rules, plan)) {
      const data = nextScheduledData(plan);
      // The revision planned from makes a repeat of this decision the same message; the digest keeps a later,
      // different decision from the same revision (after a failed state write) from being dropped as one.
      const digest = createHash('sha256').update(JSON.stringify(data)).digest('hex').slice(0, 12);
      out.push(wrap(`cron.${uid}.next.${stored.revision}.${digest}`, { type: 'CronNextScheduled', data }));
    }
    const timed: Array<{ at: number; order: number; event: CloudEvent }> = [];
    plan.missed.forEach((m, i) => {
      timed.push({
        at: m.scheduleTime.getTime(),
        order: i,
        event: wrap(executionId(uid, m.ruleName, m.scheduleTime), missedEvent(plan, m, ruleOf(m.ruleName), now)),
      });
    });
    plan.skipped.forEach((s, i) => {
      timed.push({
        at: s.scheduleTime.getTime(),
        order: plan.missed.length + i,
        event: wrap(executionId(uid, s.ruleName, s.scheduleTime), skippedEvent(plan, s, ruleOf(s.ruleName), now)),
      });
    });
    outcomes.forEach((o, i) => {
      const target = `${obj.spec.scaleTargetRef.kind} ${obj.spec.scaleTargetRef.name}`;
      const ev = executionEvent(plan, o.execution, ruleOf(o.execution.ruleName), o.effect, now, target);
      timed.push({
        at: o.execution.scheduleTime.getTime(),
        order: plan.missed.length + plan.skipped.length + i,
        event: wrap(executionId(uid, o.execution.ruleName, o.execution.scheduleTime), ev),
      });
    });
    timed.sort((a, b) => a.at - b.at || a.order - b.order);
    return [...out, ...timed.map((t) => t.event)];
  }

  private async publishAll(events: CloudEvent[]): Promise<void> {
    // Sent back to back on one connection, so they reach the stream in this order (the status writer folds in
    // stream order and history is newest first) without waiting a round trip each.
    await Promise.all(events.map((e) => this.o.publish(e)));
  }

  /**
   * Adds the BullMQ wake-up of an instant within the horizon, once, without making the reconcile wait: Redis
   * commands wait out an outage, and neither the objects due meanwhile (their local timers still fire) nor a leader
   * stopping because of it should wait with them. A failed add is tried again by the next reconcile due then, or the
   * next resync.
   */
  private armDurable(at: number, now: number): void {
    // A due instant's local timer fires at once; the wall clock only needs following for instants ahead.
    const queue = this.controller.delayedQueue;
    if (!queue || at <= now || at > now + this.armHorizonMs || this.armed.has(at)) return;
    this.armed.add(at);
    const adding: Promise<void> = scheduleAt(queue, wakeJobId(at), new Date(at), {}, new Date(now))
      .then(
        () => undefined,
        (err: unknown) => {
          this.armed.delete(at);
          // After stop() the queue is closed under it; the next leader arms its own.
          if (this.controller.started)
            this.o.logger.warn(
              { err, at: new Date(at).toISOString() },
              'could not arm a durable wake-up; trying again later',
            );
        },
      )
      .finally(() => this.arming.delete(adding));
    this.arming.add(adding);
  }
}
