import type { ObjectRef } from './object.js';
import { describeRef } from './object.js';

export class NotFoundError extends Error {
  constructor(readonly ref: ObjectRef) {
    super(`${describeRef(ref)} not found`);
    this.name = 'NotFoundError';
  }
}

/** True when a read, update or delete found no stored object (`NotFoundError`). */
export function isNotFound(err: unknown): err is NotFoundError {
  return err instanceof NotFoundError;
}

/** The caller's resourceVersion is not the stored one: it must read again and retry. */
export class StaleResourceVersionError extends Error {
  constructor(
    readonly ref: ObjectRef,
    readonly given: string,
    readonly current: string | undefined,
  ) {
    super(
      `Operation cannot be fulfilled on ${describeRef(ref)}: the object has been modified; ` +
        `please apply your changes to the latest version (resourceVersion ${given} given, ${current ?? 'none'} stored)`,
    );
    this.name = 'StaleResourceVersionError';
  }
}
