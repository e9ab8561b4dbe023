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
  /** member-agent: each member cluster's API server probed, its readiness and lease kept (Karmada's cluster status). */
  memberClusterStatus: 'member-cluster-status',
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

/**
 * The kinds Flotilla itself defines in the objects bucket (each key's first token), as opposed to resource templates
 * (Deployments, StatefulSets and any other kind with `spec.replicas`), whose kinds are open-ended. A writer of templates
 * is granted the bucket less these, plus the ones it names. `ConsumerPosition` is the bus's reserved kind (an exclusive
 * event consumer's start position); `HorizontalPodAutoscaler` the member HPA templates the hpa-assigner keeps.
 */
export const FLOTILLA_OBJECT_KINDS = [
  'Cluster',
  'PropagationPolicy',
  'ClusterPropagationPolicy',
  'ResourceBinding',
  'ClusterResourceBinding',
  'FederatedHPA',
  'CronFederatedHPA',
  'WorkloadRebalancer',
  'EffectiveHorizontalPodAutoscaler',
  'HorizontalPodAutoscaler',
  'ConsumerPosition',
] as const;
export type FlotillaObjectKind = (typeof FLOTILLA_OBJECT_KINDS)[number];

/**
 * Which keys of the objects bucket a user with the `objects` grant may write, by kind: every kind (the gateway, which
 * admits what users apply), the named Flotilla kinds only, or resource templates of any kind plus the named ones (the
 * autoscalers, which write the `spec.replicas` of whatever they target).
 */
export type ObjectWrites =
  | { readonly kinds: 'all' }
  | { readonly kinds: readonly FlotillaObjectKind[] }
  | { readonly templatesAnd: readonly FlotillaObjectKind[] };

/**
 * A durable JetStream consumer a user owns: only its owner may create, delete or acknowledge on it. `name` unset: the
 * user owns every durable consumer it makes on that stream, and no one else makes any there (the scheduler's
 * replica heartbeats on the leases bucket, named per replica).
 */
export interface OwnedConsumer {
  readonly stream: 'events' | 'leases';
  readonly name?: string;
}

export interface NatsUserEntry {
  publish: readonly NatsPublishGrant[];
  subscribe: readonly NatsSubscribeGrant[];
  /** With the `objects` grant: the kinds it may write (default: none, which the grant then requires naming). */
  objectWrites?: ObjectWrites;
  /**
   * Creates and updates the streams and buckets (JetStream administration). Exactly one identity does: every other
   * user finds them made and may only read them, write its own subjects and run consumers.
   */
  administers?: boolean;
  /** The durable consumers it owns. */
  consumers?: readonly OwnedConsumer[];
  /** Raises the metric samples stream's max age to the longest history its predictions read (the hpa-assigner). */
  sizesMetricsStream?: boolean;
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
  // The front door admits every kind, and administers JetStream: it starts first, and it is the one process every
  // installation runs.
  gateway: {
    nats: {
      publish: ['events', 'objects'],
      subscribe: ['api-requests'],
      objectWrites: { kinds: 'all' },
      administers: true,
    },
    redis: false,
    queues: [],
    controllers: [],
    optional: false,
  },
  'status-writer': {
    nats: {
      publish: ['events', 'objects', 'status', 'kube-events', 'trails'],
      subscribe: [],
      objectWrites: { kinds: ['ConsumerPosition'] },
      consumers: [{ stream: 'events', name: 'status-writer' }],
    },
    redis: true,
    queues: [],
    controllers: [],
    optional: false,
  },
  // The simulated clusters' agent, which speaks for all of them; a real member cluster's agent has an identity of its
  // own (memberNatsUser), limited to its own cluster's lease, usage and samples. Neither writes objects.
  'member-agent': {
    nats: { publish: ['events', 'leases', 'usage', 'metrics'], subscribe: [] },
    redis: true,
    queues: [],
    controllers: [Controllers.kubeMember, Controllers.memberClusterStatus],
    optional: false,
  },
  'affinity-scheduler': {
    nats: {
      publish: ['events', 'objects'],
      subscribe: [],
      // Bindings, and Clusters' failover taints.
      objectWrites: { kinds: ['ResourceBinding', 'ClusterResourceBinding', 'Cluster'] },
      consumers: [{ stream: 'leases' }],
    },
    redis: true,
    queues: [],
    controllers: [Controllers.detection, Controllers.scheduling, Controllers.clusterTaints, Controllers.clusterHealth],
    optional: false,
  },
  'cron-scheduler': {
    // A rule's target: a FederatedHPA's min/max, or a template's replicas.
    nats: { publish: ['events', 'objects'], subscribe: [], objectWrites: { templatesAnd: ['FederatedHPA'] } },
    redis: true,
    queues: [Controllers.cron],
    controllers: [Controllers.cron],
    optional: false,
  },
  rebalancer: {
    nats: {
      publish: ['events', 'objects'],
      subscribe: [],
      // Bindings' reschedule triggers and fail-backs; finished WorkloadRebalancers past their TTL.
      objectWrites: { kinds: ['ResourceBinding', 'ClusterResourceBinding', 'WorkloadRebalancer'] },
    },
    redis: true,
    queues: [Controllers.rebalancer],
    controllers: [Controllers.rebalancer, Controllers.failBack],
    optional: false,
  },
  'hpa-assigner': {
    nats: {
      publish: ['events', 'objects'],
      subscribe: [],
      // Templates' replicas, the member HPA templates and their bindings.
      objectWrites: { templatesAnd: ['HorizontalPodAutoscaler', 'ResourceBinding'] },
      sizesMetricsStream: true,
    },
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

/**
 * The API's callers over NATS and the role each has, as the gateway's HTTP tokens have (`read`: get, list, events;
 * `admin`: everything). A caller names itself in the request subject, `<prefix>.api.<caller>.<op>`, and its NATS user
 * may publish under its own name only, so on a server with the shipped authorization the name is the user's.
 */
export type ApiRole = 'read' | 'admin';
export const API_CALLERS = { cli: 'admin', 'cli-read': 'read', 'kube-bridge': 'admin' } as const satisfies Record<
  string,
  ApiRole
>;
export type ApiCaller = keyof typeof API_CALLERS;
/** The caller a client names when it is not told (the command line's admin user). */
export const DEFAULT_API_CALLER: ApiCaller = 'cli';

/** `cli`: the command line and other API clients, which call the gateway and read, and write nothing directly. */
export const API_CLIENT_USER = 'cli';
/** `cli-read`: the same, with the read role: the gateway refuses it every write. */
export const API_READER_USER = 'cli-read';
export const API_CLIENT_NATS: NatsUserEntry = { publish: ['api'], subscribe: [] };

/** A NATS user: a service's, or the API clients'. */
export type NatsUser = ServiceName | typeof API_CLIENT_USER | typeof API_READER_USER;
export const NATS_USERS: readonly NatsUser[] = [...SERVICE_NAMES, API_CLIENT_USER, API_READER_USER];

export function natsUserEntry(user: NatsUser): NatsUserEntry {
  return user === API_CLIENT_USER || user === API_READER_USER ? API_CLIENT_NATS : SERVICE_CATALOGUE[user].nats;
}

/**
 * The NATS user of one real member cluster's agent (`<prefix>-member-<cluster>`, from `memberNatsUser`): it renews
 * that cluster's lease and writes that cluster's usage and events, nothing else.
 */
export const MEMBER_NATS: NatsUserEntry = { publish: ['events', 'leases', 'usage', 'metrics'], subscribe: [] };
export function memberNatsUser(cluster: string): string {
  return `member-${cluster}`;
}

/** The services that use Redis, with their queues. */
export function redisServices(): Array<{ service: ServiceName; queues: readonly ControllerName[] }> {
  return SERVICE_NAMES.filter((s) => SERVICE_CATALOGUE[s].redis).map((service) => ({
    service,
    queues: SERVICE_CATALOGUE[service].queues,
  }));
}
