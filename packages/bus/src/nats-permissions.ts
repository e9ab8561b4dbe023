import type { BusNames } from './names.js';

/** The deployables (as the launcher's suite lists them, which this layer may not import). */
export const FLOTILLA_SERVICES = [
  'gateway',
  'status-writer',
  'member-agent',
  'affinity-scheduler',
  'cron-scheduler',
  'rebalancer',
  'hpa-assigner',
  'kube-bridge',
] as const;
export type ServiceName = (typeof FLOTILLA_SERVICES)[number];
/** The services, and `cli`: the command line and other API clients, which call the gateway and read. */
export type NatsUser = ServiceName | 'cli';
export const NATS_USERS: readonly NatsUser[] = [...FLOTILLA_SERVICES, 'cli'];

export interface SubjectPermissions {
  publish: { allow: string[]; deny: string[] };
  subscribe: { allow: string[] };
}

/**
 * Where each service may publish and subscribe on NATS. What sets services apart: only the gateway answers the API
 * (`<prefix>.api.*`), only the status writer writes status and Kubernetes events, only the member agent records
 * metric samples, and the status writer never writes objects. Every service reaches JetStream's API because each
 * one provisions the streams and buckets it finds missing; none may delete or purge a stream. The `cli` user may
 * call the API and read, and write nothing directly; so may the kube-bridge, whose writes all go through the API
 * (admission runs on what it mirrors in).
 */
export function servicePermissions(service: NatsUser, names: BusNames): SubjectPermissions {
  const kv = (bucket: string) => `$KV.${bucket}.>`;
  const apiClient = service === 'cli' || service === 'kube-bridge';
  const publish = [
    '$JS.API.>',
    '$JS.ACK.>',
    '$JS.FC.>',
    '_INBOX.>',
    ...(apiClient ? [`${names.apiRoot}.>`] : [`${names.eventsRoot}.>`]),
    ...(service === 'status-writer' ? [kv(names.statusBucket), kv(names.kubeEventsBucket)] : []),
    ...(service !== 'status-writer' && !apiClient ? [kv(names.objectsBucket)] : []),
    ...(service === 'member-agent' ? [`${names.metricsRoot}.>`] : []),
  ];
  const subscribe = ['_INBOX.>', ...(service === 'gateway' ? [`${names.apiRoot}.*`] : [])];
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
