import { equalSharePods, type MemberWorkload } from '@flotilla/hpa-math';

/** What a member cluster reports of one workload: its replicas and the total CPU its running pods use. */
export interface MemberUsage {
  cluster: string;
  clusterReady: boolean;
  specReplicas: number;
  /** Pods running and ready; the usage is theirs. */
  readyReplicas: number;
  /** Milli-cores summed over the ready pods. */
  usageMilli: number;
  /** One pod's CPU request, milli-cores. */
  requestMilli: number;
}

/** A member's copy of the workload as the replica calculator reads it; replicas not ready yet are Pending. */
export function memberWorkload(u: MemberUsage): MemberWorkload {
  const ready = Math.max(0, u.readyReplicas);
  const pods = equalSharePods(ready, Math.max(0, u.specReplicas - ready), u.usageMilli, u.requestMilli);
  return {
    cluster: u.cluster,
    clusterReady: u.clusterReady,
    specReplicas: u.specReplicas,
    statusReplicas: ready,
    pods,
  };
}
