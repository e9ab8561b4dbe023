import { eventTypeOf, EventTypes, type CloudEvent } from '@flotilla/bus';
import type { Condition } from '@flotilla/api';
import type { CronNextScheduledData } from '@flotilla/cron';
import { eventData, uncheckedPart } from '@flotilla/replica-trail';

type Data = Record<string, unknown>;

const isRecord = (v: unknown): v is Data => typeof v === 'object' && v !== null && !Array.isArray(v);
const scalar = (v: unknown) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** `cpu=8 memory=32Gi pods=110`: a ResourceList as one phrase. */
function resourceList(list: unknown): string {
  return isRecord(list)
    ? Object.entries(list)
        .map(([k, v]) => `${k}=${String(v)}`)
        .join(' ')
    : '';
}

function clusterStatusMessage(d: Data): string {
  const patch = isRecord(d.statusPatch) ? d.statusPatch : {};
  const parts: string[] = [];
  const ready = (Array.isArray(patch.conditions) ? (patch.conditions as Partial<Condition>[]) : []).find(
    (c) => c?.type === 'Ready',
  );
  if (ready) parts.push(`Ready=${ready.status}${ready.reason ? ` (${ready.reason})` : ''}`);
  const summary = isRecord(patch.resourceSummary) ? patch.resourceSummary : {};
  if (summary.allocatable) parts.push(`allocatable ${resourceList(summary.allocatable)}`);
  if (summary.allocated) parts.push(`allocated ${resourceList(summary.allocated)}`);
  if (typeof patch.kubernetesVersion === 'string') parts.push(`Kubernetes ${patch.kubernetesVersion}`);
  return parts.length ? parts.join(', ') : fallbackMessage(d);
}

function workloadStatusMessage(d: Data): string {
  // A member-agent speaking for several clusters reports them in one event.
  if (Array.isArray(d.reports)) return d.reports.map((r) => workloadClusterMessage(isRecord(r) ? r : {})).join('; ');
  return workloadClusterMessage(d);
}

function workloadClusterMessage(d: Data): string {
  const cluster = String(d.clusterName ?? '?');
  if (d.removed === true) return `removed from ${cluster}`;
  const health = typeof d.health === 'string' ? `, ${d.health}` : '';
  return `${d.applied === true ? 'applied' : 'not applied'} on ${cluster}${health}`;
}

function cronExecutedMessage(data: Data): string {
  const d = eventData('CronRuleExecuted', data);
  const applied = Object.entries(d)
    .filter(([k, v]) => k.startsWith('applied') && typeof v === 'number')
    .map(([k, v]) => {
      const field = k.slice('applied'.length);
      return `${field.charAt(0).toLowerCase()}${field.slice(1)}=${v}`;
    });
  return `rule ${String(d.ruleName)} executed${applied.length ? `: ${applied.join(', ')}` : ''}`;
}

function cronNextMessage(data: Data): string {
  const { rules } = eventData('CronNextScheduled', data);
  const listed = Array.isArray(rules)
    ? (rules as unknown[]).map((r) => uncheckedPart<CronNextScheduledData['rules'][number]>(r))
    : [];
  if (listed.length === 0) return 'no rule is due';
  return `next: ${listed.map((r) => `rule ${String(r.ruleName)} at ${String(r.nextExecutionTime ?? 'never')}`).join(', ')}`;
}

/** The scalar fields and the status fields an event sets: enough to say what happened for any type. */
function fallbackMessage(d: Data): string {
  const fields = Object.entries(d)
    .filter(([k, v]) => k !== 'kubeEvent' && scalar(v))
    .map(([k, v]) => `${k}=${String(v)}`);
  if (isRecord(d.statusPatch)) fields.push(`status ${Object.keys(d.statusPatch).join(', ')} updated`);
  return fields.join(', ');
}

const MESSAGES: Record<string, (d: Data) => string> = {
  [EventTypes.ClusterStatusReported]: clusterStatusMessage,
  [EventTypes.WorkloadStatusReported]: workloadStatusMessage,
  CronRuleExecuted: cronExecutedMessage,
  CronNextScheduled: cronNextMessage,
};

/**
 * One line saying what a domain event did. Events that carry a Kubernetes-style event (or a message) say it; the
 * others (status reports, cron executions, …) get a message made from their data, so that no event is blank.
 */
export function eventMessage(e: CloudEvent): string {
  const d: Data = isRecord(e.data) ? e.data : {};
  const kubeEvent = isRecord(d.kubeEvent) ? d.kubeEvent : undefined;
  if (typeof kubeEvent?.message === 'string' && kubeEvent.message) return kubeEvent.message;
  if (typeof d.message === 'string' && d.message) return d.message;
  const type = eventTypeOf(e);
  const message =
    type === EventTypes.ObjectDeleted
      ? `${e.flotillakind} ${e.flotillaname} deleted`
      : (MESSAGES[type] ?? fallbackMessage)(d);
  return message || type;
}
