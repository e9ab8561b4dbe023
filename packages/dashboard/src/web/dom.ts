type Child = Node | string | number | false | null | undefined;
type Attrs = Record<string, string | number | boolean | EventListener | undefined>;

/** An element with attributes (`on…` ones as listeners) and children; false, null and undefined children are left out. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** An SVG element, as `h`. */
export function s(tag: string, attrs: Attrs = {}, ...children: Child[]): SVGElement {
  const el = document.createElementNS(SVG_NS, tag) as SVGElement;
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

function setAttrs(el: Element, attrs: Attrs): void {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    // Through the CSSOM: the gateway's Content-Security-Policy refuses a `style` attribute set as markup.
    else if (k === 'style') (el as HTMLElement | SVGElement).style.cssText = String(v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
}

function append(el: Element, children: Child[]): void {
  for (const c of children) {
    if (c === false || c === null || c === undefined) continue;
    el.append(typeof c === 'number' ? String(c) : c);
  }
}

/** A table with a caption, header cells and rows of text or nodes. */
export function table(caption: string, headers: string[], rows: Child[][], attrs: Attrs = {}): HTMLTableElement {
  return h(
    'table',
    attrs,
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, ...headers.map((x) => h('th', { scope: 'col' }, x)))),
    h('tbody', {}, ...rows.map((r) => h('tr', {}, ...r.map((c) => h('td', {}, c))))),
  );
}

/**
 * Replaces `into`'s content, keeping the keyboard focus: a live page redraws a section when an event arrives, and the
 * control a keyboard user was on (a row's "Fail member2") would otherwise leave the document, taking the focus to
 * the page's body between one key press and the next. The new content's control of the same kind and text takes it.
 */
export function replaceKeepingFocus(into: Element, nodes: Array<Node | string>): void {
  const focused = document.activeElement;
  const key = focused instanceof HTMLElement && into.contains(focused) ? focusKey(focused) : undefined;
  into.replaceChildren(...nodes);
  if (key !== undefined) refocus(into, key);
}

/** What tells a control from the others across a redraw: its tag, its label and its text. */
export function focusKey(el: HTMLElement): string {
  return `${el.tagName}\u0000${el.getAttribute('aria-label') ?? ''}\u0000${el.textContent ?? ''}`;
}

/** Focuses the first element under `root` with `key` (focusKey); false when there is none. */
export function refocus(root: Element, key: string): boolean {
  const tag = key.slice(0, key.indexOf('\u0000'));
  for (const el of root.querySelectorAll<HTMLElement>(tag)) {
    if (focusKey(el) !== key) continue;
    el.focus();
    return true;
  }
  return false;
}
