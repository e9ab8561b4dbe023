import { addToFeed, eventObject, type FeedEvent, matchesEventFilter } from '../view/index.js';
import { follow } from './api.js';
import { heading, type Page } from './context.js';
import { h, table } from './dom.js';

/** The newest events the page keeps. */
const FEED_LIMIT = 500;

/** Events: the live feed of domain events, filtered by kind and object (both kept in the URL). */
export const eventsPage: Page = async (ctx) => {
  const filter = { kind: ctx.params.get('kind') ?? '', object: ctx.params.get('object') ?? '' };
  let feed: FeedEvent[] = [];
  const kinds = new Set<string>();
  const kindSelect = h('select', { id: 'ev-kind', name: 'kind' }) as HTMLSelectElement;
  const objectInput = h('input', {
    id: 'ev-object',
    name: 'object',
    value: filter.object,
    placeholder: 'namespace/name',
  });
  const count = h('p', { role: 'status', class: 'count' });
  const list = h('div', {});
  const drawKinds = () => {
    const current = filter.kind;
    kindSelect.replaceChildren(
      h('option', { value: '' }, 'every kind'),
      ...[...new Set([...kinds, ...(current ? [current] : [])])]
        .sort()
        .map((k) => h('option', { value: k, selected: k === current }, k)),
    );
  };
  const draw = () => {
    const shown = feed.filter((e) => matchesEventFilter(e, filter));
    count.textContent = `${shown.length} of ${feed.length} events`;
    list.replaceChildren(
      table(
        'Domain events, newest first',
        ['Time', 'Event', 'Object', 'Message'],
        shown.map((e) => [e.time, e.type, eventObject(e), e.message]),
        { class: 'events', 'data-testid': 'events' },
      ),
    );
  };
  const apply = () => {
    filter.kind = kindSelect.value;
    filter.object = (objectInput as HTMLInputElement).value.trim();
    const q = new URLSearchParams();
    if (filter.kind) q.set('kind', filter.kind);
    if (filter.object) q.set('object', filter.object);
    history.replaceState(null, '', `#/events${q.size ? `?${q}` : ''}`);
    draw();
  };
  kindSelect.addEventListener('change', apply);
  objectInput.addEventListener('input', apply);
  drawKinds();
  ctx.main.replaceChildren(
    heading('Events', true),
    h(
      'form',
      { class: 'filters', onsubmit: (e: Event) => e.preventDefault() },
      h('label', { for: 'ev-kind' }, 'Kind '),
      kindSelect,
      h('label', { for: 'ev-object' }, ' Object '),
      objectInput,
    ),
    count,
    list,
  );
  draw();
  let pending = false;
  ctx.onLeave(
    follow(
      {},
      (e) => {
        feed = addToFeed(feed, e, FEED_LIMIT);
        if (!kinds.has(e.kind)) {
          kinds.add(e.kind);
          drawKinds();
        }
        // A burst of events is drawn once per frame.
        if (pending) return;
        pending = true;
        requestAnimationFrame(() => {
          pending = false;
          draw();
        });
      },
      (err) => ctx.failed(err),
    ),
  );
};
