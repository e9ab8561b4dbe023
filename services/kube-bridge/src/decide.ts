import type { SpecOwner } from './kinds.js';

export interface ReservedInput {
  /** Why the object's namespace is reserved (ReservedNamespaces.refusal); undefined when it is not. */
  refusal: string | undefined;
  owner: SpecOwner;
  /** The host object's uid while the host holds it (and is not deleting it). */
  hostUid: string | undefined;
  /** The host object the bridge last told why it is not mirrored, by uid. */
  toldUid: string | undefined;
}

export type ReservedDecision =
  | { type: 'mirror' }
  /** Mirrored neither way; `tell`: a Warning event on the host object (and a log line) says why, once per object. */
  | { type: 'refuse'; tell: boolean; message: string };

/**
 * Whether an object is mirrored at all: one in a reserved namespace (`kube-*`, `flotilla-system`, RESERVED_NAMESPACES)
 * is not taken into Flotilla, and nothing Flotilla holds is written there, as the gateway's admission would refuse it
 * anyway. The user who put it on the host is told once per object (its uid), not per resourceVersion: a template's
 * status moves its version all the time. Flotilla's own kinds (bindings) have no user on the host to tell.
 */
export function decideReserved(input: ReservedInput): ReservedDecision {
  if (input.refusal === undefined) return { type: 'mirror' };
  const tell = input.owner === 'shared' && input.hostUid !== undefined && input.hostUid !== input.toldUid;
  return { type: 'refuse', tell, message: `${input.refusal}; not mirrored` };
}

/**
 * What the bridge last saw in sync, per object: the resourceVersion of the host's object and of Flotilla's at that
 * moment (after the bridge's own write to either), the digest of the mirrored content each side held then, the host
 * object's uid, and a digest of the status it last wrote to the host. Kept outside both sides (neither side's
 * resourceVersion can record the other's without changing its own), so a restarted bridge tells "changed since"
 * from "already mirrored" without writing anything again.
 */
export interface SyncRecord {
  host: string;
  flotilla: string;
  /**
   * contentDigest of each side's mirrored content at the last sync. Absent in records written before digests were
   * kept: then any new resourceVersion counts as a change, as it did.
   */
  hostContent?: string;
  flotillaContent?: string;
  hostUid?: string;
  /** statusDigest of the last status the bridge wrote to the host object `hostUid`. */
  status?: string;
}

/** One side's copy of an object; absent while it does not exist (or is being deleted) there. */
export interface SideView {
  resourceVersion: string;
  /** contentDigest of its mirrored content (for a host object, as admission would store it: admittedContent). */
  digest: string;
}

export interface MirrorInput {
  owner: SpecOwner;
  host?: SideView | undefined;
  flotilla?: SideView | undefined;
  record?: SyncRecord | undefined;
  /**
   * The newest resourceVersion each side's cache has caught up with (the host informer's last list or watch event,
   * Flotilla's bucket revision). A record newer than that means the bridge's own last write is not in the cache yet.
   */
  hostSeen: string;
  flotillaSeen: string;
  /**
   * The host object is being deleted (`kubectl delete` marked it; the bridge's finalizer holds it): it counts as
   * absent, and Flotilla's copy goes whatever the record says, even when no record remembers the sync.
   */
  hostDeleting?: boolean;
}

export type MirrorAction =
  /** Both sides agree and the record says so. */
  | { type: 'none' }
  /** A cache has not caught up with the bridge's own last write: its watch event will bring the key back. */
  | { type: 'wait'; side: 'host' | 'flotilla' }
  /** Both sides hold the same content: note their resourceVersions. */
  | { type: 'record' }
  /** Neither side has the object: drop its record. */
  | { type: 'forget' }
  /** Copy the host's content to Flotilla: a compare-and-set on `expect`, a create without it. */
  | { type: 'to-flotilla'; expect?: string }
  | { type: 'to-host'; expect?: string }
  | { type: 'delete-flotilla'; expect: string }
  | { type: 'delete-host'; expect: string };

/** Both sides changed since the last sync: which versions met and which one was kept. */
export interface MirrorConflict {
  hostResourceVersion: string | undefined;
  flotillaResourceVersion: string | undefined;
  record: SyncRecord | undefined;
  kept: 'host' | 'flotilla';
}

export interface MirrorDecision {
  action: MirrorAction;
  /** Set when the action overwrites (or deletes) a change made on the other side: it is reported, never silent. */
  conflict?: MirrorConflict;
  /** Why, in a few words (logged at debug). */
  reason: string;
}

/**
 * True when `seen` is older than `recorded`. Kubernetes (etcd) and JetStream resourceVersions are increasing
 * integers; a version that is not one (another storage) is never taken for older, so the bridge cannot stall on it.
 */
export function olderThan(seen: string, recorded: string): boolean {
  if (!/^\d+$/.test(seen) || !/^\d+$/.test(recorded)) return false;
  return BigInt(seen) < BigInt(recorded);
}

const decision = (action: MirrorAction, reason: string, conflict?: MirrorConflict): MirrorDecision =>
  conflict ? { action, reason, conflict } : { action, reason };

/**
 * Whether one side changed the mirrored content since the last sync: its resourceVersion moved and its content is
 * not what it was then. A write that leaves the content as it was (a finalizer, a status or managed-fields update,
 * the echo of the bridge's own write) moves the resourceVersion only, and is not a change of that side: it must not
 * make a change on the other side a conflict, nor be copied over it. Without a recorded digest (a record from before
 * digests) the resourceVersion alone decides.
 */
function changedSince(view: SideView, recordedVersion: string, recordedDigest: string | undefined): boolean {
  if (view.resourceVersion === recordedVersion) return false;
  return recordedDigest === undefined || view.digest !== recordedDigest;
}

/**
 * Which way one object's spec flows. Changes are told from the record (a side changed when its resourceVersion
 * moved and its content digest is not the one recorded), never guessed by comparing the two sides; equal digests on
 * both sides only save a write that would change nothing. A change on both sides since the last sync is a conflict,
 * resolved for the side that owns the spec — the host, where users keep their objects in kube mode (Flotilla, for
 * the kinds only Flotilla writes) — and reported with both resourceVersions.
 */
export function decideMirror(input: MirrorInput): MirrorDecision {
  const { host, flotilla, record } = input;
  // 0. Our own last write must be in the caches before anything is concluded from them.
  if (record) {
    if (olderThan(host?.resourceVersion ?? input.hostSeen, record.host))
      return decision({ type: 'wait', side: 'host' }, 'host cache behind the last sync');
    if (olderThan(flotilla?.resourceVersion ?? input.flotillaSeen, record.flotilla))
      return decision({ type: 'wait', side: 'flotilla' }, 'Flotilla cache behind the last sync');
  }
  if (input.owner === 'flotilla') return decideFlotillaOwned(input);

  // 1. Absent on both sides.
  if (!host && !flotilla) return record ? decision({ type: 'forget' }, 'gone from both sides') : none('absent');

  // 2. On one side only: new there, or deleted on the other side since the last sync.
  if (host && !flotilla) {
    if (!record) return decision({ type: 'to-flotilla' }, 'new on the host');
    if (!changedSince(host, record.host, record.hostContent))
      return decision({ type: 'delete-host', expect: host.resourceVersion }, 'deleted in Flotilla');
    return decision({ type: 'to-flotilla' }, 'deleted in Flotilla but changed on the host', conflict(input, 'host'));
  }
  if (!host && flotilla) {
    if (!record && input.hostDeleting)
      return decision({ type: 'delete-flotilla', expect: flotilla.resourceVersion }, 'being deleted on the host');
    if (!record) return decision({ type: 'to-host' }, 'new in Flotilla');
    const deleteFlotilla = { type: 'delete-flotilla', expect: flotilla.resourceVersion } as const;
    if (!changedSince(flotilla, record.flotilla, record.flotillaContent))
      return decision(deleteFlotilla, 'deleted on the host');
    return decision(deleteFlotilla, 'deleted on the host but changed in Flotilla', conflict(input, 'host'));
  }

  // 3. On both sides.
  const h = host!;
  const f = flotilla!;
  const hostChanged = !record || changedSince(h, record.host, record.hostContent);
  const flotillaChanged = !record || changedSince(f, record.flotilla, record.flotillaContent);
  if (!hostChanged && !flotillaChanged) return inSync(input);
  if (h.digest === f.digest) return decision({ type: 'record' }, 'same content on both sides');
  if (hostChanged && !flotillaChanged)
    return decision({ type: 'to-flotilla', expect: f.resourceVersion }, 'changed on the host');
  if (!hostChanged && flotillaChanged)
    return decision({ type: 'to-host', expect: h.resourceVersion }, 'changed in Flotilla');
  return decision(
    { type: 'to-flotilla', expect: f.resourceVersion },
    record ? 'changed on both sides' : 'created on both sides',
    conflict(input, 'host'),
  );
}

/** Flotilla's own kinds: the host's copy follows Flotilla's, whatever was done to it. */
function decideFlotillaOwned(input: MirrorInput): MirrorDecision {
  const { host, flotilla, record } = input;
  if (!flotilla) {
    if (host) return decision({ type: 'delete-host', expect: host.resourceVersion }, 'deleted in Flotilla');
    return record ? decision({ type: 'forget' }, 'gone from both sides') : none('absent');
  }
  if (!host) return decision({ type: 'to-host' }, record ? 'deleted on the host: Flotilla owns it' : 'new in Flotilla');
  if (
    record &&
    !changedSince(host, record.host, record.hostContent) &&
    !changedSince(flotilla, record.flotilla, record.flotillaContent)
  )
    return inSync(input);
  if (host.digest === flotilla.digest) return decision({ type: 'record' }, 'same content on both sides');
  return decision({ type: 'to-host', expect: host.resourceVersion }, 'Flotilla owns it');
}

const none = (reason: string): MirrorDecision => ({ action: { type: 'none' }, reason });

/**
 * Neither side changed the content. When a resourceVersion moved all the same (a write that left the content as it
 * was), the record takes the new versions, so that the next look at the object is a plain comparison again.
 */
function inSync(input: MirrorInput): MirrorDecision {
  const { host, flotilla, record } = input;
  if (record && host?.resourceVersion === record.host && flotilla?.resourceVersion === record.flotilla)
    return none('in sync');
  return decision({ type: 'record' }, 'in sync; a write left the content as it was');
}

function conflict(input: MirrorInput, kept: 'host' | 'flotilla'): MirrorConflict {
  return {
    hostResourceVersion: input.host?.resourceVersion,
    flotillaResourceVersion: input.flotilla?.resourceVersion,
    record: input.record,
    kept,
  };
}

/** The Warning event's message for a conflict: both versions, what the last sync saw, which one was kept. */
export function conflictMessage(c: MirrorConflict): string {
  const side = (rv: string | undefined) => (rv === undefined ? 'deleted' : `resourceVersion ${rv}`);
  const since = c.record
    ? `since the last sync (host ${c.record.host}, Flotilla ${c.record.flotilla})`
    : 'with no sync between them';
  const lost = c.kept === 'host' ? 'Flotilla' : 'host';
  return (
    `changed on both sides ${since}: host ${side(c.hostResourceVersion)}, Flotilla ${side(c.flotillaResourceVersion)}; ` +
    `kept the ${c.kept}'s, the ${lost}'s change was overwritten`
  );
}

export interface StatusInput {
  /** statusDigest of Flotilla's status of the object (undefined: none yet). */
  statusDigest: string | undefined;
  hostUid: string | undefined;
  record: SyncRecord | undefined;
}

/**
 * Whether Flotilla's status must be written to the host object. Decided on the digest of the status last written,
 * not on the host's copy: the host's API server may prune or default what it is given, and comparing with that
 * would write the same status forever. A status never set in Flotilla is left alone; a new host object (another
 * uid) gets it again.
 */
export function decideStatus(input: StatusInput): { write: boolean } {
  if (input.statusDigest === undefined) return { write: false };
  const written = input.record?.hostUid !== undefined && input.record.hostUid === input.hostUid;
  return { write: !(written && input.record?.status === input.statusDigest) };
}
