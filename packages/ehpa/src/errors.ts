/** Offline input that cannot be planned: `field` names what is wrong (a flag, a file, a field path). */
export class WhatIfInputError extends Error {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
    this.name = 'WhatIfInputError';
  }
}
