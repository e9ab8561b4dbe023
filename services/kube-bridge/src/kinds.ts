import { type KindInfo, resolveKind } from '@flotilla/api';

/**
 * Who writes a mirrored kind's spec. `shared`: users write it on either side (kubectl on the host, `flotilla apply`
 * here), the bridge copies each change to the other side and Flotilla's status back to the host. `flotilla`: only
 * Flotilla writes it (ResourceBindings); the host holds a copy that the bridge keeps equal to Flotilla's.
 */
export type SpecOwner = 'shared' | 'flotilla';

export interface MirroredKind {
  info: KindInfo;
  owner: SpecOwner;
  /** A resource template: mirrored only while a PropagationPolicy or ClusterPropagationPolicy selects it. */
  template: boolean;
}

const mirrored = (token: string, owner: SpecOwner, template = false): MirroredKind => ({
  info: resolveKind(token),
  owner,
  template,
});

/**
 * The kinds the bridge mirrors: every kind Flotilla serves under Karmada's and Crane's groups, and the resource
 * templates policies select. Policies come first so that the templates they select are known when templates are
 * decided on.
 */
export const MIRRORED_KINDS: readonly MirroredKind[] = [
  mirrored('PropagationPolicy', 'shared'),
  mirrored('ClusterPropagationPolicy', 'shared'),
  mirrored('Cluster', 'shared'),
  mirrored('FederatedHPA', 'shared'),
  mirrored('CronFederatedHPA', 'shared'),
  mirrored('WorkloadRebalancer', 'shared'),
  mirrored('EffectiveHorizontalPodAutoscaler', 'shared'),
  mirrored('Deployment', 'shared', true),
  mirrored('StatefulSet', 'shared', true),
  mirrored('ResourceBinding', 'flotilla'),
  mirrored('ClusterResourceBinding', 'flotilla'),
];

export const POLICY_KINDS: readonly string[] = ['PropagationPolicy', 'ClusterPropagationPolicy'];

export function mirroredKind(kind: string): MirroredKind {
  const found = MIRRORED_KINDS.find((k) => k.info.kind === kind);
  if (!found) throw new Error(`kind ${kind} is not mirrored by the kube-bridge`);
  return found;
}
