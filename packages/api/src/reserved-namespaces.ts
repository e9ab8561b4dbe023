import { z } from 'zod';
import type { FieldError } from './errors.js';

/**
 * Namespaces Flotilla never propagates from or into, whatever the configuration adds: Kubernetes' own (`kube-system`,
 * `kube-public`, `kube-node-lease`: Karmada's detector skips `kube-*` too) and Flotilla's. An entry ending in `*`
 * reserves every namespace starting with what comes before it.
 */
export const DEFAULT_RESERVED_NAMESPACES: readonly string[] = Object.freeze(['kube-*', 'flotilla-system']);

/** An entry: a DNS-1123 label (a namespace name), or a prefix of one followed by `*`. */
const ENTRY = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$|^[a-z0-9][-a-z0-9]{0,61}\*$/;

/** An entry of a reserved-namespace list that is neither a namespace name nor a prefix ending in `*`. */
export class ReservedNamespaceEntryError extends Error {
  constructor(
    readonly entry: string,
    /** Its position in the list, from 1. */
    readonly position: number,
  ) {
    super(
      `entry ${position} (${JSON.stringify(entry)}): expected a namespace name (a lowercase RFC 1123 label) or a prefix of one ending in "*", such as team-a or tenant-*`,
    );
    this.name = 'ReservedNamespaceEntryError';
  }
}

export const isReservedNamespaceEntryError = (err: unknown): err is ReservedNamespaceEntryError =>
  err instanceof ReservedNamespaceEntryError;

/**
 * The namespaces Flotilla refuses to take templates and policies from and to write into: the defaults plus a
 * configured list (`RESERVED_NAMESPACES`). One instance answers admission, the kube-bridge and the member-agents alike,
 * so they refuse the same namespaces with the same words.
 */
export class ReservedNamespaces {
  /** The defaults alone (DEFAULT_RESERVED_NAMESPACES). */
  static readonly defaults = new ReservedNamespaces();

  /** Every entry, the defaults first, each once. */
  readonly entries: readonly string[];

  /** Throws ReservedNamespaceEntryError on an entry that is not a namespace name or a prefix ending in `*`. */
  constructor(extra: readonly string[] = []) {
    for (const [i, entry] of extra.entries())
      if (!ENTRY.test(entry)) throw new ReservedNamespaceEntryError(entry, i + 1);
    this.entries = Object.freeze([...new Set([...DEFAULT_RESERVED_NAMESPACES, ...extra])]);
  }

  /** A comma-separated list (an environment variable's value); blanks around entries and empty entries are ignored. */
  static parse(list: string): ReservedNamespaces {
    const entries = list.split(',').map((e) => e.trim());
    for (const [i, entry] of entries.entries())
      if (entry !== '' && !ENTRY.test(entry)) throw new ReservedNamespaceEntryError(entry, i + 1);
    return new ReservedNamespaces(entries.filter((e) => e !== ''));
  }

  /** Whether `namespace` is reserved. The empty namespace (a cluster-scoped object) never is. */
  has(namespace: string | undefined): boolean {
    if (!namespace) return false;
    return this.entries.some((e) => (e.endsWith('*') ? namespace.startsWith(e.slice(0, -1)) : namespace === e));
  }

  /**
   * Why an object in `namespace` is refused, in the words every part uses (admission's message, the kube-bridge's
   * event, a member-agent's report), or undefined when the namespace is not reserved.
   */
  refusal(namespace: string | undefined): string | undefined {
    if (!this.has(namespace)) return undefined;
    return `namespace ${JSON.stringify(namespace)} is reserved (${this.entries.join(', ')}): Flotilla does not propagate from or into it`;
  }

  /** Admission's field error for an object in `namespace`, or undefined when the namespace is not reserved. */
  fieldError(namespace: string | undefined): FieldError | undefined {
    const why = this.refusal(namespace);
    return why === undefined ? undefined : { field: 'metadata.namespace', message: `Forbidden: ${why}` };
  }
}

/**
 * The configuration field every service that refuses reserved namespaces reads (`RESERVED_NAMESPACES`): a
 * comma-separated list added to the defaults; unset or empty, the defaults alone.
 */
export const reservedNamespacesEnv: z.ZodType<ReservedNamespaces, string | undefined> = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    if (raw === undefined) return ReservedNamespaces.defaults;
    try {
      return ReservedNamespaces.parse(raw);
    } catch (err) {
      if (!(err instanceof ReservedNamespaceEntryError)) throw err;
      ctx.addIssue({ code: 'custom', message: err.message });
      return z.NEVER;
    }
  });
