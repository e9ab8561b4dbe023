import { perRegistry } from '@flotilla/runtime';
import { Counter, type Registry } from 'prom-client';

/**
 * What the kube driver counts of its conversation with the member API server: the writes it sent
 * (`flotilla_kube_member_writes_total{cluster,action}`, action apply or delete) and the watches the server refused
 * with 410 Gone, after which the informer lists again (`flotilla_kube_watch_expired_total{cluster,resource}`).
 */
export const kubeDriverMetrics = perRegistry((registry: Registry) => ({
  writes: new Counter({
    name: 'flotilla_kube_member_writes_total',
    help: 'Writes the kube driver sent to its member cluster (server-side applies and deletes)',
    labelNames: ['cluster', 'action'] as const,
    registers: [registry],
  }),
  watchExpired: new Counter({
    name: 'flotilla_kube_watch_expired_total',
    help: 'Watches the member API server refused with 410 Gone (resourceVersion compacted); each is followed by a list',
    labelNames: ['cluster', 'resource'] as const,
    registers: [registry],
  }),
}));
