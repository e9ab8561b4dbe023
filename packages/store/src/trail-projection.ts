import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import {
  deleteKey,
  encodeJson,
  eventFilter,
  eventTypeOf,
  getJson,
  isWrongLastSequence,
  readEvents,
  subjectOf,
  type Bus,
  type EventAddress,
} from '@flotilla/bus';
import {
  initialTrailState,
  resumeReplicaTrail,
  type TrailEntry,
  type TrailEvent,
  type TrailState,
  type WorkloadRef,
} from '@flotilla/replica-trail';
import { objectKey } from './object.js';

/**
 * A workload's replica trail kept folded in the trails bucket, so that `flotilla explain replicas` reads the stored
 * entries and only the events after them, not the workload's whole history (10,000 decisions are 10,000 messages to
 * fetch and decode; stored, they are a few values). The stream stays the truth: the projection is derived, checked
 * against the stream on every read, and rebuilt from it when it does not fit (other subjects, a re-created stream).
 *
 * Layout: one head per workload (key `objectKey`) with the fold's state, and the entries in chunks of
 * `chunkEntries` (key `<objectKey>.<set>.<i>`, where `set` names the subjects folded, so a projection of
 * other subjects never reads or overwrites these chunks).
 */
export interface TrailProjectionHead {
  /** The event subjects folded, sorted: the workload's addresses when the projection was built. */
  subjects: string[];
  /** The events stream's creation time: a stream re-created since (a NATS that lost its data) is another history. */
  streamCreated: string;
  /** Every event of `subjects` up to this stream sequence is folded in. */
  lastSeq: number;
  /** How many entries the chunks hold. */
  entries: number;
  /** Entries per chunk (the last one may hold fewer). */
  chunkEntries: number;
  /** The fold's state after `lastSeq`, to continue from. */
  state: TrailState;
}

/** Entries per stored chunk: about 400 kB of JSON, stored gzipped (some 20 kB: the entries repeat their words). */
export const TRAIL_CHUNK_ENTRIES = 2000;

/**
 * Up to this many stream sequences after the head, the events after it are read as one range of the stream (one
 * consumer, other workloads' events skipped) rather than one consumer per subject: a projection kept up leaves a
 * short range, and a consumer costs round trips that a busy server makes slow.
 */
export const TRAIL_RANGE_READ_MAX = 5000;

export interface TrailRead {
  entries: TrailEntry[];
  /** Entries taken from the stored projection (the rest were folded from the events after it). */
  projected: number;
  /** Events read from the stream for this answer. */
  eventsRead: number;
}

export const trailSubjects = (bus: Bus, addresses: ReadonlyArray<Partial<EventAddress>>): string[] =>
  [...new Set(addresses.map((a) => eventFilter(bus.names.eventsRoot, a)))].sort();

const setOf = (subjects: readonly string[]) =>
  createHash('sha256').update(subjects.join('\n')).digest('hex').slice(0, 12);
const chunkKey = (head: string, subjects: readonly string[], i: number) => `${head}.${setOf(subjects)}.${i}`;
const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((s, i) => s === b[i]);

interface StreamPosition {
  created: string;
  lastSeq: number;
}

async function streamPosition(bus: Bus): Promise<StreamPosition> {
  const info = await bus.jsm.streams.info(bus.names.eventsStream);
  return { created: info.created, lastSeq: info.state.last_seq };
}

/** The head, if it was built over these subjects from this stream and nothing of it lies beyond the stream's end. */
function fits(head: TrailProjectionHead | undefined, subjects: readonly string[], at: StreamPosition) {
  return (
    head !== undefined &&
    sameList(head.subjects, subjects) &&
    head.streamCreated === at.created &&
    head.lastSeq <= at.lastSeq
  );
}

/** The events of `subjects` after stream sequence `afterSeq` up to `upToSeq`, in stream order, as the fold takes them. */
async function eventsBetween(bus: Bus, subjects: string[], afterSeq: number, upToSeq: number): Promise<TrailEvent[]> {
  if (afterSeq >= upToSeq) return [];
  const out: TrailEvent[] = [];
  const short = upToSeq - afterSeq <= TRAIL_RANGE_READ_MAX;
  const wanted = new Set(subjects);
  const read = short
    ? readEvents(bus, { fromSeq: afterSeq + 1 })
    : readEvents(bus, { subjects, fromSeq: afterSeq + 1 });
  for await (const d of read) {
    if (d.seq > upToSeq) continue;
    if (short && !wanted.has(subjectOf(bus, d.event))) continue;
    out.push({
      type: eventTypeOf(d.event),
      kind: d.event.flotillakind,
      namespace: d.event.flotillanamespace,
      name: d.event.flotillaname,
      time: d.event.time,
      data: d.event.data,
    });
  }
  return out;
}

async function storedEntries(bus: Bus, key: string, head: TrailProjectionHead, upTo = head.entries) {
  const chunks = await Promise.all(
    Array.from({ length: Math.ceil(upTo / head.chunkEntries) }, (_, i) =>
      getJson<TrailEntry[]>(bus.trails, chunkKey(key, head.subjects, i)),
    ),
  );
  // A missing chunk (purged by hand, say) makes the projection unusable; the caller folds from the stream instead
  // (the projection starts over when the chunk it rewrites is the one missing, or when its subjects change).
  if (chunks.some((c) => c === undefined)) return undefined;
  return chunks.flatMap((c) => c!.value).slice(0, upTo);
}

/**
 * The workload's trail over `addresses` (packages/replica-trail's `trailAddresses`): the stored projection and the
 * events after it when the projection fits, else a fold of the subjects from the stream's start. Never writes.
 */
export async function readReplicaTrail(
  bus: Bus,
  workload: WorkloadRef,
  addresses: ReadonlyArray<Partial<EventAddress>>,
): Promise<TrailRead> {
  const key = objectKey(workload);
  const subjects = trailSubjects(bus, addresses);
  const [stored, at] = await Promise.all([getJson<TrailProjectionHead>(bus.trails, key), streamPosition(bus)]);
  const head = stored?.value;
  if (fits(head, subjects, at)) {
    const [entries, events] = await Promise.all([
      storedEntries(bus, key, head!),
      eventsBetween(bus, subjects, head!.lastSeq, at.lastSeq),
    ]);
    if (entries)
      return {
        entries: [...entries, ...resumeReplicaTrail(head!.state, events).entries],
        projected: entries.length,
        eventsRead: events.length,
      };
  }
  const events = await eventsBetween(bus, subjects, 0, at.lastSeq);
  return { entries: resumeReplicaTrail(initialTrailState(), events).entries, projected: 0, eventsRead: events.length };
}

export interface ProjectionResult {
  /** Events folded into the projection by this call. */
  folded: number;
  /** The projection was started over (none yet, other subjects, a re-created stream). */
  rebuilt: boolean;
}

/**
 * Brings the workload's projection up to the stream's end: folds the events after the stored head (or all of them
 * when it does not fit), rewrites the last partial chunk and adds new ones, then moves the head with one
 * compare-and-set. Chunks go first, so a reader of the old head finds its entries; one whose head moved meanwhile
 * just loses the race (the winner folded the same stream), and the next call continues from the winner's head.
 */
export async function projectReplicaTrail(
  bus: Bus,
  workload: WorkloadRef,
  addresses: ReadonlyArray<Partial<EventAddress>>,
  opts: { chunkEntries?: number } = {},
): Promise<ProjectionResult> {
  const chunkEntries = opts.chunkEntries ?? TRAIL_CHUNK_ENTRIES;
  if (!Number.isInteger(chunkEntries) || chunkEntries < 1)
    throw new RangeError(`projectReplicaTrail: chunkEntries must be a positive integer, not ${opts.chunkEntries}`);
  const key = objectKey(workload);
  const subjects = trailSubjects(bus, addresses);
  const [stored, at] = await Promise.all([getJson<TrailProjectionHead>(bus.trails, key), streamPosition(bus)]);
  const old = stored?.value;
  const continues = fits(old, subjects, at) && old!.chunkEntries === chunkEntries;
  if (continues && old!.lastSeq === at.lastSeq) return { folded: 0, rebuilt: false };
  const base: TrailProjectionHead = continues
    ? old!
    : { subjects, streamCreated: at.created, lastSeq: 0, entries: 0, chunkEntries, state: initialTrailState() };
  const events = await eventsBetween(bus, subjects, base.lastSeq, at.lastSeq);
  const { entries, state } = resumeReplicaTrail(base.state, events);
  if (entries.length > 0) {
    const first = Math.floor(base.entries / chunkEntries);
    const kept = base.entries % chunkEntries;
    const partial = kept === 0 ? [] : (await getJson<TrailEntry[]>(bus.trails, chunkKey(key, subjects, first)))?.value;
    if (partial === undefined) {
      // The last chunk is gone (purged by hand, say): what it held is only in the stream now; start over.
      await deleteKey(bus.trails, key, stored!.revision);
      return projectReplicaTrail(bus, workload, addresses, opts);
    }
    const combined = [...partial.slice(0, kept), ...entries];
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i * chunkEntries < combined.length; i++) {
      const chunk = combined.slice(i * chunkEntries, (i + 1) * chunkEntries);
      writes.push(bus.trails.put(chunkKey(key, subjects, first + i), gzipSync(JSON.stringify(chunk))));
    }
    await Promise.all(writes);
  }
  const head: TrailProjectionHead = {
    subjects,
    streamCreated: at.created,
    lastSeq: at.lastSeq,
    entries: base.entries + entries.length,
    chunkEntries,
    state,
  };
  try {
    if (stored) await bus.trails.update(key, encodeJson(head), stored.revision);
    else await bus.trails.create(key, encodeJson(head));
  } catch (err) {
    if (isWrongLastSequence(err)) return { folded: 0, rebuilt: false };
    throw err;
  }
  // The chunks of a projection over other subjects are no longer reachable from the head.
  if (old && !sameList(old.subjects, subjects))
    await Promise.all(
      Array.from({ length: Math.ceil(old.entries / old.chunkEntries) }, (_, i) =>
        deleteKey(bus.trails, chunkKey(key, old.subjects, i)).catch(() => undefined),
      ),
    );
  return { folded: events.length, rebuilt: !continues };
}
