/**
 * The figures a bench prints (bench/support's report(): a title line, then rows of "  name  value"), and their
 * ratios between two builds run in one sitting (`bench/run --compare REF`).
 */

/**
 * One number per row, by "title / row name": a latency row's p99 (named "… p99"), any other row's first number (not
 * one inside a word, such as the 50 of "p50"); a row with no number is left out. A row listing named numbers
 * ("gateway 3.0 s, member-agent 6.2 s", "8.00 (objects 2.00, status 2.00)") also gives each, by "title / row name /
 * name": the first number of a row compares one service's CPU only.
 */
export type Figures = Map<string, number>;

const ROW = /^ {2}(\S.*?) {2,}(.*)$/;
const P99 = /\bp99 (-?[\d,]*\.?\d+)/;
const FIRST_NUMBER = /(?<![A-Za-z\d.])(-?[\d,]*\.?\d+)/;
/** A named number of a list: at the start of the value, or after a comma or an opening parenthesis. */
const NAMED = /(?:^|[,(;]\s*)([A-Za-z][\w'.-]*(?: [A-Za-z][\w'.-]*)*) (-?[\d,]*\.?\d+)(?![\w.])/g;

export function parseFigures(output: string): Figures {
  const figures: Figures = new Map();
  let title = '';
  for (const line of output.split('\n')) {
    const row = ROW.exec(line);
    if (!row) {
      if (line.trim() !== '' && !line.startsWith(' ')) title = line.trim();
      continue;
    }
    const p99 = P99.exec(row[2]!);
    const number = p99 ?? FIRST_NUMBER.exec(row[2]!);
    const name = `${title} / ${row[1]!.trim()}${p99 ? ' p99' : ''}`;
    if (number) figures.set(name, Number(number[1]!.replaceAll(',', '')));
    const named = [...row[2]!.matchAll(NAMED)];
    if (named.length >= 2)
      for (const [, label, value] of named)
        figures.set(`${title} / ${row[1]!.trim()} / ${label}`, Number(value!.replaceAll(',', '')));
  }
  return figures;
}

/** The median of each figure over several runs of one build. */
export function medianFigures(runs: Figures[]): Figures {
  const out: Figures = new Map();
  const keys = new Set(runs.flatMap((r) => [...r.keys()]));
  for (const key of keys) {
    const values = runs
      .map((r) => r.get(key))
      .filter((v): v is number => v !== undefined)
      .sort((a, b) => a - b);
    const mid = Math.floor(values.length / 2);
    out.set(key, values.length % 2 ? values[mid]! : (values[mid - 1]! + values[mid]!) / 2);
  }
  return out;
}

export interface FigureComparison {
  figure: string;
  ref: number;
  head: number;
  /** head / ref; undefined where ref is 0. */
  ratio: number | undefined;
}

/** Every figure both builds printed, in HEAD's order. */
export function compareFigures(ref: Figures, head: Figures): FigureComparison[] {
  const out: FigureComparison[] = [];
  for (const [figure, h] of head) {
    const r = ref.get(figure);
    if (r === undefined) continue;
    out.push({ figure, ref: r, head: h, ratio: r === 0 ? undefined : h / r });
  }
  return out;
}

export function formatComparison(rows: FigureComparison[], refLabel: string): string {
  const w = Math.max(6, ...rows.map((r) => r.figure.length));
  const lines = [`${'figure'.padEnd(w)}  ${refLabel.padStart(12)}  ${'HEAD'.padStart(12)}  HEAD/REF`];
  for (const r of rows)
    lines.push(
      `${r.figure.padEnd(w)}  ${String(r.ref).padStart(12)}  ${String(r.head).padStart(12)}  ${r.ratio === undefined ? '-' : r.ratio.toFixed(2)}`,
    );
  return lines.join('\n');
}
