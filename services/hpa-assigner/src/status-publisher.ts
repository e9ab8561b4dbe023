import type { ObjectMeta } from '@flotilla/api';
import { createHash } from 'node:crypto';
import { cloudEvent, type CloudEvent } from '@flotilla/bus';
import type { Clock } from '@flotilla/runtime';
import { objectKey } from '@flotilla/store';

/** The object a status patch is about: what the event names, and what makes its id unique. */
export interface StatusSubject {
  metadata: Partial<Pick<ObjectMeta, 'namespace' | 'name' | 'uid' | 'generation'>>;
}

/** A Kubernetes-style event to record with the status (always Normal: failures are the kit's Warning events). */
export interface StatusKubeEvent {
  reason: string;
  message: string;
}

export interface StatusPublisherOptions {
  /** The kind every subject is of (`FederatedHPA`, `EffectiveHorizontalPodAutoscaler`). */
  kind: string;
  /** The events' id prefix (`fhpa`, `ehpa`), so two controllers' ids never meet. */
  idPrefix: string;
  /** The events' source: the controller's name. */
  source: string;
  /**
   * Status fields that change on a pass without news (times): left out when deciding whether a patch is new, so
   * that an otherwise unchanged pass publishes nothing.
   */
  volatileFields: readonly string[];
  publish(e: CloudEvent): Promise<unknown>;
  clock: Clock;
}

/**
 * How the hpa-assigner's controllers publish status: a patch goes out when it differs from the last one this leader
 * published for the object (always when it carries a Kubernetes event), as a domain event whose id is derived
 * from the object's uid, generation and the patch, so a retried publish is deduplicated by the stream.
 */
export class StatusPublisher {
  /** A digest of the last patch published per object key. */
  private readonly published = new Map<string, string>();

  constructor(private readonly o: StatusPublisherOptions) {}

  async observe(
    subject: StatusSubject,
    type: string,
    /** The status fields to set (any status type: the patch is only serialised). */
    statusPatch: object,
    kubeEvent?: StatusKubeEvent,
    extra: Record<string, unknown> = {},
  ): Promise<void> {
    const { metadata } = subject;
    const key = objectKey({ kind: this.o.kind, namespace: metadata.namespace, name: metadata.name! });
    const comparable = Object.fromEntries(
      Object.entries(statusPatch).filter(([field]) => !this.o.volatileFields.includes(field)),
    );
    const seen = sha256(JSON.stringify(comparable)).digest('base64url').slice(0, 22);
    if (!kubeEvent && this.published.get(key) === seen) return;
    const digest = sha256(JSON.stringify({ statusPatch, extra })).digest('hex').slice(0, 16);
    await this.o.publish(
      cloudEvent({
        id: `${this.o.idPrefix}.${metadata.uid}.${type}.${metadata.generation ?? 0}.${digest}`,
        source: this.o.source,
        type,
        kind: this.o.kind,
        namespace: metadata.namespace,
        name: metadata.name!,
        time: this.o.clock.now(),
        data: { ...extra, statusPatch, ...(kubeEvent ? { kubeEvent: { type: 'Normal', ...kubeEvent } } : {}) },
      }),
    );
    this.published.set(key, seen);
  }

  /** The object is gone: its next incarnation publishes from scratch. */
  forget(key: string): void {
    this.published.delete(key);
  }
}

const sha256 = (text: string) => createHash('sha256').update(text);
