/**
 * A generated block inside a hand-written Markdown page: the text between `<!-- BEGIN GENERATED: name -->` and
 * `<!-- END GENERATED: name -->` belongs to a generator (scripts/gen-docs), the rest of the page to its authors.
 */

/** A page's markers missing, repeated or out of order. */
export class GeneratedBlockError extends Error {
  constructor(
    readonly page: string,
    readonly block: string,
    message: string,
  ) {
    super(`${page}: generated block "${block}": ${message}`);
    this.name = 'GeneratedBlockError';
  }
}

export const isGeneratedBlockError = (err: unknown): err is GeneratedBlockError => err instanceof GeneratedBlockError;

function markers(block: string): { begin: string; end: string } {
  return {
    begin: `<!-- BEGIN GENERATED: ${block} (scripts/gen-docs writes this part; test/docs.test.ts compares it) -->`,
    end: `<!-- END GENERATED: ${block} -->`,
  };
}

function bounds(page: string, text: string, block: string): { from: number; to: number } {
  const { begin, end } = markers(block);
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from < 0) throw new GeneratedBlockError(page, block, `no line "${begin}"`);
  if (to < 0) throw new GeneratedBlockError(page, block, `no line "${end}"`);
  if (text.indexOf(begin, from + 1) >= 0 || text.indexOf(end, to + 1) >= 0)
    throw new GeneratedBlockError(page, block, 'its markers appear more than once');
  if (to < from) throw new GeneratedBlockError(page, block, 'the end marker comes before the begin marker');
  return { from: from + begin.length, to };
}

/** The text between a block's markers. */
export function readGeneratedBlock(page: string, text: string, block: string): string {
  const { from, to } = bounds(page, text, block);
  return text.slice(from, to);
}

/** The page with the block's content replaced (blank lines around it, as the formatter keeps them). */
export function replaceGeneratedBlock(page: string, text: string, block: string, content: string): string {
  const { from, to } = bounds(page, text, block);
  return `${text.slice(0, from)}\n\n${content.trim()}\n\n${text.slice(to)}`;
}
