/** Raised for a FederatedHPA or cluster facts that no assignment can honour; `path` names the field. */
export class AssignmentInputError extends Error {
  constructor(
    readonly path: string,
    readonly detail: string,
  ) {
    super(`${path}: ${detail}`);
    this.name = 'AssignmentInputError';
  }
}
