/** One bad environment variable. `value` is already redacted when the variable holds a secret. */
export interface ConfigIssue {
  variable: string;
  message: string;
  value: string | undefined;
}

/** The environment does not describe a valid configuration; names every bad variable at once. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly issues: readonly ConfigIssue[];

  constructor(issues: readonly ConfigIssue[]) {
    super(`invalid configuration:\n${issues.map((i) => `  ${formatConfigIssue(i)}`).join('\n')}`);
    this.issues = issues;
  }
}

export function formatConfigIssue(issue: ConfigIssue): string {
  const got = issue.value === undefined ? 'not set' : `got ${JSON.stringify(issue.value)}`;
  return `${issue.variable}: ${issue.message}, ${got}`;
}

export function isConfigError(err: unknown): err is ConfigError {
  return err instanceof ConfigError;
}

/** A BullMQ job id or queue name that BullMQ would reject or misread. */
export class InvalidJobIdError extends Error {
  override readonly name = 'InvalidJobIdError';

  constructor(
    readonly field: 'jobId' | 'name' | 'prefix',
    readonly value: string,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}, got ${JSON.stringify(value)}`);
  }
}

/** A leader-only operation was attempted by a replica that does not hold the lease. */
export class NotLeaderError extends Error {
  override readonly name = 'NotLeaderError';

  constructor(
    readonly key: string,
    readonly id: string,
  ) {
    super(`${id} is not the leader for ${key}`);
  }
}

/**
 * A leader's write refused because the object already carries a larger fencing token: a later leader wrote it, so
 * this one is deposed (or its token went back; see Fencing.raise).
 */
export class StaleFencingTokenError extends Error {
  override readonly name = 'StaleFencingTokenError';

  constructor(
    readonly object: string,
    readonly token: number,
    readonly seen: number,
  ) {
    super(`${object}: fencing token ${token} is older than the ${seen} the object carries; write refused`);
  }
}

export function isStaleFencingToken(err: unknown): err is StaleFencingTokenError {
  return err instanceof StaleFencingTokenError;
}

/** Redis did not answer at start-up; the URL is shown without credentials. */
export class RedisUnavailableError extends Error {
  override readonly name = 'RedisUnavailableError';
  constructor(
    readonly url: string,
    options?: { cause?: unknown },
  ) {
    super(`cannot reach Redis at ${url}: ${(options?.cause as Error | undefined)?.message ?? 'no answer'}`, options);
  }
}

/** True when Redis answered but refused the password it was given, or wanted one (its WRONGPASS and NOAUTH replies). */
export function isRedisCredentialsRefused(err: unknown): boolean {
  const cause = err instanceof RedisUnavailableError ? err.cause : undefined;
  return cause instanceof Error && /^(WRONGPASS|NOAUTH)\b/.test(cause.message);
}
