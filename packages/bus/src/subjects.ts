/**
 * Subject grammar of domain events:
 *
 *   <prefix>.events.<kind>.<namespace>.<name>.<type>
 *
 * Each of kind, namespace, name and type is one token. A token keeps the characters A-Z a-z 0-9 and "-"; every
 * other byte of its UTF-8 form is written `%XX` (upper-case hex), so `web.v2` becomes `web%2Ev2`. A cluster-scoped
 * object's namespace token is `_`: "_" is never a valid namespace and is always escaped elsewhere, so the mapping
 * stays reversible. `%` is legal in NATS subjects and `unescapeToken` is `decodeURIComponent`.
 */
const KEEP = /^[A-Za-z0-9-]$/;
const encoder = new TextEncoder();

export function escapeToken(value: string): string {
  let out = '';
  for (const ch of value) {
    if (KEEP.test(ch)) {
      out += ch;
      continue;
    }
    for (const byte of encoder.encode(ch)) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

export function unescapeToken(token: string): string {
  return decodeURIComponent(token);
}

export const CLUSTER_SCOPE_TOKEN = '_';

export interface EventAddress {
  kind: string;
  namespace?: string | undefined;
  name: string;
  type: string;
}

export function eventSubject(root: string, a: EventAddress): string {
  const ns = a.namespace ? escapeToken(a.namespace) : CLUSTER_SCOPE_TOKEN;
  return `${root}.${escapeToken(a.kind)}.${ns}.${escapeToken(a.name)}.${escapeToken(a.type)}`;
}

/**
 * A subscription filter. An omitted part matches any token; `namespace: ''` means cluster-scoped.
 * With nothing given it matches every event.
 */
export function eventFilter(root: string, a: Partial<EventAddress> = {}): string {
  if (a.kind === undefined && a.namespace === undefined && a.name === undefined && a.type === undefined)
    return `${root}.>`;
  const tok = (v: string | undefined) => (v === undefined ? '*' : escapeToken(v));
  const ns = a.namespace === '' ? CLUSTER_SCOPE_TOKEN : tok(a.namespace);
  return `${root}.${tok(a.kind)}.${ns}.${tok(a.name)}.${tok(a.type)}`;
}

export class SubjectError extends Error {
  constructor(readonly subject: string) {
    super(`subject "${subject}" is not an event subject`);
    this.name = 'SubjectError';
  }
}

export function parseEventSubject(root: string, subject: string): EventAddress {
  if (!subject.startsWith(`${root}.`)) throw new SubjectError(subject);
  const parts = subject.slice(root.length + 1).split('.');
  if (parts.length !== 4) throw new SubjectError(subject);
  const [kind, ns, name, type] = parts as [string, string, string, string];
  return {
    kind: unescapeToken(kind),
    namespace: ns === CLUSTER_SCOPE_TOKEN ? undefined : unescapeToken(ns),
    name: unescapeToken(name),
    type: unescapeToken(type),
  };
}
