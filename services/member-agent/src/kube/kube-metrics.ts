import { perRegistry } from '@flotilla/runtime';
import { Counter, type Registry } from 'prom-client';

/**
 * What the kube driver counts of its conversation with the member API server: the writes it sent
 * (`flotilla_kube_member_writes_total{cluster,action}`, action apply or delete). Its informers count their lists,
 * errors and expiries themselves (@flotilla/kube-client's kubeInformerMetrics).
 */
export const kubeDriverMetrics = perRegistry((registry: Registry) => ({
  writes: new Counter({
    name: 'flotilla_kube_member_writes_total',
    help: 'Writes the kube driver sent to its member cluster (server-side applies and deletes)',
    labelNames: ['cluster', 'action'] as const,
    registers: [registry],
  }),
}));
