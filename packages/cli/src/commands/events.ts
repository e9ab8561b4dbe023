import { resolveKind } from '@flotilla/api';
import { eventTypeOf, readEvents, type CloudEvent } from '@flotilla/bus';
import { CliError, type CliIo, type Session } from '../context.js';
import { eventMessage, formatTable } from '@flotilla/presentation';

export interface EventsOptions {
  follow?: boolean;
  for?: string;
  namespace?: string;
  output?: string;
  /** Stops a --follow. */
  signal?: AbortSignal;
}

/**
 * The domain event log. `-o json` prints each CloudEvents envelope as one JSON line, exactly as stored on the
 * stream; the default is a table. `--follow` keeps printing new events until interrupted.
 */
export async function eventsCommand(io: CliIo, s: Session, o: EventsOptions): Promise<number> {
  if (o.output !== undefined && o.output !== 'json')
    throw new CliError(`error: events supports -o json only, not "${o.output}"`);
  let filter = {};
  if (o.for) {
    const slash = o.for.indexOf('/');
    if (slash <= 0) throw new CliError(`error: --for takes KIND/NAME, not "${o.for}"`);
    const info = resolveKind(o.for.slice(0, slash));
    filter = {
      kind: info.kind,
      namespace: info.namespaced ? (o.namespace ?? 'default') : '',
      name: o.for.slice(slash + 1),
    };
  }
  const rows: string[][] = [];
  const headers = ['TIME', 'EVENT', 'OBJECT', 'MESSAGE'];
  const row = (e: CloudEvent) => [
    e.time,
    eventTypeOf(e),
    `${e.flotillakind}/${e.flotillanamespace ? `${e.flotillanamespace}/` : ''}${e.flotillaname}`,
    eventMessage(e),
  ];
  let printedHeader = false;
  for await (const d of readEvents(s.bus, {
    filter,
    follow: o.follow ?? false,
    ...(o.signal ? { signal: o.signal } : {}),
  })) {
    if (o.output === 'json') io.out(JSON.stringify(d.event));
    else if (o.follow) {
      // Streaming: no column widths known ahead, so print tab-separated lines after one header.
      if (!printedHeader) io.out(headers.join('\t'));
      printedHeader = true;
      io.out(row(d.event).join('\t'));
    } else rows.push(row(d.event));
  }
  if (o.output !== 'json' && !o.follow) io.out(rows.length ? formatTable(headers, rows) : 'No events found.');
  return 0;
}
