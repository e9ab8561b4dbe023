import { readFile } from 'node:fs/promises';
import type { HistorySample } from '@flotilla/ehpa';
import { parseRangeResponse, RangeResponseError } from '@flotilla/metric-history';
import { CliError } from './context.js';

/** A Prometheus range-query answer; several series (one per cluster, say) are summed per timestamp. */
export async function readRangeFile(file: string, flag: string): Promise<HistorySample[]> {
  let body: unknown;
  try {
    body = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new CliError(`error: ${flag} ${file}: ${(err as Error).message}`);
  }
  try {
    const sums = new Map<number, number>();
    for (const s of parseRangeResponse(body)) for (const [t, v] of s.samples) sums.set(t, (sums.get(t) ?? 0) + v);
    return [...sums.entries()].sort((a, b) => a[0] - b[0]);
  } catch (err) {
    if (err instanceof RangeResponseError) throw new CliError(`error: ${flag} ${file}: ${err.message}`);
    throw err;
  }
}
