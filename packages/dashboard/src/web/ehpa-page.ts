import { ehpaView, type ForecastCurvesView } from '../view/index.js';
import { call, view } from './api.js';
import { timeChart } from './chart.js';
import { heading, liveSection, type Page } from './context.js';
import { h, table } from './dom.js';

interface Listed {
  items: Array<{
    metadata: { name: string; namespace?: string };
    spec?: { scaleTargetRef?: { kind?: string; name?: string } };
  }>;
}

/**
 * EffectiveHPAs: the actual usage beside its forecast and the forecast error, the load, forecast and replicas of the
 * decisions, each source's proposal, and the winner named.
 */
export const ehpaPage: Page = async (ctx) => {
  const body = h('div', {});
  ctx.main.replaceChildren(heading('EffectiveHPAs', true), body);
  await liveSection(ctx, {
    into: body,
    follow: { kind: 'EffectiveHorizontalPodAutoscaler' },
    debounceMs: 1000,
    render: async () => {
      const { items } = await call<Listed>('list', { kind: 'EffectiveHorizontalPodAutoscaler' });
      const now = Date.now();
      const sections = await Promise.all(
        items.map(async (o) => {
          const namespace = o.metadata.namespace ?? 'default';
          const [{ items: events }, curves] = await Promise.all([
            view<{ items: Array<{ time: string; data?: unknown }> }>('history', {
              kind: 'EffectiveHorizontalPodAutoscaler',
              namespace,
              name: o.metadata.name,
            }),
            view<ForecastCurvesView>('forecast', { namespace, name: o.metadata.name }),
          ]);
          const v = ehpaView(o, events, now, curves);
          const id = `${namespace}/${o.metadata.name}`;
          return h(
            'section',
            { 'data-testid': `ehpa-${id}` },
            h('h2', {}, `${id} → ${o.spec?.scaleTargetRef?.kind ?? ''}/${o.spec?.scaleTargetRef?.name ?? ''}`),
            h(
              'p',
              { class: 'winner' },
              `Winning proposal: ${v.winning ?? '<none yet>'}`,
              v.expectReplicas === undefined ? '' : ` · expected replicas ${v.expectReplicas}`,
            ),
            v.forecastError ? h('p', { class: 'forecast-error' }, v.forecastError) : null,
            v.usage.length
              ? timeChart({
                  title: `Actual and forecast usage of ${id} (last 24 h and the prediction window ahead)`,
                  series: v.usage,
                  shape: 'line',
                  extraTimes: [now],
                })
              : '',
            v.series.length
              ? timeChart({
                  title: `Load, forecast and replicas of ${id} (last 24 h)`,
                  series: v.series,
                  shape: 'step',
                })
              : h('p', {}, 'No decisions recorded in the last 24 hours.'),
            table(
              'Proposals now',
              ['Source', 'Replicas', 'Metric', 'Detail'],
              v.proposals.map((p) => [
                p.winning ? `★ ${p.source} (winning)` : p.source,
                p.replicas === undefined ? '-' : String(p.replicas),
                p.metricValue === undefined ? '-' : String(Math.round(p.metricValue * 1000) / 1000),
                p.detail,
              ]),
              { class: 'ehpa-proposals' },
            ),
          );
        }),
      );
      return items.length ? sections : [h('p', {}, 'No EffectiveHPAs.')];
    },
  });
};
