import { createHash } from 'node:crypto';
import type { Operation } from '@flotilla/client';

/** `read` may look (get, list, events); `admin` may do everything, including apply and delete. */
export type Role = 'read' | 'admin';
export const ROLES: readonly Role[] = ['read', 'admin'];
// A preview, and the fail-back queue, read the live state and write nothing.
export const READ_OPERATIONS: readonly Operation[] = ['get', 'list', 'events', 'preview', 'failbacks'];

export interface Caller {
  name: string;
  role: Role;
}

export class TokenFileError extends Error {
  constructor(
    readonly source: string,
    readonly line: number,
    detail: string,
  ) {
    super(`${source}:${line}: ${detail}; each line is "token,role,name" with role one of ${ROLES.join(', ')}`);
    this.name = 'TokenFileError';
  }
}

/** Tokens are kept by their SHA-256, so a lookup does not compare secret strings byte by byte. */
const digest = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * The bearer tokens the gateway accepts, each with the name of its holder (for logs) and a role. Read from a file
 * mounted from a Secret: one `token,role,name` per line; blank lines and lines starting with `#` are skipped.
 */
export class ApiTokens {
  private constructor(private readonly byDigest: ReadonlyMap<string, Caller>) {}

  static parse(text: string, source = 'tokens'): ApiTokens {
    const byDigest = new Map<string, Caller>();
    text.split(/\r?\n/).forEach((raw, i) => {
      const line = raw.trim();
      if (!line || line.startsWith('#')) return;
      const [token = '', role = '', name = '', ...rest] = line.split(',').map((f) => f.trim());
      if (rest.length || !name) throw new TokenFileError(source, i + 1, 'expected 3 fields');
      if (!(ROLES as readonly string[]).includes(role))
        throw new TokenFileError(source, i + 1, `unknown role "${role}"`);
      // Short tokens can be guessed; 16 characters is the least a random token from `openssl rand -hex 16` has.
      if (token.length < 16) throw new TokenFileError(source, i + 1, 'token shorter than 16 characters');
      if (byDigest.has(digest(token))) throw new TokenFileError(source, i + 1, `token of "${name}" listed twice`);
      byDigest.set(digest(token), { name, role: role as Role });
    });
    if (byDigest.size === 0) throw new TokenFileError(source, 0, 'no token listed');
    return new ApiTokens(byDigest);
  }

  get size(): number {
    return this.byDigest.size;
  }

  /** The caller an `Authorization` header names, or undefined when it carries no token this gateway knows. */
  caller(authorization: string | undefined): Caller | undefined {
    const m = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
    return m ? this.byDigest.get(digest(m[1]!)) : undefined;
  }
}

export function allows(role: Role, operation: string): boolean {
  return role === 'admin' || (READ_OPERATIONS as readonly string[]).includes(operation);
}

/** Hosts only this machine can reach: the one place the API may run without tokens. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
