import { clusterRows, type ClusterRow } from '../view/index.js';
import { call } from './api.js';
import { liveSection, errorText, heading, type Page } from './context.js';
import { h, table } from './dom.js';

interface Listed {
  items: Array<{ metadata: { name: string }; spec?: { simulation?: Record<string, unknown> } }>;
}

/** Clusters: Ready, taints, capacity against allocated, kube or simulated; fail / recover for simulated ones. */
export const clustersPage: Page = async (ctx) => {
  const body = h('div', {});
  ctx.main.replaceChildren(heading('Clusters', true), body);
  const draw = await liveSection(ctx, {
    into: body,
    follow: { kind: 'Cluster' },
    debounceMs: 200,
    render: async () => {
      const { items } = await call<Listed>('list', { kind: 'Cluster' });
      return [
        table(
          `${items.length} member clusters`,
          ['Name', 'Ready', 'Mode', 'Taints', 'Allocated of allocatable', 'Actions'],
          clusterRows(items).map((r) => [
            h('span', { class: 'name' }, r.name),
            h(
              'span',
              { class: `ready ready-${r.ready}`, 'data-ready': r.ready },
              r.ready === 'True' ? '✔ Ready' : r.ready === 'False' ? '✘ NotReady' : '? Unknown',
              r.readyReason ? ` (${r.readyReason})` : '',
            ),
            `${r.mode}${r.failed ? ' (failed)' : ''}`,
            r.taints.length ? r.taints.join(', ') : '<none>',
            bars(r),
            r.mode === 'simulated' ? actionButton(r, ctx, () => draw()) : '',
          ]),
          { class: 'clusters', 'data-testid': 'clusters' },
        ),
      ];
    },
  });
};

function bars(r: ClusterRow): HTMLElement {
  return h(
    'div',
    { class: 'bars' },
    ...r.bars.map((b) =>
      h(
        'div',
        { class: 'bar-row' },
        h(
          'span',
          {
            class: 'bar',
            role: 'meter',
            'aria-valuemin': 0,
            'aria-valuemax': b.allocatable,
            'aria-valuenow': b.allocated,
            'aria-label': b.label,
          },
          h('span', { class: `fill${b.share > 0.9 ? ' high' : ''}`, style: `width:${Math.round(b.share * 100)}%` }),
        ),
        h('span', { class: 'bar-label' }, b.label),
      ),
    ),
  );
}

/** `cluster fail` / `cluster recover`, as the CLI does it: read the Cluster, flip spec.simulation.failed, apply. */
function actionButton(r: ClusterRow, ctx: Parameters<Page>[0], redraw: () => Promise<void>): HTMLElement {
  const fail = !r.failed;
  const label = fail ? `Fail ${r.name}` : `Recover ${r.name}`;
  return h(
    'button',
    {
      type: 'button',
      class: fail ? 'danger' : '',
      onclick: async () => {
        const question = fail
          ? `Make simulated cluster ${r.name} unreachable (cluster fail)? Its workloads fail over.`
          : `Make simulated cluster ${r.name} reachable again (cluster recover)?`;
        if (!(await ctx.confirm(question, fail ? 'Fail cluster' : 'Recover cluster'))) return;
        try {
          const c = await call<Listed['items'][number] & { status?: unknown }>('get', {
            kind: 'Cluster',
            name: r.name,
          });
          const { status: _status, ...rest } = c;
          await call('apply', {
            object: { ...rest, spec: { ...c.spec, simulation: { ...c.spec?.simulation, failed: fail } } },
          });
          ctx.notify(`cluster/${r.name} ${fail ? 'failed' : 'recovered'}`);
          await redraw();
        } catch (err) {
          ctx.notify(errorText(err), 'error');
        }
      },
    },
    label,
  );
}
