import { createJson, deleteKey, getJson, listJson, updateJson, type Bus } from '@flotilla/bus';
import type { RuleState } from '@flotilla/cron';

/** What the scheduler keeps per CronFederatedHPA (by uid) between runs and across leaders. */
export interface CronObjectState {
  /** The object's store key, to find it again (and to clean up after it is deleted). */
  objectKey: string;
  /** Each rule's clock and next due instant: stored so a restart never recomputes it from "now". */
  rules: RuleState[];
}

export interface StoredCronState {
  state: CronObjectState;
  /** KV revision; 0 when nothing is stored yet. */
  revision: number;
}

/**
 * The reserved kind under which rule state lives in the objects bucket. It is no API kind, so admission never lets
 * a user touch it, informers of real kinds never see it, and the bus's own teardown removes it with everything else.
 */
export const CRON_STATE_KIND = 'CronSchedulerState';

const keyOf = (uid: string): string => `${CRON_STATE_KIND}._.${uid}`;

/**
 * Rule state in JetStream (file storage, so it outlives a Redis restart, which BullMQ's timers do not). Every
 * write is a compare-and-set on the revision read, so a deposed leader's late write fails instead of winning.
 */
export class RuleStateStore {
  constructor(private readonly bus: Bus) {}

  async get(uid: string): Promise<StoredCronState | undefined> {
    const v = await getJson<CronObjectState>(this.bus.objects, keyOf(uid));
    return v && { state: v.value, revision: v.revision };
  }

  /** Every stored state, by uid. */
  async list(): Promise<Map<string, StoredCronState>> {
    const snap = await listJson<CronObjectState>(this.bus.js, this.bus.names.objectsBucket, `${CRON_STATE_KIND}.>`);
    const prefix = keyOf('');
    return new Map(snap.items.map((i) => [i.key.slice(prefix.length), { state: i.value, revision: i.revision }]));
  }

  /** Compare-and-set against `revision` (0 = must not exist yet); throws ConflictError / AlreadyExistsError when lost. */
  async put(uid: string, state: CronObjectState, revision: number): Promise<number> {
    return revision === 0
      ? createJson(this.bus.objects, keyOf(uid), state)
      : updateJson(this.bus.objects, keyOf(uid), state, revision);
  }

  async delete(uid: string, revision?: number): Promise<void> {
    await deleteKey(this.bus.objects, keyOf(uid), revision);
  }
}
