/**
 * docs/configuration.md's reference, generated from the services' environment schemas: each variable's default is
 * what the schema yields for an unset variable, what it accepts is the schema's own message for a bad value, and its
 * meaning is the doc comment above it in the schema's source. A variable without a doc comment is an error, so a new
 * variable cannot reach the reference undocumented.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { SERVICE_NAMES, type ServiceName } from '@flotilla/catalogue';
import { baseConfigSchema } from '@flotilla/runtime';
import { configSchema as affinitySchedulerSchema } from '../../services/affinity-scheduler/src/config.js';
import { configSchema as cronSchedulerSchema } from '../../services/cron-scheduler/src/config.js';
import { configSchema as gatewaySchema } from '../../services/gateway/src/config.js';
import { configSchema as hpaAssignerSchema } from '../../services/hpa-assigner/src/config.js';
import { configSchema as kubeBridgeSchema } from '../../services/kube-bridge/src/config.js';
import { memberAgentConfigSchema } from '../../services/member-agent/src/config.js';
import { configSchema as rebalancerSchema } from '../../services/rebalancer/src/config.js';
import { configSchema as statusWriterSchema } from '../../services/status-writer/src/config.js';

/** What the reference needs of a zod object schema (the root package does not depend on zod itself). */
interface EnvSchema {
  readonly shape: Readonly<Record<string, unknown>>;
  safeParse(
    input: unknown,
  ):
    | { success: true; data: unknown }
    | { success: false; error: { issues: ReadonlyArray<{ path: readonly PropertyKey[]; message: string }> } };
}

/** One environment schema and the source file whose doc comments describe its variables. */
export interface SchemaSource {
  schema: EnvSchema;
  /** Relative to the repository root. */
  file: string;
}

export const BASE_SCHEMA: SchemaSource = { schema: baseConfigSchema, file: 'packages/runtime/src/config.ts' };

/** Every service's schema; test/docs.test.ts checks that every service of the catalogue has one. */
export const SERVICE_SCHEMAS: Readonly<Record<ServiceName, SchemaSource>> = {
  gateway: { schema: gatewaySchema, file: 'services/gateway/src/config.ts' },
  'status-writer': { schema: statusWriterSchema, file: 'services/status-writer/src/config.ts' },
  'member-agent': { schema: memberAgentConfigSchema, file: 'services/member-agent/src/config.ts' },
  'affinity-scheduler': { schema: affinitySchedulerSchema, file: 'services/affinity-scheduler/src/config.ts' },
  'cron-scheduler': { schema: cronSchedulerSchema, file: 'services/cron-scheduler/src/config.ts' },
  'hpa-assigner': { schema: hpaAssignerSchema, file: 'services/hpa-assigner/src/config.ts' },
  rebalancer: { schema: rebalancerSchema, file: 'services/rebalancer/src/config.ts' },
  'kube-bridge': { schema: kubeBridgeSchema, file: 'services/kube-bridge/src/config.ts' },
};

/** A schema variable with no doc comment in its source. */
export class UndocumentedVariableError extends Error {
  constructor(readonly variables: readonly string[]) {
    super(`no doc comment above ${variables.join(', ')}: say what each variable changes where the schema defines it`);
    this.name = 'UndocumentedVariableError';
  }
}

export const isUndocumentedVariableError = (err: unknown): err is UndocumentedVariableError =>
  err instanceof UndocumentedVariableError;

export interface ConfigVariable {
  name: string;
  /** The value an unset variable yields, as text; undefined when it stays unset. */
  default: string | undefined;
  /** What a bad value is told it should be; undefined when the schema takes any string. */
  accepts: string | undefined;
  doc: string;
}

/** A value no variable accepts as it stands (a probe for the schema's own "expected ..." message). */
const PROBE = '\u0000';

const VARIABLE_NAME = /^[A-Z][A-Z0-9_]*$/;

/** The doc comment of every UPPER_CASE property in the file's object literals, by name. */
export function docComments(root: string, file: string): Map<string, string> {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const docs = new Map<string, string>();
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && VARIABLE_NAME.test(node.name.text)) {
      const text = ts
        .getJSDocCommentsAndTags(node)
        .filter(ts.isJSDoc)
        .map((d) => ts.getTextOfJSDocComment(d.comment) ?? '')
        .join(' ')
        .replace(/\s+/g, ' ')
        .trim();
      if (text !== '') docs.set(node.name.text, text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return docs;
}

function durationHint(ms: number): string {
  const units: Array<[number, string]> = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'min'],
    [1000, 's'],
  ];
  for (const [size, unit] of units) if (ms >= size && ms % size === 0) return ` (${ms / size} ${unit})`;
  return '';
}

function shownDefault(name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number') return `${value}${name.endsWith('_MS') ? durationHint(value) : ''}`;
  if (typeof value === 'string' || typeof value === 'boolean') return String(value);
  // A parsed value (RESERVED_NAMESPACES' list): its default adds nothing to what the doc comment says.
  return undefined;
}

function acceptsMessage(schema: EnvSchema, name: string): string | undefined {
  const result = schema.safeParse({ [name]: PROBE });
  if (result.success) return undefined;
  const issue = result.error.issues.find((i) => i.path[0] === name);
  // A list's message names the entry ("entry 1 (\"…\"): …"): the probe is the only entry.
  return issue?.message.replace(/^entry 1( \([^)]*\))?: /, '');
}

/** The variables a schema reads, in its order, with their defaults, accepted values and docs. */
export function configVariables(root: string, source: SchemaSource, names?: readonly string[]): ConfigVariable[] {
  const docs = docComments(root, source.file);
  const defaults = source.schema.safeParse({});
  const values = (defaults.success ? defaults.data : {}) as Record<string, unknown>;
  const wanted = names ?? Object.keys(source.schema.shape);
  const undocumented = wanted.filter((n) => !docs.has(n));
  if (undocumented.length > 0) throw new UndocumentedVariableError(undocumented.map((n) => `${n} (${source.file})`));
  return wanted.map((name) => ({
    name,
    default: shownDefault(name, values[name]),
    accepts: acceptsMessage(source.schema, name),
    doc: docs.get(name) as string,
  }));
}

/**
 * Text for a table cell: pipes escaped, and outside code spans the characters Markdown would take for emphasis or
 * HTML (`kube-*` is a pattern, not the start of an emphasis).
 */
function cell(text: string): string {
  return text
    .split(/(`[^`]*`)/)
    .map((part) => (part.startsWith('`') ? part : part.replace(/[*_<>]/g, (c) => `\\${c}`)))
    .join('')
    .replace(/\|/g, '\\|');
}

function table(variables: readonly ConfigVariable[]): string {
  const rows = variables.map(
    (v) =>
      `| \`${v.name}\` | ${v.default === undefined ? 'unset' : cell(`\`${v.default}\``)} | ${cell(v.accepts ?? 'any text')} | ${cell(v.doc)} |`,
  );
  return ['| variable | default | accepts | meaning |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

/** The Markdown of docs/configuration.md's generated block: the base variables, then each service's own. */
export function renderConfigReference(root: string): string {
  const base = Object.keys(BASE_SCHEMA.schema.shape);
  const sections = [
    `## Every service\n\nRead by every service (\`${BASE_SCHEMA.file}\`).\n\n${table(configVariables(root, BASE_SCHEMA))}`,
  ];
  for (const service of SERVICE_NAMES) {
    const source = SERVICE_SCHEMAS[service];
    const own = Object.keys(source.schema.shape).filter((n) => !base.includes(n));
    const body =
      own.length === 0
        ? 'Nothing beyond the variables every service reads.'
        : table(configVariables(root, source, own));
    sections.push(`## ${service}\n\n\`${source.file}\`\n\n${body}`);
  }
  return sections.join('\n\n');
}
