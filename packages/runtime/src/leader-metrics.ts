import { Gauge } from 'prom-client';
import { perRegistry } from './per-registry.js';

/**
 * `flotilla_leader`: 1 while this replica holds the lease and its work runs, 0 otherwise (Karmada and KEDA export
 * leader_election_master_status the same way). The service label comes from the registry's default labels, so
 * `max by (service) (flotilla_leader) < 1` finds a service with no leader.
 */
export const leaderGauge = perRegistry((registry) => {
  const gauge = new Gauge({
    name: 'flotilla_leader',
    help: '1 while this replica holds the leader lease and runs its work',
    registers: [registry],
  });
  gauge.set(0);
  return gauge;
});
