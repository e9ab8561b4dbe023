/** A preview request the preview cannot work from; `field` names where, as admission does. */
export class PreviewInputError extends Error {
  constructor(
    readonly field: string,
    readonly detail: string,
  ) {
    super(`${field}: ${detail}`);
    this.name = 'PreviewInputError';
  }
}

export const isPreviewInputError = (e: unknown): e is PreviewInputError => e instanceof PreviewInputError;
