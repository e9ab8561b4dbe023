/**
 * Every NATS and Redis name Flotilla uses derives from one prefix, so that several installations (or test runs)
 * share a server without seeing each other.
 */
export interface BusNames {
  readonly prefix: string;
  /** JetStream stream holding every domain event. */
  readonly eventsStream: string;
  /** Subject root of domain events: `<prefix>.events`. */
  readonly eventsRoot: string;
  /** KV bucket of objects (metadata + spec); its revision is the object's resourceVersion. */
  readonly objectsBucket: string;
  /** KV bucket of status, written only by the status writer. */
  readonly statusBucket: string;
  /** KV bucket of Kubernetes-style events (type, reason, message, count, first/last time). */
  readonly kubeEventsBucket: string;
  /**
   * KV bucket of replica-trail projections (packages/replica-trail's fold of a workload's decisions, kept by the
   * status writer so that `flotilla explain replicas` reads what is new only); derived, rebuilt from the events.
   */
  readonly trailsBucket: string;
  /**
   * KV bucket of member-agent leases, one per cluster (`Cluster._.<name>`: holder and renew time), renewed while the
   * agent posts the cluster's status; kept apart from status so that a renewal writes nothing anyone mirrors.
   */
  readonly leasesBucket: string;
  /**
   * KV bucket of each member workload's latest CPU usage, one key per binding and cluster
   * (`<kind>.<namespace>.<binding>.<cluster>`, see memberUsageRef), written by the member-agents and read by the
   * hpa-assigner. Kept apart from status, which the kube-bridge mirrors to the host: usage moves all the time.
   */
  readonly usageBucket: string;
  /** Subject root of the gateway's request-reply API: `<prefix>.api`. */
  readonly apiRoot: string;
  /** JetStream stream of workload metric samples (the embedded metric history). */
  readonly metricsStream: string;
  /** Subject root of metric samples: `<prefix>.metrics`. */
  readonly metricsRoot: string;
}

const PREFIX = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

export class InvalidPrefixError extends Error {
  constructor(readonly prefix: string) {
    super(
      `FLOTILLA_PREFIX "${prefix}" is invalid: use 1-63 characters of a-z, 0-9 and "-", not starting or ending with "-"`,
    );
    this.name = 'InvalidPrefixError';
  }
}

export function busNames(prefix = 'flotilla'): BusNames {
  if (!PREFIX.test(prefix)) throw new InvalidPrefixError(prefix);
  const upper = prefix.toUpperCase().replaceAll('-', '_');
  return {
    prefix,
    eventsStream: `${upper}_EVENTS`,
    eventsRoot: `${prefix}.events`,
    objectsBucket: `${prefix}-objects`,
    statusBucket: `${prefix}-status`,
    kubeEventsBucket: `${prefix}-kube-events`,
    trailsBucket: `${prefix}-trails`,
    leasesBucket: `${prefix}-leases`,
    usageBucket: `${prefix}-usage`,
    apiRoot: `${prefix}.api`,
    metricsStream: `${upper}_METRICS`,
    metricsRoot: `${prefix}.metrics`,
  };
}
