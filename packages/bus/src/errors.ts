/** A compare-and-set lost: someone else wrote the key since `expected` was read. */
export class ConflictError extends Error {
  constructor(readonly key: string, readonly expected: number, options?: { cause?: unknown }) {
    super(`conflict writing ${key}: expected revision ${expected}, the stored one is newer`, options);
    this.name = 'ConflictError';
  }
}

/** A create found the key already present. */
export class AlreadyExistsError extends Error {
  constructor(readonly key: string, options?: { cause?: unknown }) {
    super(`${key} already exists`, options);
    this.name = 'AlreadyExistsError';
  }
}

/** The NATS or JetStream server could not be reached or refused the bus set-up. */
export class BusUnavailableError extends Error {
  constructor(readonly url: string, options?: { cause?: unknown }) {
    super(`cannot reach NATS at ${url}: ${(options?.cause as Error | undefined)?.message ?? 'unknown error'}`, options);
    this.name = 'BusUnavailableError';
  }
}

/** JetStream reports a compare-and-set loss as "wrong last sequence"; a create over a live key the same way. */
export function isWrongLastSequence(err: unknown): boolean {
  return err instanceof Error && /wrong last sequence/i.test(err.message);
}
