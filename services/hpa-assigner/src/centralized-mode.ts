import { formatTime, type FederatedHPA } from '@flotilla/api';
import { decideCentralized } from '@flotilla/assignment';
import type { ReconcileResult } from '@flotilla/controller';
import { emptyHistory, type AutoscalerHistory } from '@flotilla/hpa-math';
import type { FederatedHpaRescaledData } from '@flotilla/replica-trail';
import type { ObjectRef } from '@flotilla/store';
import { FederatedHpaEventTypes } from './fhpa-events.js';
import type { FederatedHpaPass } from './pass.js';
import { bindingNameOf } from './member-objects.js';

export interface CentralizedModeOptions {
  syncPeriodMs: number;
  downscaleStabilizationWindowSeconds?: number;
}

/**
 * Karmada's shipped FederatedHPA (a FederatedHPA without `spec.federatedHPAAssignment`): once per sync period, one
 * replica count for the resource template from the member clusters' pods (`decideCentralized`), written to the
 * template's spec.replicas. The Kubernetes HPA's in-memory state (recommendations, scale events) is kept per object,
 * as the HPA controller keeps it.
 */
export class CentralizedMode {
  private readonly histories = new Map<string, { history: AutoscalerHistory; lastSyncMs?: number }>();

  constructor(
    private readonly pass: FederatedHpaPass,
    private readonly o: CentralizedModeOptions,
  ) {}

  forget(key: string): void {
    this.histories.delete(key);
  }

  async reconcile(key: string, fhpa: FederatedHPA): Promise<ReconcileResult> {
    const { store, clock } = this.pass;
    const period = this.o.syncPeriodMs;
    const nowMs = clock.now().getTime();
    const state = this.histories.get(key) ?? { history: emptyHistory() };
    if (state.lastSyncMs !== undefined && nowMs - state.lastSyncMs < period) {
      return { requeueAfterMs: period - (nowMs - state.lastSyncMs) };
    }
    const spec = fhpa.spec!;
    const ns = fhpa.metadata.namespace;
    const ref: ObjectRef = { kind: spec.scaleTargetRef.kind, namespace: ns, name: spec.scaleTargetRef.name };
    const template = await store.get(ref);
    if (!template) {
      await this.pass.observe(fhpa, FederatedHpaEventTypes.FederatedHPAObserved, {
        conditions: [
          {
            type: 'AbleToScale',
            status: 'False',
            reason: 'FailedGetScale',
            message: `${ref.kind} ${ref.name} not found`,
          },
        ],
      });
      return;
    }
    const templateReplicas = ((template.spec as { replicas?: number } | undefined)?.replicas ?? 1) as number;
    const { members } = this.pass.membersOf(ns, bindingNameOf(ref.name, ref.kind));
    const d = decideCentralized({
      spec,
      templateReplicas,
      members,
      history: state.history,
      nowMs,
      ...(this.o.downscaleStabilizationWindowSeconds !== undefined
        ? { downscaleStabilizationWindowSeconds: this.o.downscaleStabilizationWindowSeconds }
        : {}),
    });
    if (d.rescale) {
      await store.update(ref, (cur) => ({
        ...cur,
        spec: { ...(cur.spec as object), replicas: d.desiredReplicas },
      }));
    }
    this.histories.set(key, { history: d.history, lastSyncMs: nowMs });
    const patch = {
      observedGeneration: fhpa.metadata.generation ?? 0,
      currentReplicas: templateReplicas,
      desiredReplicas: d.desiredReplicas,
      ...(d.utilization !== undefined
        ? {
            currentMetrics: [
              { type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: d.utilization } } },
            ],
          }
        : {}),
      conditions: d.conditions,
      ...(d.rescale ? { lastScaleTime: formatTime(clock.now()) } : {}),
    };
    // What the replica trail reads of a FederatedHPARescaled (packages/replica-trail's catalogue).
    const rescaled: FederatedHpaRescaledData['statusPatch'] = patch;
    const type = d.rescale ? FederatedHpaEventTypes.FederatedHPARescaled : FederatedHpaEventTypes.FederatedHPAObserved;
    const message = d.rescale
      ? `New size: ${d.desiredReplicas}; reason: ${spec.metrics?.length ? 'cpu resource utilization (percentage of request)' : 'min/max'} (calibration ${d.calibration ?? 'n/a'})`
      : undefined;
    await this.pass.observe(fhpa, type, rescaled, message ? { reason: 'SuccessfulRescale', message } : undefined);
    return { requeueAfterMs: period };
  }
}
