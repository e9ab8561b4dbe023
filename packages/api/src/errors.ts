/** One rejected field: `field` is a path like `spec.rules[1].schedule` ("" for the object as a whole). */
export interface FieldError {
  field: string;
  message: string;
}

/** Formats causes as kubectl does: `field: message`, joined with "; ". */
export function formatCauses(causes: readonly FieldError[]): string {
  return causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message)).join('; ');
}

/** The object was rejected by defaulting/validation; `causes` lists every field error found. */
export class AdmissionError extends Error {
  readonly causes: FieldError[];
  constructor(
    readonly kind: string | undefined,
    readonly objectName: string | undefined,
    causes: FieldError[],
    options?: { cause?: unknown },
  ) {
    const subject = `${kind || 'Object'}${objectName !== undefined ? ` "${objectName}"` : ''}`;
    super(`${subject} is invalid: ${formatCauses(causes)}`, options);
    this.name = 'AdmissionError';
    this.causes = causes;
  }
}

/** A kind token (or apiVersion/kind pair) that names no registered kind. */
export class UnknownKindError extends Error {
  constructor(
    readonly token: string,
    validKinds: readonly string[],
    readonly apiVersion?: string,
  ) {
    const what = apiVersion === undefined ? `resource type "${token}"` : `kind "${token}" in version "${apiVersion}"`;
    super(
      `unknown ${what}: valid kinds are ${validKinds.join(', ')} ` +
        '(also accepted: lower-case kind, plural, short name, or plural.group such as deployments.apps)',
    );
    this.name = 'UnknownKindError';
  }
}

/** The kind is registered, but under another apiVersion. */
export class WrongApiVersionError extends Error {
  constructor(
    readonly apiVersion: string,
    readonly kind: string,
    readonly servedApiVersion: string,
  ) {
    super(`apiVersion "${apiVersion}" is not served for kind ${kind}; use ${servedApiVersion}`);
    this.name = 'WrongApiVersionError';
  }
}

/** Multi-document YAML that does not parse; `document` counts from 1. */
export class ManifestError extends Error {
  constructor(
    readonly document: number,
    readonly line: number | undefined,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`yaml: document ${document}${line !== undefined ? `, line ${line}` : ''}: ${reason}`, options);
    this.name = 'ManifestError';
  }
}

export function isAdmissionError(err: unknown): err is AdmissionError {
  return err instanceof AdmissionError;
}

/** A request (not an object) names a kind, namespace or name that cannot be used; `causes` lists every bad field. */
export class InvalidRequestError extends Error {
  readonly causes: FieldError[];
  constructor(causes: FieldError[], options?: { cause?: unknown }) {
    super(`invalid request: ${formatCauses(causes)}`, options);
    this.name = 'InvalidRequestError';
    this.causes = causes;
  }
}
