import type { CronFederatedHPA } from '@flotilla/api';
import { cronTimelines, formatInZone } from '../view/index.js';
import { call } from './api.js';
import { timeChart } from './chart.js';
import { liveSection, heading, type Page } from './context.js';
import { h, table } from './dom.js';

/** CronFederatedHPAs: each rule's next runs on a time axis in the rule's own zone, excluded dates, and the history. */
export const cronPage: Page = async (ctx) => {
  const body = h('div', {});
  ctx.main.replaceChildren(heading('CronFederatedHPAs', true), body);
  await liveSection(ctx, {
    into: body,
    follow: { kind: 'CronFederatedHPA' },
    debounceMs: 300,
    render: async () => {
      const { items } = await call<{ items: CronFederatedHPA[] }>('list', { kind: 'CronFederatedHPA' });
      const now = new Date();
      return [
        ...(items.length ? [] : [h('p', {}, 'No CronFederatedHPAs.')]),
        ...items.map((o) => {
          const id = `${o.metadata.namespace}/${o.metadata.name}`;
          const target = `${o.spec?.scaleTargetRef?.kind ?? ''}/${o.spec?.scaleTargetRef?.name ?? ''}`;
          return h(
            'section',
            { class: 'cron', 'data-testid': `cron-${id}` },
            h('h2', {}, `${id} → ${target}`),
            ...cronTimelines(o, now).map((r) =>
              h(
                'article',
                { class: 'rule', 'data-rule': r.rule },
                h('h3', {}, `Rule ${r.rule}: "${r.schedule}" in ${r.timeZone}${r.suspended ? ' (suspended)' : ''}`),
                timeChart({
                  title: `Next runs of ${r.rule} (${r.timeZone})`,
                  series: [],
                  // Month-day and time in the rule's zone: the runs span days.
                  formatTime: (t) => formatInZone(t, r.timeZone).slice(5),
                  timeZone: r.timeZone,
                  extraTimes: [now.getTime()],
                  marks: [
                    ...r.next.map((x) => ({ t: x.t, label: `${x.local}: ${x.values}`, kind: 'next' as const })),
                    ...r.excluded.map((x) => ({
                      t: x.t,
                      label: `${x.local}: excluded by ${x.entry}`,
                      kind: 'excluded' as const,
                    })),
                  ],
                }),
                table(
                  `Next runs of ${r.rule}, in ${r.timeZone}`,
                  ['When', 'Sets'],
                  [
                    ...r.next.map((x) => [x.local, x.values]),
                    ...r.excluded.map((x) => [x.local, `✘ skipped: excluded date ${x.entry}`]),
                  ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
                  { class: 'cron-next' },
                ),
                r.history.length
                  ? table(
                      `Executions of ${r.rule}, newest first`,
                      ['Scheduled for', 'Outcome', 'Detail'],
                      r.history.map((x) => [x.local, x.outcome, x.detail]),
                      { class: 'cron-history' },
                    )
                  : h('p', {}, 'No executions yet.'),
              ),
            ),
          );
        }),
      ];
    },
  });
};
