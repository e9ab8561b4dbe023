import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Bus } from '@flotilla/bus';
import type { ControllerLogger } from './controller-logger.js';
import { membershipChange, ownsKey } from './shares.js';

type Consumer = Awaited<ReturnType<Bus['js']['consumers']['get']>>;
type ConsumerMessages = Awaited<ReturnType<Consumer['fetch']>>;

/** How often a replica reads the member list (and so how soon after a member's consumer is gone it takes its share). */
export const DEFAULT_SHARES_POLL_MS = 250;
/** How long each keep-alive pull waits; the server's inactivity clock restarts at every pull. */
const KEEP_ALIVE_PULL_MS = 1000;
/** The shortest lease a member may have: its keep-alive pull and the poll must both fit in it. */
export const MIN_ACTIVE_LEASE_MS = 3000;

export interface ReplicaSharesOptions {
  bus: Bus;
  /** The service whose replicas share the keys (`affinity-scheduler`): replicas of one group see each other only. */
  group: string;
  /**
   * How long a replica may be silent before NATS deletes its member consumer and the others take its share (the
   * lease; at least MIN_ACTIVE_LEASE_MS, so that a keep-alive pull always lands inside it).
   */
  leaseMs: number;
  logger: ControllerLogger;
  /** Called after the member list changed: the keys this replica owns may have changed. */
  onChange(change: SharesChange): void;
  pollMs?: number;
  /** This replica's name among the members; the host name and a random suffix by default. */
  self?: string;
}

export interface SharesChange {
  members: string[];
  joined: string[];
  left: string[];
  /** Whether this replica owned a key under the member list before this change (to find the keys it gained). */
  ownedBefore(key: string): boolean;
}

/**
 * Active replicas without a membership protocol of our own: each replica keeps one pull consumer of its own on the
 * leases bucket's stream (filtered on a subject nothing is written to), created with NATS's `inactive_threshold` set
 * to the lease. While the replica pulls, the consumer lives; once it stops (kill -9, a partition, a stop), NATS
 * deletes the consumer after the lease. The member list is the stream's consumer names under the group's prefix, read
 * every `pollMs`; each replica owns the keys that rendezvous hashing gives it over that list (shares.ts). A replica
 * that stops cleanly deletes its consumer, so the others take its share at their next poll.
 *
 * Two replicas may both believe they own a key for up to one poll while the list changes; every write the scheduler
 * makes is a compare-and-set on the object's revision, so the later of two equal decisions fails and is dropped.
 */
export class ReplicaShares {
  readonly self: string;
  private membersValue: string[] = [];
  private readonly stream: string;
  private readonly prefix: string;
  private readonly pollMs: number;
  private readonly thresholdMs: number;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  private pulling: Promise<void> | undefined;
  private pull: ConsumerMessages | undefined;
  private listFailures = 0;
  private pullFailures = 0;

  constructor(private readonly o: ReplicaSharesOptions) {
    if (!/^[a-z0-9][a-z0-9-]*$/.test(o.group))
      throw new RangeError(`ReplicaShares: group must be lower-case letters, digits and '-', got ${o.group}`);
    if (!Number.isInteger(o.leaseMs) || o.leaseMs < MIN_ACTIVE_LEASE_MS)
      throw new RangeError(
        `ReplicaShares: leaseMs must be an integer of at least ${MIN_ACTIVE_LEASE_MS}, got ${o.leaseMs}`,
      );
    this.pollMs = o.pollMs ?? DEFAULT_SHARES_POLL_MS;
    if (!Number.isInteger(this.pollMs) || this.pollMs < 10)
      throw new RangeError(`ReplicaShares: pollMs must be an integer of at least 10, got ${this.pollMs}`);
    // A pull that was waiting when the replica died keeps the consumer alive until it expires: the threshold leaves
    // room for it, so that the consumer is gone within the lease of the replica's last pull.
    this.thresholdMs = o.leaseMs - KEEP_ALIVE_PULL_MS;
    this.self =
      o.self ??
      `${hostname()
        .toLowerCase()
        .replace(/[^a-z0-9-]/g, '-')
        .slice(0, 40)}-${randomBytes(4).toString('hex')}`;
    this.stream = `KV_${o.bus.names.leasesBucket}`;
    this.prefix = `shares-${o.group}-`;
  }

  /** The live members, sorted (this replica included once started). */
  get members(): readonly string[] {
    return this.membersValue;
  }

  /** Whether this replica owns `key` among the members it last saw. */
  owns(key: string): boolean {
    return ownsKey(key, this.self, this.membersValue);
  }

  /** Joins (creates this replica's member consumer), reads the member list once, then keeps both up to date. */
  async start(): Promise<void> {
    await this.join();
    await this.refresh();
    this.pulling = this.keepAlive();
    this.timer = setInterval(() => {
      this.refreshing ??= this.refresh().finally(() => {
        this.refreshing = undefined;
      });
    }, this.pollMs);
  }

  /** Leaves: stops pulling and deletes this replica's consumer, so the others take its share at their next poll. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.pull?.stop();
    await Promise.all([this.pulling, this.refreshing]);
    await this.o.bus.jsm.consumers.delete(this.stream, this.consumerName).catch(() => undefined);
  }

  private get consumerName(): string {
    return `${this.prefix}${this.self}`;
  }

  private async join(): Promise<void> {
    await this.o.bus.jsm.consumers.add(this.stream, {
      durable_name: this.consumerName,
      // A subject nothing is written to: the consumer is a heartbeat NATS keeps, never a reader.
      filter_subject: `$KV.${this.o.bus.names.leasesBucket}.ReplicaShares._.${this.o.group}.${this.self}`,
      ack_policy: 'explicit',
      deliver_policy: 'new',
      inactive_threshold: this.thresholdMs * 1_000_000,
      mem_storage: true,
      num_replicas: 1,
    } as Parameters<Bus['jsm']['consumers']['add']>[1]);
  }

  /** Pulls without end (nothing ever arrives): each pull tells the server this replica is alive. */
  private async keepAlive(): Promise<void> {
    let consumer: Consumer | undefined;
    while (!this.stopped) {
      try {
        consumer ??= await this.o.bus.js.consumers.get(this.stream, this.consumerName);
        this.pull = await consumer.fetch({ max_messages: 1, expires: KEEP_ALIVE_PULL_MS });
        for await (const m of this.pull) m.ack();
      } catch (err) {
        consumer = undefined; // deleted (NATS lost it, or the lease ran out while disconnected): refresh re-creates it
        if (!this.stopped) {
          if (this.pullFailures++ % 20 === 0)
            this.o.logger.warn({ err: String(err) }, 'replica shares: keep-alive pull failed; retrying');
          await new Promise((resolve) => setTimeout(resolve, this.pollMs));
        }
      }
    }
  }

  private async refresh(): Promise<void> {
    let names: string[];
    try {
      names = [];
      for await (const info of this.o.bus.jsm.consumers.list(this.stream)) {
        if (info.name.startsWith(this.prefix)) names.push(info.name.slice(this.prefix.length));
      }
      this.listFailures = 0;
    } catch (err) {
      // Keep the last list: owning a key twice for a while is safe (compare-and-set), owning nothing stalls.
      if (this.listFailures++ % 20 === 0)
        this.o.logger.warn({ err: String(err) }, 'replica shares: reading the member list failed; keeping the last');
      return;
    }
    if (this.stopped) return;
    if (!names.includes(this.self)) {
      await this.join().catch((err: unknown) =>
        this.o.logger.warn({ err: String(err) }, 'replica shares: re-creating this replica’s member consumer failed'),
      );
      names.push(this.self);
    }
    names.sort();
    const change = membershipChange(this.membersValue, names);
    if (!change.joined.length && !change.left.length) return;
    const previous = this.membersValue;
    this.membersValue = names;
    this.o.logger.info({ self: this.self, members: names, ...change }, 'replica shares: members changed');
    this.o.onChange({ members: names, ...change, ownedBefore: (key) => ownsKey(key, this.self, previous) });
  }
}
