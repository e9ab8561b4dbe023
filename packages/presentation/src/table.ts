/** kubectl's plain table: upper-case headers, columns padded to the widest cell, three spaces apart. */
export function formatTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('   ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

/** kubectl's short age: 45s, 12m, 5h, 3d. */
export function formatAge(from: string | undefined, now: Date): string {
  if (!from) return '<unknown>';
  const s = Math.max(0, Math.floor((now.getTime() - Date.parse(from)) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 2 * 3600) return `${Math.floor(s / 60)}m`;
  if (s < 48 * 3600) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}
