import { describe, expect, it } from 'vitest';
import { SchedulingInputError } from './errors.js';
import { podSpecRequests } from './pod-requests.js';
import type { ResourceList } from './types.js';

const c = (requests?: ResourceList, limits?: ResourceList, extra: Record<string, unknown> = {}) => ({
  name: 'c',
  ...extra,
  resources: { ...(requests && { requests }), ...(limits && { limits }) },
});

// Every case is a rule of Karmada's GenerateReplicaRequirements → Resource.AddPodTemplateRequest →
// AddPodRequest → ResourceList (pkg/util/helper/binding.go, pkg/util/resource.go).
describe('podSpecRequests: Karmada replicaRequirements.resourceRequest', () => {
  it.each<{ rule: string; podSpec: unknown; want: ResourceList | undefined }>([
    {
      rule: 'AddPodRequest: app containers add up',
      podSpec: {
        containers: [
          c({ cpu: '250m', memory: '64Mi' }),
          c({ cpu: '1', memory: '1Gi', 'nvidia.com/gpu': 1 }),
          { name: 'no-resources' },
        ],
      },
      want: { cpu: '1250m', memory: '1088Mi', 'nvidia.com/gpu': '1' },
    },
    {
      rule: 'AddPodTemplateRequest: a limit stands in for a missing request, resource by resource',
      podSpec: { containers: [c({ cpu: '100m' }, { cpu: '1', memory: '1Gi' }), c(undefined, { cpu: '500m' })] },
      want: { cpu: '600m', memory: '1Gi' },
    },
    {
      rule: 'AddPodTemplateRequest: an explicit request of 0 is not replaced by the limit (and ResourceList drops the 0)',
      podSpec: { containers: [c({ cpu: '0', memory: '32Mi' }, { cpu: '2' })] },
      want: { memory: '32Mi' },
    },
    {
      rule: 'AddPodRequest: per resource, the largest init container request wins over the containers sum',
      podSpec: {
        containers: [c({ cpu: '500m', memory: '256Mi' }), c({ cpu: '500m' })],
        initContainers: [c({ cpu: '2', memory: '64Mi' }), c({ cpu: '1500m', 'example.com/dongle': 1 })],
      },
      want: { cpu: '2', memory: '256Mi', 'example.com/dongle': '1' },
    },
    {
      rule: 'AddPodTemplateRequest: init container limits stand in for missing requests too',
      podSpec: { containers: [c({ memory: '128Mi' })], initContainers: [c(undefined, { memory: '1Gi' })] },
      want: { memory: '1Gi' },
    },
    {
      rule: 'AddPodRequest: a restartable (sidecar) init container is an init container like any other: max, not sum',
      podSpec: {
        containers: [c({ cpu: '1' })],
        initContainers: [c({ cpu: '500m', memory: '64Mi' }, undefined, { restartPolicy: 'Always' })],
      },
      want: { cpu: '1', memory: '64Mi' },
    },
    {
      rule: 'AddPodRequest: spec.overhead is added after the init-container maximum',
      podSpec: {
        containers: [c({ cpu: '100m' })],
        initContainers: [c({ cpu: '1' })],
        overhead: { cpu: '250m', memory: '120Mi' },
      },
      want: { cpu: '1250m', memory: '120Mi' },
    },
    {
      rule: "Karmada's own case (pkg/util/resource_test.go TestResource_AddPodTemplateRequest)",
      podSpec: {
        containers: [
          c(
            { cpu: '10m', memory: 10, 'test.karmada.io/foo': 10, 'test.karmada.io/bar': 10 },
            { memory: 99999, pods: 10, 'test.karmada.io/bar': 99999, 'test.karmada.io/baz': 10 },
          ),
        ],
        initContainers: [
          c(
            { cpu: '5m', memory: 10, 'test.karmada.io/foo': 5, 'test.karmada.io/bar': 10 },
            { memory: 99999, pods: 20, 'test.karmada.io/bar': 99999, 'test.karmada.io/baz': 20 },
          ),
        ],
        overhead: {
          cpu: '5m',
          memory: 5,
          'ephemeral-storage': 5,
          pods: 5,
          'test.karmada.io/foo': 5,
          'test.karmada.io/bar': 5,
          'test.karmada.io/baz': 5,
        },
      },
      want: {
        cpu: '15m',
        memory: '15',
        'ephemeral-storage': '5',
        pods: '25',
        'test.karmada.io/foo': '15',
        'test.karmada.io/bar': '15',
        'test.karmada.io/baz': '25',
      },
    },
    {
      rule: 'Resource.Add: only the native four and scalar resources (extended, hugepages-, *kubernetes.io/, attachable-volumes-) count',
      podSpec: {
        containers: [
          c({
            cpu: '1',
            'ephemeral-storage': '1Gi',
            'hugepages-2Mi': '4Mi',
            'example.com/dongle': 2,
            'attachable-volumes-aws-ebs': 1,
            'scheduling.kubernetes.io/thing': 1,
            storage: '10Gi',
            widgets: 3,
            'Example.com/upper-case-prefix': 1,
            'requests.example.com/quota-style': 1,
            'a/b/c': 1,
          }),
        ],
      },
      want: {
        cpu: '1',
        'ephemeral-storage': '1Gi',
        'hugepages-2Mi': '4Mi',
        'example.com/dongle': '2',
        'attachable-volumes-aws-ebs': '1',
        'scheduling.kubernetes.io/thing': '1',
      },
    },
    {
      rule: 'Quantity.MilliValue / Value: each quantity is rounded up on its own before it is added',
      podSpec: { containers: [c({ cpu: '0.1m', memory: '0.5' }), c({ cpu: '0.1m', memory: '0.5' })] },
      want: { cpu: '2m', memory: '2' },
    },
    {
      rule: 'decimal quantities are exact, not float noise rounded up',
      podSpec: { containers: [c({ cpu: '0.3' }), c({ cpu: '100m' }), c({ cpu: '0.2' })] },
      want: { cpu: '600m' },
    },
    {
      rule: 'ResourceList: nothing requested → no resource request',
      podSpec: { containers: [{ name: 'a' }], initContainers: [c({})] },
      want: undefined,
    },
    {
      rule: 'ResourceList: every total 0 → no resource request',
      podSpec: { containers: [c({ cpu: 0, memory: '0Mi' })] },
      want: undefined,
    },
    { rule: 'no pod spec → no resource request', podSpec: undefined, want: undefined },
    {
      rule: 'no containers → only init containers and overhead count',
      podSpec: { overhead: { memory: '1Ki' } },
      want: { memory: '1Ki' },
    },
  ])('$rule', ({ podSpec, want }) => {
    expect(podSpecRequests(podSpec)).toEqual(want);
  });

  it.each([
    {
      podSpec: { containers: [{}, c({ cpu: 'fast' })] },
      error: 'spec.template.spec.containers[1].resources.requests.cpu: invalid quantity "fast"',
    },
    {
      podSpec: { initContainers: [c(undefined, { memory: 'lots' })] },
      error: 'spec.template.spec.initContainers[0].resources.limits.memory: invalid quantity "lots"',
    },
    { podSpec: { overhead: { cpu: '-1' } }, error: 'spec.template.spec.overhead.cpu: must not be negative, got "-1"' },
    // The quantity is checked even for a resource that does not count: Karmada fails to convert the template.
    {
      podSpec: { containers: [c({ widgets: { n: 1 } as never })] },
      error: 'spec.template.spec.containers[0].resources.requests.widgets: invalid quantity {"n":1}',
    },
  ])('names the field of a bad quantity: $error', ({ podSpec, error }) => {
    expect(() => podSpecRequests(podSpec)).toThrow(SchedulingInputError);
    expect(() => podSpecRequests(podSpec)).toThrow(error);
  });

  it('is its own fixed point: one container requesting the result yields the result', () => {
    const podSpec = {
      containers: [c({ cpu: '0.3', memory: '1.5Gi' }, { 'example.com/dongle': 1 })],
      initContainers: [c({ cpu: '2' })],
      overhead: { memory: '120Mi' },
    };
    const once = podSpecRequests(podSpec)!;
    expect(podSpecRequests({ containers: [{ resources: { requests: once } }] })).toEqual(once);
  });
});
