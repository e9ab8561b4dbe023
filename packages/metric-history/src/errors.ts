/** A Prometheus range-query response that is not the matrix Flotilla reads; `field` is the JSON path at fault. */
export class RangeResponseError extends Error {
  constructor(
    readonly field: string,
    detail: string,
  ) {
    super(`${field}: ${detail}`);
    this.name = 'RangeResponseError';
  }
}

/** Prometheus answered a query with an error, or could not be reached. */
export class PrometheusQueryError extends Error {
  constructor(
    readonly url: string,
    readonly query: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`Prometheus query at ${url} failed: ${reason} (query: ${query})`, options);
    this.name = 'PrometheusQueryError';
  }
}

/** A query template names a placeholder Flotilla does not fill. */
export class QueryTemplateError extends Error {
  constructor(
    readonly template: string,
    readonly placeholder: string,
  ) {
    super(
      `query template names an unknown placeholder {{${placeholder}}}; known: {{namespace}}, {{kind}}, {{name}}, {{nameRegex}}`,
    );
    this.name = 'QueryTemplateError';
  }
}
