import { ApiError, follow, isUnauthorized } from './api.js';
import { debounce } from '../view/index.js';
import { h, replaceKeepingFocus } from './dom.js';

/** What a page gets: where to draw, the route's parameters, and ways to report, confirm and stop. */
export interface PageContext {
  main: HTMLElement;
  params: URLSearchParams;
  /** The route's path segments after the page's own (`#/workloads/default/nginx` → ['default', 'nginx']). */
  path: string[];
  /** Runs when the page is left: stop its streams and timers here. */
  onLeave(stop: () => void): void;
  /** Tells the person something (role=status) or that something failed (role=alert). */
  notify(text: string, kind?: 'info' | 'error'): void;
  /** Asks before an action; resolves true when confirmed. */
  confirm(question: string, action: string): Promise<boolean>;
  /** A failure while reading: a refused token goes to the sign-in page, anything else is shown. */
  failed(err: unknown): void;
}

export type Page = (ctx: PageContext) => Promise<void>;

export function errorText(err: unknown): string {
  return err instanceof ApiError ? err.message : `Error: ${(err as Error)?.message ?? String(err)}`;
}

export { isUnauthorized };

/** A page's heading, with the live indicator the pages that follow the event stream show. */
export function heading(title: string, live = false): HTMLElement {
  return h(
    'header',
    { class: 'page-head' },
    h('h1', { tabindex: '-1' }, title),
    live ? h('span', { class: 'live', title: 'updated as events arrive' }, '● live') : null,
  );
}

/**
 * A page section drawn from reads and drawn again as the event stream tells of a change to what it shows:
 * `debounceMs` after the last event of a burst, and at least every 5 × `debounceMs` while the events never pause.
 * Returns its redraw, for an action that changed something.
 */
export async function liveSection(
  ctx: PageContext,
  o: {
    into: HTMLElement;
    follow: { kind: string; namespace?: string; name?: string };
    debounceMs: number;
    render: () => Promise<Array<Node | string | null>>;
  },
): Promise<() => Promise<void>> {
  const draw = async () => {
    try {
      replaceKeepingFocus(
        o.into,
        (await o.render()).filter((n): n is Node | string => n !== null),
      );
    } catch (err) {
      ctx.failed(err);
    }
  };
  await draw();
  ctx.onLeave(
    follow(
      o.follow,
      debounce(() => void draw(), o.debounceMs),
      (err) => ctx.failed(err),
    ),
  );
  return draw;
}
