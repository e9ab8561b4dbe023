import { perRegistry } from '@flotilla/runtime';
import { Counter, type Registry } from 'prom-client';

/**
 * What the kube driver counts of its conversation with the member API server: the writes it sent
 * (`flotilla_kube_member_writes_total{cluster,action}`, action apply or delete), and how many bindings its passes
 * looked at (`flotilla_kube_member_binding_looks_total{pass}`, every cluster of the process together: the work a pass does
 * is per binding it looks at, so this over the bindings is the member side's cost a binding as a count), and what
 * marked the bindings a pass looks at (`flotilla_kube_member_binding_wakes_total{reason}`). Its
 * informers count their lists, errors and expiries themselves (@flotilla/kube-client's kubeInformerMetrics).
 */
export const kubeDriverMetrics = perRegistry((registry: Registry) => ({
  writes: new Counter({
    name: 'flotilla_kube_member_writes_total',
    help: 'Writes the kube driver sent to its member cluster (server-side applies and deletes)',
    labelNames: ['cluster', 'action'] as const,
    registers: [registry],
  }),
  bindingLooks: new Counter({
    name: 'flotilla_kube_member_binding_looks_total',
    help: "Bindings the kube driver's passes looked at (desired objects, plan, observation and report each), all clusters, by why the pass looked at them (PassReason)",
    labelNames: ['pass'] as const,
    registers: [registry],
  }),
  bindingWakes: new Counter({
    name: 'flotilla_kube_member_binding_wakes_total',
    help: 'Bindings the kube driver marked for its next pass to look at, all clusters, by what changed (WakeReason): a mark already waiting counts once',
    labelNames: ['reason'] as const,
    registers: [registry],
  }),
}));
