/**
 * A PropagationPolicy dividing Deployment `web` (namespace default) over member1 and member2 by static weights
 * w1:w2: of 6 replicas, 2:1 is member1:4 member2:2 and 1:2 the reverse, the change the preview tests make.
 */
export const webPolicy = (w1: number, w2: number): string => `apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: { name: web, namespace: default }
spec:
  resourceSelectors: [{ apiVersion: apps/v1, kind: Deployment, name: web }]
  placement:
    clusterAffinity: { clusterNames: [member1, member2] }
    replicaScheduling:
      replicaSchedulingType: Divided
      replicaDivisionPreference: Weighted
      weightPreference:
        staticWeightList:
          - { targetCluster: { clusterNames: [member1] }, weight: ${w1} }
          - { targetCluster: { clusterNames: [member2] }, weight: ${w2} }
`;
