import { type FeedEvent, SseParser } from '../view/index.js';

/** Where the page keeps the token the person signed in with: for this tab only, gone when it closes. */
const TOKEN_KEY = 'flotilla.dashboard.token';

export const token = {
  get: (): string => sessionStorage.getItem(TOKEN_KEY) ?? '',
  set: (t: string): void => sessionStorage.setItem(TOKEN_KEY, t),
  clear: (): void => sessionStorage.removeItem(TOKEN_KEY),
};

/** An answer the gateway refused: its Kubernetes reason (`Forbidden`, `Unauthorized`, `Invalid`, …) and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
  ) {
    super(`${reason}: ${message}`);
    this.name = 'ApiError';
  }
}

export const isUnauthorized = (err: unknown): boolean => err instanceof ApiError && err.status === 401;

function headers(): Record<string, string> {
  const t = token.get();
  return t ? { authorization: `Bearer ${t}` } : {};
}

async function answer<T>(res: Response): Promise<T> {
  const body = (await res.json().catch(() => undefined)) as
    | { ok: true; result: T }
    | { ok: false; error: { reason: string; message: string } }
    | undefined;
  if (!body) throw new ApiError(res.status, 'InternalError', `HTTP ${res.status} without a JSON answer`);
  if (!body.ok) throw new ApiError(res.status, body.error.reason, body.error.message);
  return body.result;
}

/** One of the HTTP API's operations (`POST /api/<op>`), as the CLI sends them. */
export async function call<T>(
  op: 'get' | 'list' | 'events' | 'apply' | 'failbacks' | 'preview',
  body: object,
): Promise<T> {
  const res = await fetch(`/api/${op}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers() },
    body: JSON.stringify(body),
  });
  return answer<T>(res);
}

/** One of the dashboard's own reads (`GET /dashboard/api/<view>`). */
export async function view<T>(name: string, params: Record<string, string | number | undefined> = {}): Promise<T> {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const res = await fetch(`/dashboard/api/${name}?${q}`, { headers: headers() });
  return answer<T>(res);
}

/**
 * The live event feed: the gateway's server-sent events read with fetch (EventSource cannot send the token), each
 * handed to `onEvent`. A dropped connection is opened again after a second, resuming after the last event seen.
 */
export function follow(
  params: { kind?: string; namespace?: string; name?: string },
  onEvent: (e: FeedEvent) => void,
  onError: (err: unknown) => void = () => {},
): () => void {
  const abort = new AbortController();
  let lastId = '';
  const run = async () => {
    while (!abort.signal.aborted) {
      try {
        const q = new URLSearchParams();
        for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, v);
        const res = await fetch(`/dashboard/api/stream?${q}`, {
          headers: { ...headers(), ...(lastId ? { 'last-event-id': lastId } : {}) },
          signal: abort.signal,
        });
        if (!res.ok || !res.body) await answer(res);
        const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
        const parser = new SseParser();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          for (const m of parser.push(value)) {
            if (m.id) lastId = m.id;
            onEvent(JSON.parse(m.data) as FeedEvent);
          }
        }
      } catch (err) {
        if (abort.signal.aborted) return;
        onError(err);
        if (isUnauthorized(err)) return;
        // 410 Expired: the tab slept through more events than the gateway replays; it starts again from the newest.
        if (err instanceof ApiError && err.status === 410) lastId = '';
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  };
  void run();
  return () => abort.abort();
}
