import { failBackRows, type QueuedFailBackItem } from '../view/index.js';
import { call } from './api.js';
import { heading, liveSection, type Page } from './context.js';
import { h, table } from './dom.js';

/**
 * Fail-backs: the bindings waiting to return to an earlier affinity group, since when, when each would move and
 * where, as `flotilla get failbacks` shows them (the gateway's `failbacks` operation: the rebalancer's plan with the
 * budget in force, the landing previewed by the scheduler's functions). Drawn again as bindings change.
 */
export const failBacksPage: Page = async (ctx) => {
  const body = h('div', {});
  ctx.main.replaceChildren(heading('Fail-backs', true), body);
  await liveSection(ctx, {
    into: body,
    follow: { kind: 'ResourceBinding' },
    debounceMs: 500,
    render: async () => {
      const q = await call<{ now: string; budget: { max: number; periodMs: number }; items: QueuedFailBackItem[] }>(
        'failbacks',
        {},
      );
      const budget = h(
        'p',
        {},
        `Fleet budget: at most ${q.budget.max} fail-backs every ${q.budget.periodMs / 1000} s, the oldest hold first.`,
      );
      if (!q.items.length) return [budget, h('p', {}, 'No fail-backs waiting.')];
      return [
        budget,
        table(
          `${q.items.length} waiting to fail back`,
          ['Binding', 'Workload', 'Groups', 'Waiting since', 'Moves', 'Turn', 'Reason', 'Where'],
          failBackRows(q.items, new Date(Date.parse(q.now))).map((r) => [
            h('span', { class: 'name' }, r.binding),
            r.resource,
            r.groups,
            r.since,
            r.moves,
            r.turn,
            r.reason,
            r.target,
          ]),
          { class: 'failbacks', 'data-testid': 'failbacks' },
        ),
      ];
    },
  });
};
