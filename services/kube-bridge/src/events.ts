import { createHash } from 'node:crypto';
import { Controllers } from '@flotilla/catalogue';
import type { KubeEvent } from '@flotilla/store';
import type { AnyObject } from './content.js';
import type { HostEvent } from './host-api.js';

/** The component events carry as their source (Karmada's ControllerName). */
export const CONTROLLER_NAME = Controllers.kubeBridge;

/** A stable event name: the object's name and a digest of what identifies the event, so a retried write is one event. */
export function hostEventName(objectName: string, identity: string): string {
  return `${objectName}.${createHash('sha256').update(identity).digest('hex').slice(0, 16)}`;
}

/**
 * The core/v1 Event on the host object for one of Flotilla's Kubernetes-style events (the status writer's record of
 * a decision): same type, reason, message, count and times, attached to the host object's uid so that
 * `kubectl describe` lists it. `eventKey` is the event's key in Flotilla's events bucket.
 */
export function mirroredEvent(
  event: KubeEvent,
  eventKey: string,
  hostObject: AnyObject,
  apiVersion: string,
  instance: string,
): HostEvent {
  const meta = hostObject.metadata ?? {};
  return {
    metadata: { name: hostEventName(meta.name ?? '', eventKey), namespace: meta.namespace ?? 'default' },
    involvedObject: {
      apiVersion,
      kind: event.involvedObject.kind,
      name: meta.name ?? '',
      ...(meta.namespace ? { namespace: meta.namespace } : {}),
      ...(meta.uid ? { uid: meta.uid } : {}),
    },
    type: event.type,
    reason: event.reason,
    message: event.message,
    count: event.count,
    firstTimestamp: event.firstTimestamp,
    lastTimestamp: event.lastTimestamp,
    source: { component: event.source.component },
    reportingComponent: event.source.component,
    reportingInstance: instance,
  };
}

/** The bridge's own event about a host object (a conflict, a refusal). */
export function bridgeEvent(
  hostObject: AnyObject,
  apiVersion: string,
  kind: string,
  e: { type: 'Normal' | 'Warning'; reason: string; message: string; at: string; instance: string },
): HostEvent {
  const meta = hostObject.metadata ?? {};
  return {
    metadata: {
      name: hostEventName(meta.name ?? '', `${meta.uid}\n${e.reason}\n${e.message}`),
      namespace: meta.namespace ?? 'default',
    },
    involvedObject: {
      apiVersion,
      kind,
      name: meta.name ?? '',
      ...(meta.namespace ? { namespace: meta.namespace } : {}),
      ...(meta.uid ? { uid: meta.uid } : {}),
    },
    type: e.type,
    reason: e.reason,
    message: e.message,
    count: 1,
    firstTimestamp: e.at,
    lastTimestamp: e.at,
    source: { component: CONTROLLER_NAME },
    reportingComponent: CONTROLLER_NAME,
    reportingInstance: e.instance,
  };
}
