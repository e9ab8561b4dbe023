import { describe, expect, it } from 'vitest';
import { foreignHpasOf, memberObjectView } from './observe.js';
import { MemberMarks } from './member-objects.js';

const HPA = { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' };
const hpa = (name: string, annotations: Record<string, string> | undefined, spec: Record<string, unknown>) =>
  memberObjectView(HPA, { metadata: { name, namespace: 'shop', ...(annotations ? { annotations } : {}) }, spec });

describe("the kube driver's foreign HPAs: the member cluster's HPAs Flotilla did not create", () => {
  it('lists those without the binding annotation, with what they scale and their limits', () => {
    const target = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
    const views = [
      hpa('local', undefined, { scaleTargetRef: target, minReplicas: 2, maxReplicas: 6 }),
      hpa(
        'ours',
        { [MemberMarks.binding]: 'shop/web-horizontalpodautoscaler' },
        { scaleTargetRef: target, maxReplicas: 9 },
      ),
      // no target: nothing to conflict with
      hpa('broken', undefined, { maxReplicas: 3 }),
    ];
    expect(foreignHpasOf(views)).toEqual([
      { namespace: 'shop', name: 'local', scaleTargetRef: target, minReplicas: 2, maxReplicas: 6 },
    ]);
  });

  it("keeps only the name of someone else's object of another kind", () => {
    const view = memberObjectView(
      { apiVersion: 'apps/v1', kind: 'Deployment' },
      { metadata: { name: 'web', namespace: 'shop' }, spec: { replicas: 3 } },
    );
    expect(view).toEqual({ ref: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' } });
  });
});
