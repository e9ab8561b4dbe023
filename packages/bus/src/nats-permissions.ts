import {
  API_CALLERS as API_CALLER_ROLES,
  FLOTILLA_OBJECT_KINDS,
  MEMBER_NATS,
  NATS_USERS,
  memberNatsUser,
  natsUserEntry,
  type NatsPublishGrant,
  type NatsSubscribeGrant,
  type NatsUser,
  type NatsUserEntry,
  type OwnedConsumer,
} from '@flotilla/catalogue';
import { EventTypes } from './event-types.js';
import type { BusNames } from './names.js';
import { escapeToken } from './subjects.js';

/** The most dots in a binding's name for which a member cluster's agent may write usage (see the `usage` grant). */
export const MEMBER_USAGE_NAME_DOTS = 6;

/** Where one NATS user may publish and subscribe (nats-server's `permissions` of a user). */
export interface SubjectPermissions {
  publish: { allow: string[]; deny: string[] };
  subscribe: { allow: string[]; deny: string[] };
  /** May answer the requests it receives, once each (nats-server's `allow_responses`): the gateway. */
  allowResponses: boolean;
}

/** Every stream of a prefix: the events, the metric samples, and each bucket's. */
export function prefixStreams(names: BusNames): string[] {
  return [
    names.eventsStream,
    names.metricsStream,
    ...[
      names.objectsBucket,
      names.statusBucket,
      names.kubeEventsBucket,
      names.trailsBucket,
      names.leasesBucket,
      names.usageBucket,
    ].map((b) => `KV_${b}`),
  ];
}

/**
 * The inbox prefix of a NATS user: its replies (a request's, a JetStream API call's, a consumer's deliveries) arrive
 * under it, and no other user may subscribe there. Without a user (an open server) the client's default.
 */
export function inboxPrefixOf(user: string | undefined): string | undefined {
  return user ? `_INBOX_${user}` : undefined;
}

/** The JetStream API calls of a reader of a stream: its info, direct and stored reads, and its own consumers. */
function readApi(stream: string): string[] {
  return [
    `$JS.API.STREAM.INFO.${stream}`,
    `$JS.API.STREAM.MSG.GET.${stream}`,
    `$JS.API.DIRECT.GET.${stream}`,
    `$JS.API.DIRECT.GET.${stream}.>`,
    `$JS.API.CONSUMER.CREATE.${stream}`,
    `$JS.API.CONSUMER.CREATE.${stream}.>`,
    `$JS.API.CONSUMER.INFO.${stream}.*`,
    `$JS.API.CONSUMER.MSG.NEXT.${stream}.*`,
    `$JS.API.CONSUMER.DELETE.${stream}.*`,
  ];
}

/** A durable consumer's API subjects: who may make, remove or acknowledge on it. */
function consumerSubjects(names: BusNames, c: OwnedConsumer): { api: string[]; ack: string } {
  const stream = c.stream === 'events' ? names.eventsStream : `KV_${names.leasesBucket}`;
  const name = c.name ?? '*';
  return {
    api: [
      `$JS.API.CONSUMER.CREATE.${stream}.${name}`,
      `$JS.API.CONSUMER.CREATE.${stream}.${name}.>`,
      `$JS.API.CONSUMER.DURABLE.CREATE.${stream}.${name}`,
      `$JS.API.CONSUMER.DELETE.${stream}.${name}`,
    ],
    ack: `$JS.ACK.${stream}.${name}.>`,
  };
}

/** The durable consumers of every user, so that each is denied to everyone but its owner. */
function allOwnedConsumers(): Array<{ user: NatsUser; consumer: OwnedConsumer }> {
  return NATS_USERS.flatMap((user) => (natsUserEntry(user).consumers ?? []).map((consumer) => ({ user, consumer })));
}

/** The objects bucket's subjects a user may write, and those it may not within them. */
function objectWriteSubjects(names: BusNames, entry: NatsUserEntry): { allow: string[]; deny: string[] } {
  const key = (kind: string) => `$KV.${names.objectsBucket}.${kind}.>`;
  const w = entry.objectWrites;
  if (!w) throw new TypeError('a NATS user with the objects grant must name the kinds it writes (objectWrites)');
  if ('templatesAnd' in w)
    return {
      allow: [`$KV.${names.objectsBucket}.>`],
      deny: FLOTILLA_OBJECT_KINDS.filter((k) => !w.templatesAnd.includes(k)).map(key),
    };
  if (w.kinds === 'all') return { allow: [`$KV.${names.objectsBucket}.>`], deny: [] };
  return { allow: w.kinds.map(key), deny: [] };
}

interface Scope {
  /** One member cluster's agent: its grants narrowed to that cluster's keys and subjects. */
  memberCluster?: string;
}

function permissionsOf(userName: string, entry: NatsUserEntry, names: BusNames, scope: Scope = {}): SubjectPermissions {
  const kv = (bucket: string) => `$KV.${bucket}.>`;
  const cluster = scope.memberCluster;
  const publish: string[] = ['$JS.API.INFO', '$JS.FC.>'];
  const deny: string[] = [];
  for (const stream of prefixStreams(names)) publish.push(...readApi(stream));
  const updates = entry.administers ? prefixStreams(names) : entry.sizesMetricsStream ? [names.metricsStream] : [];
  if (entry.administers) for (const stream of prefixStreams(names)) publish.push(`$JS.API.STREAM.CREATE.${stream}`);
  for (const stream of updates) publish.push(`$JS.API.STREAM.UPDATE.${stream}`);
  const owned = new Set((entry.consumers ?? []).map((c) => `${c.stream}/${c.name ?? '*'}`));
  for (const c of entry.consumers ?? []) {
    const s = consumerSubjects(names, c);
    publish.push(...s.api, s.ack);
  }
  for (const { consumer } of allOwnedConsumers()) {
    if (owned.has(`${consumer.stream}/${consumer.name ?? '*'}`)) continue;
    const s = consumerSubjects(names, consumer);
    deny.push(s.ack);
    // A named durable cannot be re-created, reconfigured or removed by anyone else. Durables named per replica (the
    // scheduler's heartbeats) share their stream with others' short-lived consumers, which must stay removable.
    if (consumer.name) deny.push(...s.api);
  }
  const grants: Record<NatsPublishGrant, () => string[]> = {
    api: () => [`${names.apiRoot}.${escapeToken(userName)}.*`],
    events: () =>
      cluster === undefined
        ? [`${names.eventsRoot}.>`]
        : [
            `${names.eventsRoot}.Cluster._.${escapeToken(cluster)}.*`,
            `${names.eventsRoot}.*.*.*.${EventTypes.WorkloadStatusReported}`,
            `${names.eventsRoot}.*.*.*.ReconcileFailed`,
          ],
    objects: () => {
      const o = objectWriteSubjects(names, entry);
      deny.push(...o.deny);
      return o.allow;
    },
    status: () => [kv(names.statusBucket)],
    'kube-events': () => [kv(names.kubeEventsBucket)],
    trails: () => [kv(names.trailsBucket)],
    leases: () =>
      cluster === undefined ? [kv(names.leasesBucket)] : [`$KV.${names.leasesBucket}.Cluster._.${cluster}`],
    // A usage key is `<kind>.<namespace>.<binding>.<cluster>`, and a binding's name may hold dots: one pattern per
    // count of them, up to MEMBER_USAGE_NAME_DOTS (a deeper name's usage is refused, and the agent logs it).
    usage: () =>
      cluster === undefined
        ? [kv(names.usageBucket)]
        : Array.from(
            { length: MEMBER_USAGE_NAME_DOTS + 1 },
            (_, dots) => `$KV.${names.usageBucket}.*.*.${'*.'.repeat(dots + 1)}${cluster}`,
          ),
    metrics: () => [`${names.metricsRoot}.>`],
  };
  for (const g of entry.publish) publish.push(...grants[g]());
  const requests: Record<NatsSubscribeGrant, string> = { 'api-requests': `${names.apiRoot}.*.*` };
  const inbox = inboxPrefixOf(`${names.prefix}-${userName}`);
  return {
    publish: {
      allow: publish,
      // Never granted above; denied all the same so that a later grant's wildcard cannot let them through.
      deny: [
        '$JS.API.STREAM.DELETE.>',
        '$JS.API.STREAM.PURGE.>',
        '$JS.API.STREAM.MSG.DELETE.>',
        ...(entry.administers ? [] : ['$JS.API.STREAM.CREATE.>']),
        ...prefixStreams(names)
          .filter((stream) => !updates.includes(stream))
          .map((stream) => `$JS.API.STREAM.UPDATE.${stream}`),
        ...deny,
      ],
    },
    subscribe: {
      allow: [`${inbox}.>`, ...entry.subscribe.map((g) => requests[g])],
      // The default inbox is everyone's: a reply sent there could be read by any user.
      deny: ['_INBOX.>'],
    },
    allowResponses: entry.subscribe.includes('api-requests'),
  };
}

/**
 * Where a service's or API client's NATS user (`<prefix>-<user>`) may publish and subscribe, from the catalogue's
 * grants:
 * - JetStream: every user reads the prefix's streams (info, direct and stored gets, consumers of its own); only the
 *   administering identity (the gateway) creates and updates streams; no one deletes or purges a stream or a message.
 *   A durable consumer is its owner's alone to create, delete and acknowledge.
 * - Writes: each bucket and subject family by grant, the objects bucket by kind (FLOTILLA_OBJECT_KINDS).
 * - The API: only the gateway subscribes to it and answers (allow_responses); a caller publishes under its own name.
 * - Replies: each user's inbox prefix is its own (`_INBOX_<prefix>-<user>`), so no one reads another's answers.
 */
export function servicePermissions(user: NatsUser, names: BusNames): SubjectPermissions {
  return permissionsOf(user, natsUserEntry(user), names);
}

/** The permissions of one real member cluster's agent: that cluster's lease, usage, cluster events and samples. */
export function memberPermissions(cluster: string, names: BusNames): SubjectPermissions {
  return permissionsOf(memberNatsUser(cluster), MEMBER_NATS, names, { memberCluster: cluster });
}

export interface NatsAuthorizationOptions {
  /** Real member clusters, each given a user of its own (`<prefix>-member-<cluster>`). */
  memberClusters?: readonly string[];
}

/** The nats-server `authorization { users: [...] }` block giving each service's user its permissions. */
export function natsAuthorization(
  names: BusNames,
  passwordOf: (user: string) => string,
  opts: NatsAuthorizationOptions = {},
): string {
  const list = (subjects: string[]) => `[${subjects.map((s) => JSON.stringify(s)).join(', ')}]`;
  const entry = (user: string, p: SubjectPermissions) =>
    [
      `    { user: ${JSON.stringify(`${names.prefix}-${user}`)}, password: ${JSON.stringify(passwordOf(user))},`,
      '      permissions: {',
      `        publish: { allow: ${list(p.publish.allow)},`,
      `          deny: ${list(p.publish.deny)} },`,
      `        subscribe: { allow: ${list(p.subscribe.allow)}, deny: ${list(p.subscribe.deny)} }${p.allowResponses ? ',\n        allow_responses: true' : ''} } }`,
    ].join('\n');
  const users = [
    ...NATS_USERS.map((user) => entry(user, servicePermissions(user, names))),
    ...(opts.memberClusters ?? []).map((c) => entry(memberNatsUser(c), memberPermissions(c, names))),
  ];
  return `authorization {\n  users: [\n${users.join(',\n')}\n  ]\n}\n`;
}

/**
 * The grants of every user as a Markdown table, for deploy/README.md (test/deploy.test.ts holds the README to it):
 * what each may write, administer and own, in words, from the same catalogue as the configuration.
 */
export function natsGrantsTable(names: BusNames): string {
  const describeWrites = (entry: NatsUserEntry, member: boolean): string => {
    const parts: string[] = [];
    for (const g of entry.publish) {
      if (g === 'objects') {
        const w = entry.objectWrites;
        parts.push(
          !w
            ? 'objects'
            : 'templatesAnd' in w
              ? `objects: resource templates and ${w.templatesAnd.join(', ')}`
              : w.kinds === 'all'
                ? 'objects: every kind'
                : `objects: ${w.kinds.join(', ')}`,
        );
      } else if (member && g === 'leases') parts.push('its own lease');
      else if (member && g === 'usage') parts.push("its own cluster's usage");
      else if (member && g === 'events')
        parts.push("its own Cluster's events, WorkloadStatusReported, ReconcileFailed");
      else if (g === 'api') parts.push('API requests under its own name');
      else parts.push(g);
    }
    return parts.join('; ') || 'nothing';
  };
  const row = (user: string, entry: NatsUserEntry, member = false) => {
    const role = (API_CALLER_ROLES as Record<string, string | undefined>)[user];
    const admin = entry.administers
      ? 'creates and updates every stream'
      : entry.sizesMetricsStream
        ? `updates ${names.metricsStream}`
        : '-';
    const consumers = (entry.consumers ?? [])
      .map((c) => `${c.stream}: ${c.name ?? 'its per-replica heartbeats'}`)
      .join(', ');
    const api = entry.subscribe.includes('api-requests') ? 'answers' : role ? `calls as ${role}` : '-';
    return `| \`${names.prefix}-${user}\` | ${describeWrites(entry, member)} | ${admin} | ${consumers || '-'} | ${api} |`;
  };
  return [
    '| NATS user | may write | JetStream administration | durable consumers it owns | API |',
    '| --- | --- | --- | --- | --- |',
    ...NATS_USERS.map((u) => row(u, natsUserEntry(u))),
    row(memberNatsUser('<cluster>'), MEMBER_NATS, true),
  ].join('\n');
}
