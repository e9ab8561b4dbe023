/**
 * The relative links of Markdown pages, and whether each resolves: the file or folder exists, and an `#anchor` names
 * a heading of the target page (GitHub's slugs: lower case, punctuation dropped, spaces to hyphens, a repeated
 * heading suffixed -1, -2, ...) or an explicit `<a id>`/`<a name>`. Links inside code are not links.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

export interface MarkdownLink {
  /** 1-based line of the link. */
  line: number;
  target: string;
}

/** For each line of the page, whether it belongs to a fenced code block (its fences included). */
export function fencedLines(text: string): boolean[] {
  const inside: boolean[] = [];
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const m = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence !== undefined) {
      if (m && (m[1] as string).startsWith(fence)) fence = undefined;
      inside.push(true);
    } else {
      if (m) fence = m[1] as string;
      inside.push(m !== null);
    }
  }
  return inside;
}

/** The page's text with fenced code blocks and inline code spans blanked (lines kept, so they keep their numbers). */
export function withoutCode(text: string): string {
  const fenced = fencedLines(text);
  return text
    .split('\n')
    .map((line, i) => (fenced[i] ? '' : line.replace(/(`+)[^`]*?\1/g, (s) => ' '.repeat(s.length))))
    .join('\n');
}

/** Inline links and images `[text](target)`, reference definitions `[x]: target`, and `src="..."` of HTML. */
export function markdownLinks(text: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  for (const [i, line] of withoutCode(text).split('\n').entries()) {
    for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      links.push({ line: i + 1, target: m[1] as string });
    const def = /^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(\s|$)/.exec(line);
    if (def) links.push({ line: i + 1, target: def[1] as string });
    for (const m of line.matchAll(/\b(?:src|href)="([^"]+)"/g)) links.push({ line: i + 1, target: m[1] as string });
  }
  return links;
}

/** GitHub's anchor for a heading's text. */
export function headingSlug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a page offers: its headings' slugs (repeats numbered) and explicit `<a id|name>` anchors. */
export function pageAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const fenced = fencedLines(text);
  for (const [i, line] of text.split('\n').entries()) {
    if (fenced[i]) continue;
    const h = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      const slug = headingSlug(h[1] as string);
      const n = seen.get(slug) ?? 0;
      seen.set(slug, n + 1);
      anchors.add(n === 0 ? slug : `${slug}-${n}`);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1] as string);
  }
  return anchors;
}

const EXTERNAL = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

/** The links of `page` (relative to `root`) that do not resolve, as `page:line: target: why`. */
export function brokenLinks(root: string, page: string): string[] {
  const text = readFileSync(join(root, page), 'utf8');
  const broken: string[] = [];
  for (const { line, target } of markdownLinks(text)) {
    if (EXTERNAL.test(target)) continue;
    const [pathPart = '', anchor] = target.split('#', 2);
    const path = decodeURIComponent(pathPart);
    const file =
      path === '' ? join(root, page) : path.startsWith('/') ? join(root, path) : join(root, dirname(page), path);
    const where = `${page}:${line}: ${target}`;
    if (
      !relative(root, file)
        .split('/')
        .every((p) => p !== '..') ||
      !existsSync(file)
    ) {
      broken.push(`${where}: no such file`);
      continue;
    }
    if (anchor === undefined || anchor === '') continue;
    if (statSync(file).isDirectory() || !file.endsWith('.md')) {
      broken.push(`${where}: an anchor into something that is not a Markdown page`);
      continue;
    }
    if (!pageAnchors(readFileSync(file, 'utf8')).has(anchor)) broken.push(`${where}: no heading with this anchor`);
  }
  return broken;
}
