/** One page of a list the server pages: its rows and where it sits in the whole. */
export interface Page<T> {
  items: T[];
  /** 1-based. */
  page: number;
  pageSize: number;
  total: number;
}

export const PAGING_DEFAULTS = { pageSize: 50, maxPageSize: 500 } as const;

export interface PageRequest {
  page: number;
  pageSize: number;
}

/**
 * A page request read from query parameters, each checked: a bad value is an error naming the parameter, not a silent
 * first page.
 */
export function parsePageRequest(q: { page?: string | null; pageSize?: string | null }): PageRequest {
  const int = (name: string, raw: string | null | undefined, fallback: number, max: number) => {
    if (raw === null || raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1 || n > max)
      throw new RangeError(`${name}: Invalid value: "${raw}": must be an integer from 1 to ${max}`);
    return n;
  };
  return {
    page: int('page', q.page, 1, Number.MAX_SAFE_INTEGER),
    pageSize: int('pageSize', q.pageSize, PAGING_DEFAULTS.pageSize, PAGING_DEFAULTS.maxPageSize),
  };
}

/** The page asked for; a page past the end is the last page (a list that shrank under the reader). */
export function pageOf<T>(items: readonly T[], req: PageRequest): Page<T> {
  const pages = Math.max(1, Math.ceil(items.length / req.pageSize));
  const page = Math.min(req.page, pages);
  const start = (page - 1) * req.pageSize;
  return { items: items.slice(start, start + req.pageSize), page, pageSize: req.pageSize, total: items.length };
}

/** `Page 2 of 200 (51-100 of 10000)`. */
export function pageLabel(p: Omit<Page<unknown>, 'items'>): string {
  const pages = Math.max(1, Math.ceil(p.total / p.pageSize));
  if (p.total === 0) return 'Page 1 of 1 (none)';
  const first = (p.page - 1) * p.pageSize + 1;
  const last = Math.min(p.total, p.page * p.pageSize);
  return `Page ${p.page} of ${pages} (${first}-${last} of ${p.total})`;
}
