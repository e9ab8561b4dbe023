import { describe, expect, it } from 'vitest';
import { selectedKinds, selectWorkloads, type SelectableTemplate } from './selectors.js';

describe('selectWorkloads (spec.workloadSelectors)', () => {
  const t = (kind: string, namespace: string, name: string, labels: Record<string, string>): SelectableTemplate => ({
    apiVersion: kind === 'ClusterRole' ? 'rbac.authorization.k8s.io/v1' : 'apps/v1',
    kind,
    metadata: { name, ...(namespace ? { namespace } : {}), labels },
  });
  const templates = [
    t('Deployment', 'shop', 'web', { tier: 'web' }),
    t('Deployment', 'shop', 'db', { tier: 'db' }),
    t('StatefulSet', 'shop', 'cache', { tier: 'web' }),
    t('Deployment', 'blog', 'web', { tier: 'web' }),
    t('ClusterRole', '', 'viewer', { tier: 'web' }),
  ];
  it('matches labels, narrowed by kind and namespace when given, sorted and without duplicates', () => {
    const refs = selectWorkloads(
      [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          namespace: 'shop',
          labelSelector: { matchLabels: { tier: 'web' } },
        },
        { namespace: 'shop', labelSelector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['web'] }] } },
      ],
      templates,
    );
    expect(refs).toEqual([
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' },
      { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'cache', namespace: 'shop' },
    ]);
  });
  it('a selector without namespace reaches cluster-scoped templates too', () => {
    expect(
      selectWorkloads([{ labelSelector: { matchLabels: { tier: 'web' } } }], templates).map(
        (r) => `${r.kind}/${r.namespace ?? ''}/${r.name}`,
      ),
    ).toEqual(['Deployment/blog/web', 'Deployment/shop/web', 'StatefulSet/shop/cache', 'ClusterRole//viewer']);
  });
  it('selectedKinds says which kinds to list', () => {
    expect(
      selectedKinds([{ apiVersion: 'apps/v1', kind: 'Deployment', labelSelector: { matchLabels: { a: 'b' } } }]),
    ).toEqual(['Deployment']);
    expect(selectedKinds([{ labelSelector: { matchLabels: { a: 'b' } } }])).toBeUndefined();
    expect(selectedKinds(undefined)).toEqual([]);
  });
});
