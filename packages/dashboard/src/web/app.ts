import { token } from './api.js';
import { clustersPage } from './clusters-page.js';
import { cronPage } from './cron-page.js';
import { ehpaPage } from './ehpa-page.js';
import { failBacksPage } from './failbacks-page.js';
import { previewPage } from './preview-page.js';
import { fhpaPage } from './fhpa-page.js';
import { errorText, isUnauthorized, type Page, type PageContext } from './context.js';
import { focusKey, h, refocus } from './dom.js';
import { eventsPage } from './events-page.js';
import { workloadPage } from './workload-page.js';
import { workloadsPage } from './workloads-page.js';

/** Each page is a URL: `#/<page>[/<path>…][?<params>]`. */
const PAGES: Record<string, { title: string; page: Page; nav: boolean }> = {
  clusters: { title: 'Clusters', page: clustersPage, nav: true },
  workloads: { title: 'Workloads', page: workloadsPage, nav: true },
  cronfederatedhpas: { title: 'CronFederatedHPAs', page: cronPage, nav: true },
  federatedhpas: { title: 'FederatedHPAs', page: fhpaPage, nav: true },
  effectivehpas: { title: 'EffectiveHPAs', page: ehpaPage, nav: true },
  failbacks: { title: 'Fail-backs', page: failBacksPage, nav: true },
  preview: { title: 'Preview', page: previewPage, nav: true },
  events: { title: 'Events', page: eventsPage, nav: true },
  login: { title: 'Sign in', page: loginPage, nav: false },
};

const WORKLOAD = { title: 'Workload', page: workloadPage, nav: false };

const main = document.getElementById('main') as HTMLElement;
const notice = document.getElementById('notice') as HTMLElement;
const dialog = document.getElementById('confirm') as HTMLDialogElement;
let leave: Array<() => void> = [];

function notify(text: string, kind: 'info' | 'error' = 'info'): void {
  notice.replaceChildren(h('p', { class: kind, role: kind === 'error' ? 'alert' : 'status' }, text));
}

function confirmAction(question: string, action: string): Promise<boolean> {
  (dialog.querySelector('.question') as HTMLElement).textContent = question;
  (dialog.querySelector('button[value="confirm"]') as HTMLElement).textContent = action;
  dialog.returnValue = '';
  // The dialog gives the focus back to the control that opened it; if a live redraw replaced that control meanwhile,
  // its successor takes it instead of the page's body.
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement : undefined;
  const key = opener ? focusKey(opener) : undefined;
  dialog.showModal();
  return new Promise((resolve) =>
    dialog.addEventListener(
      'close',
      () => {
        if (key !== undefined && !opener?.isConnected) refocus(main, key);
        resolve(dialog.returnValue === 'confirm');
      },
      { once: true },
    ),
  );
}

async function route(): Promise<void> {
  for (const stop of leave) stop();
  leave = [];
  const [path = '', query = ''] = location.hash.replace(/^#\/?/, '').split('?');
  const [name = 'clusters', ...rest] = path.split('/').filter(Boolean).map(decodeURIComponent);
  // `#/workloads/<namespace>/<name>` is one workload's page.
  const entry = name === 'workloads' && rest.length ? WORKLOAD : (PAGES[name] ?? PAGES.clusters!);
  document.title = `${entry.title} · Flotilla`;
  for (const a of document.querySelectorAll<HTMLAnchorElement>('nav.site a'))
    if (a.getAttribute('href') === `#/${name}`) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  (document.getElementById('signout') as HTMLElement).hidden = !token.get();
  const ctx: PageContext = {
    main,
    params: new URLSearchParams(query),
    path: rest,
    onLeave: (stop) => leave.push(stop),
    notify,
    confirm: confirmAction,
    failed: (err) => {
      if (isUnauthorized(err)) {
        sessionStorage.setItem('flotilla.dashboard.next', location.hash);
        location.hash = '#/login';
        notify(`${errorText(err)}. Sign in with a token.`, 'error');
      } else notify(errorText(err), 'error');
    },
  };
  main.replaceChildren(h('p', { class: 'loading' }, 'Loading…'));
  await entry.page(ctx);
  main.querySelector('h1')?.focus();
}

/** A token sign-in, as Kubernetes' dashboard asks for one: kept in this tab's sessionStorage, sent as a bearer. */
async function loginPage(ctx: PageContext): Promise<void> {
  const input = h('input', {
    id: 'token',
    type: 'password',
    name: 'token',
    autocomplete: 'off',
    required: true,
  }) as HTMLInputElement;
  ctx.main.replaceChildren(
    h('h1', { tabindex: '-1' }, 'Sign in'),
    h(
      'p',
      {},
      'Paste a gateway API token (a line of GATEWAY_TOKENS_FILE). A read token sees; an admin token may also act.',
    ),
    h(
      'form',
      {
        class: 'login',
        onsubmit: (e: Event) => {
          e.preventDefault();
          token.set(input.value.trim());
          notice.replaceChildren();
          const next = sessionStorage.getItem('flotilla.dashboard.next');
          location.hash = next && next !== '#/login' ? next : '#/clusters';
        },
      },
      h('label', { for: 'token' }, 'Token '),
      input,
      h('button', { type: 'submit' }, 'Sign in'),
    ),
  );
}

document.getElementById('signout')?.addEventListener('click', () => {
  token.clear();
  location.hash = '#/login';
});
window.addEventListener('hashchange', () => void route());
void route();
