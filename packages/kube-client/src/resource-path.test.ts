import { describe, expect, it } from 'vitest';
import { collectionPath, objectPath, type ResourceInfo } from './resource-path.js';

const pods: ResourceInfo = { group: '', version: 'v1', plural: 'pods', namespaced: true };
const nodes: ResourceInfo = { group: '', version: 'v1', plural: 'nodes', namespaced: false };
const crons: ResourceInfo = {
  group: 'autoscaling.karmada.io',
  version: 'v1alpha1',
  plural: 'cronfederatedhpas',
  namespaced: true,
};

describe('resource paths: the core group and named groups', () => {
  it.each([
    ['core, every namespace', collectionPath(pods), '/api/v1/pods'],
    ['core, one namespace', collectionPath(pods, 'shop'), '/api/v1/namespaces/shop/pods'],
    ['core, cluster-scoped (a namespace is ignored)', collectionPath(nodes, 'shop'), '/api/v1/nodes'],
    ['core object', objectPath(pods, { namespace: 'shop', name: 'web-0' }), '/api/v1/namespaces/shop/pods/web-0'],
    ['cluster-scoped object', objectPath(nodes, { name: 'n1' }), '/api/v1/nodes/n1'],
    ['named group, every namespace', collectionPath(crons), '/apis/autoscaling.karmada.io/v1alpha1/cronfederatedhpas'],
    [
      'named group, status subresource',
      objectPath(crons, { namespace: 'a b', name: 'c/d' }, 'status'),
      '/apis/autoscaling.karmada.io/v1alpha1/namespaces/a%20b/cronfederatedhpas/c%2Fd/status',
    ],
  ])('%s', (_, got, want) => expect(got).toBe(want));
});
