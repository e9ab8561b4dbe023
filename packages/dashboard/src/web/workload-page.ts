import type { Condition } from '@flotilla/api';
import { decisionView, trailFieldText, type TrailPoint, trailSeries, trailValueText } from '../view/index.js';
import { call, view } from './api.js';
import { liveSection, errorText, heading, type Page } from './context.js';
import { timeChart } from './chart.js';
import { h, table } from './dom.js';

interface WorkloadView {
  binding: {
    metadata: { name: string; namespace?: string };
    spec?: { clusters?: Array<{ name: string; replicas?: number }>; resource?: Record<string, string> };
    status?: {
      schedulerObservingAffinityName?: string;
      conditions?: Condition[];
    };
  };
  workload?: { kind: string; namespace: string; name: string };
  decision?: { type: string; time: string; data?: unknown };
  kept?: { time: string };
  trail: TrailPoint[];
}

/** One workload: placement per cluster, the scheduling decision with every group tried, and the replica trail. */
export const workloadPage: Page = async (ctx) => {
  const [namespace = 'default', name = ''] = ctx.path;
  const body = h('div', {});
  ctx.main.replaceChildren(heading(`Workload ${namespace}/${name}`, true), body);
  await liveSection(ctx, {
    into: body,
    follow: { kind: 'ResourceBinding', namespace, name },
    debounceMs: 300,
    render: async () => {
      const w = await view<WorkloadView>('workload', { namespace, name });
      const d = decisionView(w.decision, w.kept);
      const placement = w.binding.spec?.clusters ?? [];
      const scheduled = w.binding.status?.conditions?.find((c) => c.type === 'Scheduled');
      return [
        h(
          'section',
          { 'aria-labelledby': 'placement-h' },
          h('h2', { id: 'placement-h' }, 'Placement'),
          h(
            'p',
            {},
            w.workload ? `${w.workload.kind} ${w.workload.namespace}/${w.workload.name}` : 'no resource',
            scheduled ? ` · Scheduled=${scheduled.status}${scheduled.reason ? ` (${scheduled.reason})` : ''}` : '',
          ),
          table(
            'Replicas per cluster',
            ['Cluster', 'Replicas'],
            placement.map((c) => [c.name, c.replicas === undefined ? 'all (Duplicated)' : String(c.replicas)]),
            { 'data-testid': 'placement' },
          ),
          w.workload ? rebalanceButton(w.workload, ctx) : null,
        ),
        h(
          'section',
          { 'aria-labelledby': 'decision-h', 'data-testid': 'decision' },
          h('h2', { id: 'decision-h' }, 'Scheduling decision'),
          d.outcome === 'None'
            ? h('p', {}, 'No decision yet.')
            : h(
                'dl',
                {},
                ...field('Outcome', `${d.outcome}, ${d.time}`),
                ...field('Group', d.group),
                ...(d.trigger ? field('Trigger', d.trigger) : []),
                ...(d.mode ? field('Mode', d.mode) : []),
                ...(d.reason ? field('Reason', d.reason) : []),
                ...(d.keptAt ? field('Kept', `${d.keptAt}: nothing asked for rescheduling`) : []),
                ...field(
                  'Clusters',
                  d.clusters.map((c) => `${c.name}${c.replicas === undefined ? '' : `:${c.replicas}`}`).join(', ') ||
                    '<none>',
                ),
              ),
          d.groups.length
            ? table(
                'Groups tried, in order',
                ['Group', 'Result', 'Rejected clusters'],
                d.groups.map((g) => [
                  g.name,
                  g.ok ? '✔ fit' : `✘ ${g.message || 'did not fit'}`,
                  g.rejected.length
                    ? h('ul', {}, ...g.rejected.map((x) => h('li', {}, `${x.cluster}: ${x.reason}`)))
                    : '<none>',
                ]),
                { 'data-testid': 'groups' },
              )
            : null,
        ),
        h(
          'section',
          { 'aria-labelledby': 'trail-h' },
          h('h2', { id: 'trail-h' }, 'Replica trail: why this count?'),
          w.trail.length
            ? timeChart({ title: 'Replicas over time', series: trailSeries(w.trail, Date.now()) })
            : h('p', {}, 'No replica changes recorded.'),
          w.trail.length
            ? table(
                'Replica changes',
                ['Time', 'Field', 'From', 'To', 'By', 'Why'],
                w.trail.map((e) => [
                  e.time,
                  trailFieldText(e.field),
                  trailValueText(e.from),
                  trailValueText(e.to),
                  e.by,
                  e.why,
                ]),
                { 'data-testid': 'trail' },
              )
            : null,
        ),
      ];
    },
  });
};

const field = (term: string, value: string) => [h('dt', {}, term), h('dd', {}, value)];

/** "Rebalance this workload": a WorkloadRebalancer naming it, applied through the same admission as the CLI's. */
function rebalanceButton(w: { kind: string; namespace: string; name: string }, ctx: Parameters<Page>[0]) {
  return h(
    'button',
    {
      type: 'button',
      onclick: async () => {
        if (
          !(await ctx.confirm(
            `Reschedule ${w.kind} ${w.namespace}/${w.name} from scratch (a WorkloadRebalancer)?`,
            'Rebalance',
          ))
        )
          return;
        const stamp = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
        const kindApi: Record<string, string> = { Deployment: 'apps/v1', StatefulSet: 'apps/v1' };
        try {
          const r = await call<{ object: { metadata: { name: string } } }>('apply', {
            object: {
              apiVersion: 'apps.karmada.io/v1alpha1',
              kind: 'WorkloadRebalancer',
              metadata: { name: `rebalance-${stamp}-${Math.random().toString(16).slice(2, 6)}` },
              spec: {
                workloads: [
                  { apiVersion: kindApi[w.kind] ?? 'apps/v1', kind: w.kind, namespace: w.namespace, name: w.name },
                ],
              },
            },
          });
          ctx.notify(`workloadrebalancer.apps.karmada.io/${r.object.metadata.name} created`);
        } catch (err) {
          ctx.notify(errorText(err), 'error');
        }
      },
    },
    'Rebalance this workload',
  );
}
