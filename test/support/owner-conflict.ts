// What the owner-conflict end-to-end checks share (sim clusters in replica-trail.e2e, real ones in
// kube-autoscaling.e2e): an autoscaler's ReplicaOwnerConflict condition, and the events `describe` shows.
import type { Condition } from '@flotilla/api';
import { eventually } from '@flotilla/testkit';
import { flotilla } from './cli.js';

/** Waits for `describe` of each object (`kind/name`, namespace default) to show an event matching `event`. */
export async function describedWith(
  env: Record<string, string>,
  objects: readonly string[],
  event: RegExp,
  timeoutMs = 10_000,
): Promise<void> {
  for (const o of objects) {
    const [kind, name] = o.split('/') as [string, string];
    await eventually(
      async () => (event.test((await flotilla(env, ['describe', kind, name])).out) ? true : undefined),
      timeoutMs,
      `an event matching ${event} on ${o}`,
    );
  }
}

/** Waits for the autoscaler's ReplicaOwnerConflict condition to have `status`, and returns it. */
export function ownerCondition(
  env: Record<string, string>,
  kind: string,
  name: string,
  status: 'True' | 'False',
  timeoutMs = 15_000,
): Promise<Condition> {
  return eventually(
    async () => {
      const r = await flotilla(env, ['get', kind, name, '-n', 'default', '-o', 'json']);
      if (r.code !== 0) return undefined;
      const conditions = (JSON.parse(r.out) as { status?: { conditions?: Condition[] } }).status?.conditions;
      return conditions?.find((x) => x.type === 'ReplicaOwnerConflict' && x.status === status);
    },
    timeoutMs,
    `the ReplicaOwnerConflict condition of ${kind}/${name} ${status}`,
  );
}
