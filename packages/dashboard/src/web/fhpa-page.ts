import { fhpaView } from '../view/index.js';
import { call } from './api.js';
import { liveSection, heading, type Page } from './context.js';
import { h, table } from './dom.js';

const pct = (x: number) => `${Math.round(x * 100)}%`;

/** FederatedHPAs: each cluster's share of min/max with its current replicas, and the last assignment with its reason. */
export const fhpaPage: Page = async (ctx) => {
  const body = h('div', {});
  ctx.main.replaceChildren(heading('FederatedHPAs', true), body);
  await liveSection(ctx, {
    into: body,
    follow: { kind: 'FederatedHPA' },
    debounceMs: 300,
    render: async () => {
      const { items } = await call<{ items: unknown[] }>('list', { kind: 'FederatedHPA' });
      return [
        ...(items.length ? [] : [h('p', {}, 'No FederatedHPAs.')]),
        ...items.map(fhpaView).map((f) =>
          h(
            'section',
            { 'data-testid': `fhpa-${f.namespace}/${f.name}` },
            h('h2', {}, `${f.namespace}/${f.name} → ${f.target}`),
            h(
              'p',
              {},
              `min ${f.minReplicas ?? '-'} · max ${f.maxReplicas ?? '-'} · current ${f.currentReplicas ?? '-'} · `,
              f.assignmentType
                ? `member HPAs, ${f.assignmentType} assignment`
                : "Karmada's mode: one count, divided by the scheduler",
            ),
            f.shares.length
              ? table(
                  'Each cluster’s share',
                  ['Cluster', 'Min (share)', 'Max (share)', 'Current', 'Desired'],
                  f.shares.map((s) => [
                    s.cluster,
                    `${s.minReplicas} (${pct(s.minShare)})`,
                    h(
                      'span',
                      {},
                      h(
                        'span',
                        {
                          class: 'bar',
                          role: 'meter',
                          'aria-valuenow': s.maxShare,
                          'aria-valuemin': 0,
                          'aria-valuemax': 1,
                          'aria-label': `max share ${pct(s.maxShare)}`,
                        },
                        h('span', { class: 'fill', style: `width:${pct(s.maxShare)}` }),
                      ),
                      ` ${s.maxReplicas} (${pct(s.maxShare)})`,
                    ),
                    s.currentReplicas === undefined ? '-' : String(s.currentReplicas),
                    s.desiredReplicas === undefined ? '-' : String(s.desiredReplicas),
                  ]),
                  { class: 'fhpa-shares' },
                )
              : null,
            f.last
              ? h(
                  'dl',
                  {},
                  h('dt', {}, 'Last change'),
                  h('dd', {}, `${f.last.reason}: ${f.last.message}`),
                  h('dt', {}, 'At'),
                  h('dd', {}, f.last.time),
                  ...(f.last.moves.length ? [h('dt', {}, 'Moves'), h('dd', {}, f.last.moves.join(', '))] : []),
                )
              : null,
          ),
        ),
      ];
    },
  });
};
