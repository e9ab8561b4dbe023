import { pageLabel } from '../view/index.js';
import { view } from './api.js';
import { liveSection, heading, type Page } from './context.js';
import { h, table } from './dom.js';

interface BindingsPage {
  headers: string[];
  rows: Array<{ namespace: string; name: string; cells: string[] }>;
  page: number;
  pageSize: number;
  total: number;
}

/** Workloads: the bindings as `get rb -o wide` lists them, one page at a time from the server. */
export const workloadsPage: Page = async (ctx) => {
  const page = Number(ctx.params.get('page') ?? '1') || 1;
  const namespace = ctx.params.get('namespace') ?? '';
  const pageSize = ctx.params.get('pageSize') ?? undefined;
  const body = h('div', {});
  ctx.main.replaceChildren(heading('Workloads', true), body);
  // With 10,000 bindings, events arrive all the time: the page is read again at most once a second.
  await liveSection(ctx, {
    into: body,
    follow: { kind: 'ResourceBinding' },
    debounceMs: 1000,
    render: async () => {
      const p = await view<BindingsPage>('bindings', { page, pageSize, namespace });
      const link = (n: number, text: string, rel: string) =>
        h(
          'a',
          { href: `#/workloads?${new URLSearchParams({ ...Object.fromEntries(ctx.params), page: String(n) })}`, rel },
          text,
        );
      const pages = Math.max(1, Math.ceil(p.total / p.pageSize));
      return [
        h(
          'nav',
          { class: 'pager', 'aria-label': 'pages' },
          p.page > 1 ? link(p.page - 1, '‹ Previous', 'prev') : h('span', {}, '‹ Previous'),
          h('span', { class: 'page-label', 'data-testid': 'page-label' }, pageLabel(p)),
          p.page < pages ? link(p.page + 1, 'Next ›', 'next') : h('span', {}, 'Next ›'),
        ),
        table(
          `ResourceBindings (get rb -o wide), ${pageLabel(p)}`,
          p.headers,
          p.rows.map((r) =>
            r.cells.map((c, i) =>
              p.headers[i] === 'NAME' ? h('a', { href: `#/workloads/${r.namespace}/${r.name}` }, c) : c,
            ),
          ),
          { class: 'bindings', 'data-testid': 'bindings' },
        ),
      ];
    },
  });
};
