/**
 * The one catalogue of Flotilla's deployables. The NATS permissions, the Redis ACL rules, the launcher, the
 * Kubernetes manifests' checks and every service's main read their names, users, subjects, queues and controller
 * names from here, so that adding a service or a controller is one edit.
 */

/** The controllers, by the name their metrics (`controller` label), logs and BullMQ queues carry. */
export const Controllers = {
  /** affinity-scheduler: resource templates and policies into bindings (Karmada's detector). */
  detection: 'detection',
  /** affinity-scheduler: bindings onto clusters. */
  scheduling: 'scheduling',
  /** affinity-scheduler: NotReady clusters tainted, for failover. */
  clusterTaints: 'cluster-taints',
  /** affinity-scheduler: a cluster whose agent stopped renewing its lease set Ready=Unknown (Karmada's cluster controller). */
  clusterHealth: 'cluster-health',
  /** cron-scheduler: CronFederatedHPA rules and EffectiveHPA cron windows. */
  cron: 'cron-scheduler',
  /** rebalancer: WorkloadRebalancers. */
  rebalancer: 'rebalancer',
  /** rebalancer: opt-in fail-back of bindings to an earlier affinity group. */
  failBack: 'fail-back',
  /** hpa-assigner: FederatedHPAs, both modes. */
  federatedHpa: 'hpa-assigner',
  /** hpa-assigner: Crane's EffectiveHPAs. */
  effectiveHpa: 'effective-hpa',
  /** hpa-assigner: member HPAs Flotilla did not create, aimed at what an autoscaler scales (owner conflicts). */
  replicaOwners: 'replica-owners',
  /** member-agent (kube driver): what the bindings assign to its real member cluster applied there and reported. */
  kubeMember: 'kube-member',
  /** kube-bridge: a host API server's objects mirrored in, status written back. */
  kubeBridge: 'kube-bridge',
  /** kube-bridge: Flotilla's Kubernetes-style events written to the host as core/v1 Events. */
  kubeBridgeEvents: 'kube-bridge-events',
} as const;
export type ControllerName = (typeof Controllers)[keyof typeof Controllers];

/**
 * Subject families a NATS user may publish to (the bus maps each to its subjects under the prefix): `api` the API's
 * request subjects, `events` the domain events, `objects`/`status`/`kube-events`/`trails`/`leases`/`usage` the KV buckets, `metrics` the
 * metric samples.
 */
export type NatsPublishGrant =
  | 'api'
  | 'events'
  | 'objects'
  | 'status'
  | 'kube-events'
  | 'trails'
  | 'leases'
  | 'usage'
  | 'metrics';
/** Subject families a NATS user may subscribe to besides its inboxes: `api-requests` answers the API. */
export type NatsSubscribeGrant = 'api-requests';

export interface NatsUserEntry {
  publish: readonly NatsPublishGrant[];
  subscribe: readonly NatsSubscribeGrant[];
}

export interface ServiceEntry {
  /** NATS user `<prefix>-<service>` and what it may do. */
  nats: NatsUserEntry;
  /** Whether it uses Redis (leader leases, BullMQ); its Redis user is `<prefix>-<service>` too. */
  redis: boolean;
  /** BullMQ queues it runs, each `<prefix>:<queue>:*` in Redis (named after the controller that runs it). */
  queues: readonly ControllerName[];
  /** The controllers it runs. */
  controllers: readonly ControllerName[];
  /** Started by the local suite unless asked for by name (the kube-bridge needs a host API server). */
  optional: boolean;
}

/** Every deployable, in the order the local suite starts them. */
export const SERVICE_CATALOGUE = {
  gateway: {
    nats: { publish: ['events', 'objects'], subscribe: ['api-requests'] },
    redis: false,
    queues: [],
    controllers: [],
    optional: false,
  },
  'status-writer': {
    nats: { publish: ['events', 'status', 'kube-events', 'trails'], subscribe: [] },
    redis: true,
    queues: [],
    controllers: [],
    optional: false,
  },
  'member-agent': {
    nats: { publish: ['events', 'objects', 'leases', 'usage', 'metrics'], subscribe: [] },
    redis: true,
    queues: [],
    controllers: [Controllers.kubeMember],
    optional: false,
  },
  'affinity-scheduler': {
    nats: { publish: ['events', 'objects'], subscribe: [] },
    redis: true,
    queues: [],
    controllers: [Controllers.detection, Controllers.scheduling, Controllers.clusterTaints, Controllers.clusterHealth],
    optional: false,
  },
  'cron-scheduler': {
    nats: { publish: ['events', 'objects'], subscribe: [] },
    redis: true,
    queues: [Controllers.cron],
    controllers: [Controllers.cron],
    optional: false,
  },
  rebalancer: {
    nats: { publish: ['events', 'objects'], subscribe: [] },
    redis: true,
    queues: [Controllers.rebalancer],
    controllers: [Controllers.rebalancer, Controllers.failBack],
    optional: false,
  },
  'hpa-assigner': {
    nats: { publish: ['events', 'objects'], subscribe: [] },
    redis: true,
    queues: [Controllers.federatedHpa, Controllers.effectiveHpa],
    controllers: [Controllers.federatedHpa, Controllers.effectiveHpa, Controllers.replicaOwners],
    optional: false,
  },
  // Every write goes through the API (admission runs on what it mirrors in); its queue holds its sync records. Its
  // events are the controller kit's Warning events on a failed mirror, as every controller records them.
  'kube-bridge': {
    nats: { publish: ['api', 'events'], subscribe: [] },
    redis: true,
    queues: [Controllers.kubeBridge],
    controllers: [Controllers.kubeBridge, Controllers.kubeBridgeEvents],
    optional: true,
  },
} as const satisfies Record<string, ServiceEntry>;

export type ServiceName = keyof typeof SERVICE_CATALOGUE;

/** The deployables, in start order. */
export const SERVICE_NAMES = Object.keys(SERVICE_CATALOGUE) as ServiceName[];

/** `cli`: the command line and other API clients, which call the gateway and read, and write nothing directly. */
export const API_CLIENT_USER = 'cli';
export const API_CLIENT_NATS: NatsUserEntry = { publish: ['api'], subscribe: [] };

/** A NATS user: a service's, or the API clients'. */
export type NatsUser = ServiceName | typeof API_CLIENT_USER;
export const NATS_USERS: readonly NatsUser[] = [...SERVICE_NAMES, API_CLIENT_USER];

export function natsUserEntry(user: NatsUser): NatsUserEntry {
  return user === API_CLIENT_USER ? API_CLIENT_NATS : SERVICE_CATALOGUE[user].nats;
}

/** The services that use Redis, with their queues. */
export function redisServices(): Array<{ service: ServiceName; queues: readonly ControllerName[] }> {
  return SERVICE_NAMES.filter((s) => SERVICE_CATALOGUE[s].redis).map((service) => ({
    service,
    queues: SERVICE_CATALOGUE[service].queues,
  }));
}
