import { ReservedNamespaces } from '@flotilla/api';
import { describe, expect, it } from 'vitest';
import type { MirrorContent } from './content.js';
import { contentDigest, statusDigest } from './content.js';
import {
  conflictMessage,
  decideMirror,
  decideReserved,
  decideStatus,
  type MirrorInput,
  olderThan,
  type SideView,
  type SyncRecord,
} from './decide.js';

const cron = (minReplicas: number): MirrorContent => ({
  apiVersion: 'autoscaling.karmada.io/v1alpha1',
  kind: 'CronFederatedHPA',
  metadata: { name: 'scale-up', namespace: 'default' },
  spec: { rules: [{ name: 'peak', schedule: '0 8 * * *', targetMinReplicas: minReplicas }] },
});
const at = (resourceVersion: string, min = 3): SideView => ({ resourceVersion, digest: contentDigest(cron(min)) });
/** A record from before content digests were kept: resourceVersions only. */
const rec = (host: string, flotilla: string): SyncRecord => ({ host, flotilla });
/** A record of a sync at which both sides held `cron(min)`. */
const synced = (host: string, flotilla: string, min = 3): SyncRecord => ({
  host,
  flotilla,
  hostContent: contentDigest(cron(min)),
  flotillaContent: contentDigest(cron(min)),
});
const base = { owner: 'shared', hostSeen: '1000', flotillaSeen: '1000' } as const;

describe('decideMirror, kinds users write on either side', () => {
  const cases: Array<[string, Partial<MirrorInput>, object, 'host' | undefined]> = [
    ['absent everywhere, never seen', {}, { type: 'none' }, undefined],
    ['gone from both sides since the last sync', { record: rec('5', '7') }, { type: 'forget' }, undefined],
    ['new on the host', { host: at('5') }, { type: 'to-flotilla' }, undefined],
    ['new in Flotilla', { flotilla: at('7') }, { type: 'to-host' }, undefined],
    [
      'being deleted on the host, no record of a sync: Flotilla lets go too',
      { flotilla: at('7'), hostDeleting: true },
      { type: 'delete-flotilla', expect: '7' },
      undefined,
    ],
    [
      'deleted in Flotilla, host untouched',
      { host: at('5'), record: rec('5', '7') },
      { type: 'delete-host', expect: '5' },
      undefined,
    ],
    [
      'deleted on the host, Flotilla untouched',
      { flotilla: at('7'), record: rec('5', '7') },
      { type: 'delete-flotilla', expect: '7' },
      undefined,
    ],
    [
      'deleted in Flotilla, changed on the host: the host wins',
      { host: at('9', 4), record: rec('5', '7') },
      { type: 'to-flotilla' },
      'host',
    ],
    [
      'deleted on the host, changed in Flotilla: the host wins',
      { flotilla: at('8', 4), record: rec('5', '7') },
      { type: 'delete-flotilla', expect: '8' },
      'host',
    ],
    ['in sync', { host: at('5'), flotilla: at('7'), record: rec('5', '7') }, { type: 'none' }, undefined],
    [
      'changed on the host',
      { host: at('9', 4), flotilla: at('7'), record: rec('5', '7') },
      { type: 'to-flotilla', expect: '7' },
      undefined,
    ],
    [
      'changed in Flotilla',
      { host: at('5'), flotilla: at('8', 4), record: rec('5', '7') },
      { type: 'to-host', expect: '5' },
      undefined,
    ],
    [
      'changed on both sides: the host wins, reported',
      { host: at('9', 4), flotilla: at('8', 5), record: rec('5', '7') },
      { type: 'to-flotilla', expect: '8' },
      'host',
    ],
    [
      'changed on both sides to the same content',
      { host: at('9', 4), flotilla: at('8', 4), record: rec('5', '7') },
      { type: 'record' },
      undefined,
    ],
    [
      'host status write only (same content): no spec write',
      { host: at('6'), flotilla: at('7'), record: rec('5', '7') },
      { type: 'record' },
      undefined,
    ],
    [
      'a lost record (written, then crashed): same content, no write',
      { host: at('5'), flotilla: at('7') },
      { type: 'record' },
      undefined,
    ],
    [
      'created on both sides with different content',
      { host: at('5', 4), flotilla: at('7', 5) },
      { type: 'to-flotilla', expect: '7' },
      'host',
    ],
    [
      "host cache behind the bridge's own write",
      { host: at('4'), flotilla: at('7'), record: rec('5', '7') },
      { type: 'wait', side: 'host' },
      undefined,
    ],
    [
      'host create not yet seen',
      { flotilla: at('7'), record: rec('5', '7'), hostSeen: '4' },
      { type: 'wait', side: 'host' },
      undefined,
    ],
    [
      'Flotilla create not yet seen',
      { host: at('5'), record: rec('5', '7'), flotillaSeen: '6' },
      { type: 'wait', side: 'flotilla' },
      undefined,
    ],
    [
      'host deletion seen (cache past the record)',
      { flotilla: at('7'), record: rec('5', '7'), hostSeen: '12' },
      { type: 'delete-flotilla', expect: '7' },
      undefined,
    ],
    // Content digests: a write that leaves a side's mirrored content as it was is not a change of that side.
    [
      "finalizer-only host update, changed in Flotilla: Flotilla's change goes to the host, no conflict",
      { host: at('9'), flotilla: at('8', 4), record: synced('5', '7') },
      { type: 'to-host', expect: '9' },
      undefined,
    ],
    [
      "status-only host update (the host's controller), replicas changed in Flotilla by an autoscaler: kept",
      { host: at('6'), flotilla: at('8', 4), record: synced('5', '7') },
      { type: 'to-host', expect: '6' },
      undefined,
    ],
    [
      'status-only host update, Flotilla untouched: the record takes the new version, no write',
      { host: at('6'), flotilla: at('7'), record: synced('5', '7') },
      { type: 'record' },
      undefined,
    ],
    [
      "the bridge's own finalizer write echoing back (its record lost in a crash), changed in Flotilla: no conflict",
      { host: at('6'), flotilla: at('9', 4), record: synced('5', '7') },
      { type: 'to-host', expect: '6' },
      undefined,
    ],
    [
      'Flotilla re-applied unchanged (resourceVersion moved only), changed on the host: no conflict',
      { host: at('9', 4), flotilla: at('8'), record: synced('5', '7') },
      { type: 'to-flotilla', expect: '8' },
      undefined,
    ],
    [
      'finalizer-only host update, deleted in Flotilla: the host copy goes too',
      { host: at('9'), record: synced('5', '7'), flotillaSeen: '12' },
      { type: 'delete-host', expect: '9' },
      undefined,
    ],
    [
      "deleted on the host, Flotilla re-applied unchanged: Flotilla's copy goes too, no conflict",
      { flotilla: at('8'), record: synced('5', '7'), hostSeen: '12' },
      { type: 'delete-flotilla', expect: '8' },
      undefined,
    ],
    [
      'a real change on both sides, after a status-only host update: the host wins, reported',
      { host: at('9', 4), flotilla: at('8', 5), record: synced('6', '7') },
      { type: 'to-flotilla', expect: '8' },
      'host',
    ],
    [
      'a record without digests: any new host resourceVersion is a change (as before digests)',
      { host: at('9'), flotilla: at('8', 4), record: rec('5', '7') },
      { type: 'to-flotilla', expect: '8' },
      'host',
    ],
  ];
  it.each(cases)('%s', (_name, input, action, kept) => {
    const d = decideMirror({ ...base, ...input });
    expect(d.action).toEqual(action);
    expect(d.conflict?.kept).toBe(kept);
  });
});

describe('decideMirror, kinds only Flotilla writes (ResourceBindings)', () => {
  const owned = { ...base, owner: 'flotilla' } as const;
  const cases: Array<[string, Partial<MirrorInput>, object]> = [
    ['new in Flotilla', { flotilla: at('7') }, { type: 'to-host' }],
    [
      'deleted on the host: written again',
      { flotilla: at('7'), record: rec('5', '7'), hostSeen: '9' },
      { type: 'to-host' },
    ],
    [
      'deleted in Flotilla',
      { host: at('5'), record: rec('5', '7'), flotillaSeen: '9' },
      { type: 'delete-host', expect: '5' },
    ],
    [
      'edited on the host: overwritten',
      { host: at('9', 4), flotilla: at('7'), record: rec('5', '7') },
      { type: 'to-host', expect: '9' },
    ],
    [
      'changed in Flotilla',
      { host: at('5'), flotilla: at('8', 4), record: rec('5', '7') },
      { type: 'to-host', expect: '5' },
    ],
    ['in sync', { host: at('5'), flotilla: at('7'), record: rec('5', '7') }, { type: 'none' }],
    ['gone from both sides', { record: rec('5', '7') }, { type: 'forget' }],
    [
      "the bridge's own status write echoing back (content as recorded): no spec write",
      { host: at('6'), flotilla: at('7'), record: synced('5', '7') },
      { type: 'record' },
    ],
    [
      'the host API server defaulted a field on the copy (recorded as written): not an edit',
      {
        host: { resourceVersion: '6', digest: 'defaulted-by-the-host' },
        flotilla: at('7'),
        record: { ...synced('5', '7'), hostContent: 'defaulted-by-the-host' },
      },
      { type: 'record' },
    ],
    [
      'edited on the host after a status write: overwritten',
      { host: at('9', 4), flotilla: at('7'), record: synced('6', '7') },
      { type: 'to-host', expect: '9' },
    ],
  ];
  it.each(cases)('%s', (_name, input, action) => {
    expect(decideMirror({ ...owned, ...input }).action).toEqual(action);
  });
});

describe('olderThan', () => {
  it.each([
    ['4', '5', true],
    ['5', '5', false],
    ['10', '9', false],
    ['99999999999999999999', '100000000000000000000', true],
    ['abc', '5', false],
    ['', '5', false],
  ])('%s older than %s: %s', (seen, recorded, older) => expect(olderThan(seen, recorded)).toBe(older));
});

describe('conflictMessage', () => {
  it('names both resourceVersions, the last sync and the side kept', () => {
    const d = decideMirror({ ...base, host: at('9', 4), flotilla: at('8', 5), record: rec('5', '7') });
    expect(conflictMessage(d.conflict!)).toBe(
      'changed on both sides since the last sync (host 5, Flotilla 7): host resourceVersion 9, Flotilla resourceVersion 8; ' +
        "kept the host's, the Flotilla's change was overwritten",
    );
  });
  it('says "deleted" for a side that deleted', () => {
    const d = decideMirror({ ...base, flotilla: at('8', 4), record: rec('5', '7') });
    expect(conflictMessage(d.conflict!)).toContain('host deleted, Flotilla resourceVersion 8');
  });
});

describe('decideStatus', () => {
  const digest = statusDigest({ conditions: [{ type: 'Scheduled', status: 'True' }] });
  const written = { ...rec('5', '7'), hostUid: 'u1', status: digest };
  it.each([
    ['no status in Flotilla yet', { statusDigest: undefined, hostUid: 'u1', record: undefined }, false],
    ['never written', { statusDigest: digest, hostUid: 'u1', record: rec('5', '7') }, true],
    ['written to this host object already', { statusDigest: digest, hostUid: 'u1', record: written }, false],
    ['written to an earlier host object of that name', { statusDigest: digest, hostUid: 'u2', record: written }, true],
    ['changed since written', { statusDigest: statusDigest({ conditions: [] }), hostUid: 'u1', record: written }, true],
  ] as const)('%s', (_name, input, write) => {
    expect(decideStatus(input).write).toBe(write);
  });
  it('the digest does not depend on field order', () => {
    expect(statusDigest({ a: 1, b: { c: 2, d: 3 } })).toBe(statusDigest({ b: { d: 3, c: 2 }, a: 1 }));
  });
});

describe('decideReserved', () => {
  const why = ReservedNamespaces.defaults.refusal('kube-system');
  const refused = (tell: boolean) => ({ type: 'refuse', tell, message: `${why}; not mirrored` });
  it.each([
    ['not reserved', { refusal: undefined, owner: 'shared', hostUid: 'u1', toldUid: undefined }, { type: 'mirror' }],
    [
      'reserved, on the host, not told yet',
      { refusal: why, owner: 'shared', hostUid: 'u1', toldUid: undefined },
      refused(true),
    ],
    ['reserved, told already', { refusal: why, owner: 'shared', hostUid: 'u1', toldUid: 'u1' }, refused(false)],
    [
      'reserved, a new object of that name',
      { refusal: why, owner: 'shared', hostUid: 'u2', toldUid: 'u1' },
      refused(true),
    ],
    [
      'reserved, only in Flotilla (stored before the rule)',
      { refusal: why, owner: 'shared', hostUid: undefined, toldUid: undefined },
      refused(false),
    ],
    [
      "reserved, Flotilla's own kind",
      { refusal: why, owner: 'flotilla', hostUid: 'u1', toldUid: undefined },
      refused(false),
    ],
  ] as const)('%s', (_name, input, expected) => {
    expect(decideReserved(input)).toEqual(expected);
  });
  it('names the namespace and the rule', () => {
    expect(refused(true).message).toBe(
      'namespace "kube-system" is reserved (kube-*, flotilla-system): Flotilla does not propagate from or into it; not mirrored',
    );
  });
});
