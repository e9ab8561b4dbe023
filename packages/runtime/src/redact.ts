const REDACTED = '***';

/**
 * Hides the user-info part of a URL (user, password or token) so it can be logged.
 * The username goes too: NATS token auth carries the token in the user position.
 */
export function redactUrl(url: string): string {
  // Rewritten as text rather than re-serialised through URL, which would normalise the rest
  // (trailing slashes, case). Greedy up to the last '@': an unencoded '@' or '/' in a password
  // must not leave part of it behind; over-redacting a query string is the lesser harm.
  return url.replace(
    /^([a-z][a-z0-9+.-]*:\/\/)?.*@/is,
    (_m, scheme: string | undefined) => `${scheme ?? ''}${REDACTED}@`,
  );
}

/** True for variable names whose values are secrets and must never be printed. */
export function isSecretName(name: string): boolean {
  return /(PASSWORD|PASSWD|TOKEN|SECRET|CREDENTIAL|API_KEY|PRIVATE_KEY)/i.test(name);
}

/** A copy of a configuration safe to log: secrets replaced, URL credentials hidden. */
export function redactConfig<T extends Record<string, unknown>>(config: T): Record<keyof T, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config)) {
    if (value === undefined) out[key] = undefined;
    else if (isSecretName(key)) out[key] = REDACTED;
    else if (typeof value === 'string' && /^[a-z][a-z0-9+.-]*:\/\//i.test(value)) out[key] = redactUrl(value);
    else out[key] = value;
  }
  return out as Record<keyof T, unknown>;
}

/** The raw value of a variable, fit for an error message. */
export function displayValue(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (isSecretName(name)) return REDACTED;
  return redactUrl(value);
}
