/** A rebalancer (or what-if input) that the controller cannot work from; `field` names where, as admission does. */
export class RebalanceInputError extends Error {
  constructor(
    readonly field: string,
    readonly detail: string,
  ) {
    super(`${field}: ${detail}`);
    this.name = 'RebalanceInputError';
  }
}
