import type { DestinationStream } from 'pino';

/** A pino destination that keeps every line, parsed, for assertions on what was logged. */
export class LogCapture implements DestinationStream {
  readonly raw: string[] = [];

  write(line: string): void {
    this.raw.push(line);
  }

  get lines(): Record<string, unknown>[] {
    return this.raw.map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  text(): string {
    return this.raw.join('');
  }
}
