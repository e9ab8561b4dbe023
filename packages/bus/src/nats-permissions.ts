import {
  NATS_USERS,
  natsUserEntry,
  type NatsPublishGrant,
  type NatsSubscribeGrant,
  type NatsUser,
} from '@flotilla/catalogue';
import type { BusNames } from './names.js';

export interface SubjectPermissions {
  publish: { allow: string[]; deny: string[] };
  subscribe: { allow: string[] };
}

/**
 * Where each service may publish and subscribe on NATS, from the catalogue's grants. What sets services apart: only
 * the gateway answers the API (`<prefix>.api.*`), only the status writer writes status, Kubernetes events and the
 * replica-trail projections, only the member agent records metric samples and usage and renews cluster leases, and the status writer never writes
 * objects. Every service reaches JetStream's API because each one provisions the streams and buckets it finds
 * missing; none may delete or purge a stream. The `cli` user may call the API and read, and write nothing directly; so may the kube-bridge, whose writes
 * all go through the API (admission runs on what it mirrors in).
 */
export function servicePermissions(service: NatsUser, names: BusNames): SubjectPermissions {
  const kv = (bucket: string) => `$KV.${bucket}.>`;
  const subjects: Record<NatsPublishGrant, string> = {
    api: `${names.apiRoot}.>`,
    events: `${names.eventsRoot}.>`,
    objects: kv(names.objectsBucket),
    status: kv(names.statusBucket),
    'kube-events': kv(names.kubeEventsBucket),
    trails: kv(names.trailsBucket),
    leases: kv(names.leasesBucket),
    usage: kv(names.usageBucket),
    metrics: `${names.metricsRoot}.>`,
  };
  const grants = natsUserEntry(service);
  const publish = ['$JS.API.>', '$JS.ACK.>', '$JS.FC.>', '_INBOX.>', ...grants.publish.map((g) => subjects[g])];
  const requests: Record<NatsSubscribeGrant, string> = { 'api-requests': `${names.apiRoot}.*` };
  const subscribe = ['_INBOX.>', ...grants.subscribe.map((g) => requests[g])];
  return {
    publish: { allow: publish, deny: ['$JS.API.STREAM.DELETE.>', '$JS.API.STREAM.PURGE.>'] },
    subscribe: { allow: subscribe },
  };
}

/** The nats-server `authorization { users: [...] }` block giving each service's user its permissions. */
export function natsAuthorization(names: BusNames, passwordOf: (user: NatsUser) => string): string {
  const users = NATS_USERS.map((service) => {
    const p = servicePermissions(service, names);
    const list = (subjects: string[]) => `[${subjects.map((s) => JSON.stringify(s)).join(', ')}]`;
    return [
      `    { user: ${JSON.stringify(`${names.prefix}-${service}`)}, password: ${JSON.stringify(passwordOf(service))},`,
      '      permissions: {',
      `        publish: { allow: ${list(p.publish.allow)}, deny: ${list(p.publish.deny)} },`,
      `        subscribe: { allow: ${list(p.subscribe.allow)} } } }`,
    ].join('\n');
  });
  return `authorization {\n  users: [\n${users.join(',\n')}\n  ]\n}\n`;
}
