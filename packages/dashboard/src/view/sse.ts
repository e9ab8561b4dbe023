/** One server-sent event: its `event` name (`message` by default), `id` and `data` lines joined. */
export interface SseMessage {
  event: string;
  id?: string;
  data: string;
}

/**
 * The text/event-stream format read from chunks as they arrive (the browser's EventSource cannot send an
 * Authorization header, so the page reads the stream with fetch). Keeps an incomplete line for the next chunk.
 */
export class SseParser {
  private buffer = '';
  private event = '';
  private id: string | undefined;
  private data: string[] = [];

  /** The messages completed by this chunk. */
  push(chunk: string): SseMessage[] {
    this.buffer += chunk;
    const out: SseMessage[] = [];
    for (let i = this.buffer.search(/\r?\n/); i >= 0; i = this.buffer.search(/\r?\n/)) {
      const line = this.buffer.slice(0, i);
      this.buffer = this.buffer.slice(this.buffer[i] === '\r' ? i + 2 : i + 1);
      if (line === '') {
        if (this.data.length)
          out.push({ event: this.event || 'message', ...(this.id ? { id: this.id } : {}), data: this.data.join('\n') });
        this.event = '';
        this.data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') this.data.push(value);
      else if (field === 'event') this.event = value;
      else if (field === 'id') this.id = value;
    }
    return out;
  }
}

/** One message in the text/event-stream format (the server's side of SseParser). */
export function sseMessage(m: SseMessage): string {
  const lines = [
    ...(m.event && m.event !== 'message' ? [`event: ${m.event}`] : []),
    ...(m.id ? [`id: ${m.id}`] : []),
    ...m.data.split('\n').map((l) => `data: ${l}`),
  ];
  return `${lines.join('\n')}\n\n`;
}
