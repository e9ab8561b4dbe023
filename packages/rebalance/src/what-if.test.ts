import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseManifests } from '@flotilla/api';
import { describe, expect, it } from 'vitest';
import { whatIfRebalance } from './what-if.js';

const example = parseManifests(
  readFileSync(fileURLToPath(new URL('./testdata/proposal-example.yaml', import.meta.url)), 'utf8'),
);

describe('whatIfRebalance', () => {
  it("gives the proposal's step 3 status, the one binding written, and the TTL wait", () => {
    const r = whatIfRebalance(example, new Date('2024-04-17T15:04:06Z'));
    expect(Object.keys(r)).toEqual(['apiVersion', 'kind', 'items', 'deleted', 'requeueAfterSeconds']);
    expect([r.apiVersion, r.kind, r.deleted, r.requeueAfterSeconds]).toEqual(['v1', 'List', false, 60]);
    const [rb, ...written] = r.items as Array<{
      kind: string;
      metadata: Record<string, unknown>;
      spec: Record<string, unknown>;
      status?: unknown;
    }>;
    expect(rb!.metadata).toEqual({
      name: 'demo',
      creationTimestamp: '2024-04-17T15:04:05Z',
      generation: 1,
      resourceVersion: '42',
    });
    expect(rb!.status).toEqual({
      observedWorkloads: [
        {
          workload: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'demo-deploy-1', namespace: 'default' },
          result: 'Successful',
        },
        {
          workload: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'demo-deploy-2', namespace: 'default' },
          result: 'Failed',
          reason: 'ReferencedBindingNotFound',
        },
        {
          workload: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'demo-role' },
          result: 'Successful',
        },
      ],
      observedGeneration: 1,
      finishTime: '2024-04-17T15:04:06Z',
    });
    // demo-role's binding already carries the creationTimestamp: not written
    expect(written.map((b) => [b.kind, b.metadata.name, b.metadata.generation, b.spec.rescheduleTriggeredAt])).toEqual([
      ['ResourceBinding', 'demo-deploy-1-deployment', 4, '2024-04-17T15:04:05Z'],
    ]);
  });

  it('run again on its own output at the TTL: deleted, nothing written', () => {
    const first = whatIfRebalance(example, new Date('2024-04-17T15:04:06Z'));
    const bindings = example
      .slice(1)
      .map((b) =>
        (b as { metadata: { name: string } }).metadata.name === 'demo-deploy-1-deployment' ? first.items[1] : b,
      );
    const r = whatIfRebalance([first.items[0], ...bindings], new Date('2024-04-17T15:05:06Z'));
    expect([r.deleted, r.requeueAfterSeconds, r.items.length]).toEqual([true, null, 1]);
  });

  it('refuses input without exactly one WorkloadRebalancer, naming it', () => {
    expect(() => whatIfRebalance(example.slice(1), new Date())).toThrow(
      /objects: expected exactly one WorkloadRebalancer, found 0/,
    );
    expect(() => whatIfRebalance([example[0], example[0]], new Date())).toThrow(/found 2/);
  });
});
