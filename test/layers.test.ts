// The layer order of docs/design/layers.md, and manifests that say what the code imports: read from the files
// themselves, so a new package under packages/ or services/ is checked without touching this test.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

interface Workspace {
  /** `packages/api`, `services/gateway`, … */
  dir: string;
  manifest: Manifest;
  /** Bare import specifiers of non-test sources, reduced to package names. */
  imports: Set<string>;
  /** The same for test files (`*.test.ts` and `testing/` helpers). */
  testImports: Set<string>;
  /** Files with their source text, for the model checks. */
  sources: Array<{ file: string; text: string; test: boolean }>;
}

/** Package layers as the design document's table states them: `| \`packages/api\` | 0 | … |`. */
function readLayers(markdown: string): Map<string, number> {
  const layers = new Map<string, number>();
  for (const m of markdown.matchAll(/^\|\s*`([^`]+)`\s*\|\s*(\d+)\s*\|/gm)) layers.set(m[1]!, Number(m[2]));
  return layers;
}

/** The package an import specifier names (`@flotilla/bus/testing` → `@flotilla/bus`), or undefined for relative and node: ones. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('node:') || builtinModules.includes(specifier))
    return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** The compiler's own pre-scan of a file's imports (static, dynamic and re-exports); strings and comments never count. */
function importedPackages(text: string): string[] {
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map((f) => packageOf(f.fileName))
    .filter((p): p is string => p !== undefined);
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** A glob of a tsconfig `exclude` as a regular expression over paths relative to the repository root. */
function globToRegExp(dir: string, glob: string): RegExp {
  const body = `${dir}/${glob}`
    .split(/(\*\*\/?|\*)/)
    .map((part) =>
      part === '**/'
        ? '(?:.*/)?'
        : part === '**'
          ? '.*'
          : part === '*'
            ? '[^/]*'
            : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('');
  return new RegExp(`^${body}$`);
}

/** Test files are what the package's build leaves out (`*.test.ts`, test harnesses). */
function testFileMatcher(dir: string): (file: string) => boolean {
  const tsconfig = JSON.parse(readFileSync(join(root, dir, 'tsconfig.json'), 'utf8')) as { exclude?: string[] };
  const excluded = (tsconfig.exclude ?? []).map((g) => globToRegExp(dir, g));
  return (file) => file.endsWith('.test.ts') || excluded.some((re) => re.test(file.split('\\').join('/')));
}

function loadWorkspaces(): Workspace[] {
  return ['packages', 'services'].flatMap((group) =>
    readdirSync(join(root, group))
      .filter((name) => existsSync(join(root, group, name, 'package.json')))
      .map((name) => {
        const dir = `${group}/${name}`;
        const manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as Manifest;
        const isTestFile = testFileMatcher(dir);
        const imports = new Set<string>();
        const testImports = new Set<string>();
        const sources = walk(join(root, dir, 'src')).map((path) => {
          const file = relative(root, path);
          return { file, text: readFileSync(path, 'utf8'), test: isTestFile(file) };
        });
        for (const { text, test } of sources) {
          for (const p of importedPackages(text)) if (p !== manifest.name) (test ? testImports : imports).add(p);
        }
        return { dir, manifest, imports, testImports, sources };
      }),
  );
}

const workspaces = loadWorkspaces();
const byName = new Map(workspaces.map((w) => [w.manifest.name, w]));
const layers = readLayers(readFileSync(join(root, 'docs/design/layers.md'), 'utf8'));
const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;
/** Tools every package's tests get from the root (vitest and the like), not from their own manifest. */
const rootTools = new Set(Object.keys(rootManifest.devDependencies ?? {}).filter((d) => !d.startsWith('@flotilla/')));

const deps = (w: Workspace) => Object.keys(w.manifest.dependencies ?? {});
const devDeps = (w: Workspace) => Object.keys(w.manifest.devDependencies ?? {});
const isWorkspace = (name: string) => byName.has(name);

describe('package layers', () => {
  it('the packages are found', () => {
    expect(workspaces.map((w) => w.dir)).toEqual(
      expect.arrayContaining(['packages/api', 'packages/bus', 'services/gateway']),
    );
  });

  it.each(workspaces.map((w) => [w.dir, w] as const))('%s has a layer in docs/design/layers.md', (dir) => {
    expect(layers.get(dir), `add a row for ${dir}`).toBeTypeOf('number');
  });

  it.each(workspaces.map((w) => [w.dir, w] as const))('%s imports no package of a higher layer', (dir, w) => {
    const own = layers.get(dir)!;
    const upward = [...w.imports, ...w.testImports]
      .filter(isWorkspace)
      .map((name) => ({ name, layer: layers.get(byName.get(name)!.dir) }))
      .filter((d) => d.layer === undefined || d.layer > own);
    expect(upward).toEqual([]);
  });

  it('the workspace dependency graph has no cycle, development dependencies included', () => {
    const edges = new Map(workspaces.map((w) => [w.manifest.name, [...deps(w), ...devDeps(w)].filter(isWorkspace)]));
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (name: string, path: string[]): void => {
      if (state.get(name) === 'done') return;
      if (state.get(name) === 'open') {
        cycles.push([...path.slice(path.indexOf(name)), name].join(' -> '));
        return;
      }
      state.set(name, 'open');
      for (const next of edges.get(name) ?? []) visit(next, [...path, name]);
      state.set(name, 'done');
    };
    for (const name of edges.keys()) visit(name, []);
    expect(cycles).toEqual([]);
  });
});

describe('package manifests say what the code imports', () => {
  it.each(workspaces.map((w) => [w.dir, w] as const))('%s: every import is declared', (_dir, w) => {
    const declared = new Set(deps(w));
    const declaredForTests = new Set([...declared, ...devDeps(w), ...rootTools]);
    expect(
      [...w.imports].filter((p) => !declared.has(p)),
      'imported by sources, missing from dependencies',
    ).toEqual([]);
    expect(
      [...w.testImports].filter((p) => !declaredForTests.has(p)),
      'imported by tests, missing from devDependencies',
    ).toEqual([]);
  });

  it.each(workspaces.map((w) => [w.dir, w] as const))('%s: every declared package is imported', (_dir, w) => {
    expect(
      deps(w).filter((d) => !w.imports.has(d)),
      'dependencies no source imports',
    ).toEqual([]);
    expect(
      devDeps(w).filter((d) => !w.testImports.has(d) && !w.imports.has(d)),
      'devDependencies no test imports',
    ).toEqual([]);
  });

  it.each(workspaces.map((w) => [w.dir, w] as const))(
    '%s: tsconfig references are its workspace dependencies',
    (dir, w) => {
      const tsconfig = JSON.parse(readFileSync(join(root, dir, 'tsconfig.json'), 'utf8')) as {
        references?: Array<{ path: string }>;
      };
      const referenced = (tsconfig.references ?? []).map((r) => relative(root, resolve(root, dir, r.path))).sort();
      expect(referenced).toEqual(
        deps(w)
          .filter(isWorkspace)
          .map((name) => byName.get(name)!.dir)
          .sort(),
      );
    },
  );
});

describe('one model', () => {
  const api = workspaces.find((w) => w.dir === 'packages/api')!;
  /** Every type the API declares for its kinds and their metadata. */
  const modelTypes = new Set(
    api.sources
      .filter(({ file, test }) => !test && /[/\\](kinds[/\\][^/\\]+|meta|object|conditions)\.ts$/.test(file))
      .flatMap(({ text }) => [...text.matchAll(/^export\s+(?:interface|type)\s+([A-Z]\w*)/gm)].map((m) => m[1]!)),
  );

  it('the API declares the kinds', () => {
    expect([...modelTypes]).toEqual(
      expect.arrayContaining([
        'Cluster',
        'ResourceBinding',
        'PropagationPolicy',
        'FederatedHPA',
        'ObjectMeta',
        'Taint',
      ]),
    );
  });

  /**
   * A declaration named like an API type restates it, unless it is an alias derived from the API (`type Taint =
   * Loose<api.Taint>`, a `Pick` or `Partial` of it): an interface, or an alias whose definition does not go through
   * the API's namespace import, writes the shape again.
   */
  function restatements(text: string): string[] {
    const declarations = [
      ...text.matchAll(/^\s*(?:export\s+)?(interface|type)\s+([A-Z]\w*)\s*(?:<[^>]*>\s*)?(?:=|\{|extends\b)/gm),
    ];
    return declarations
      .filter((m, i) => {
        if (!modelTypes.has(m[2]!)) return false;
        if (m[1] === 'interface') return true;
        const definition = text.slice(m.index, declarations[i + 1]?.index ?? text.length);
        return !/\bapi\.[A-Z]\w*/.test(definition);
      })
      .map((m) => m[2]!);
  }

  it('a derived alias is not a restatement, a copied shape is', () => {
    expect(restatements('export type Taint = Loose<api.Taint>;\nexport type Cluster = View<api.Cluster, {}>;')).toEqual(
      [],
    );
    expect(
      restatements('export interface Taint {\n  key: string;\n}\nexport type Cluster = { metadata: unknown };'),
    ).toEqual(['Taint', 'Cluster']);
  });

  /** The property names of every type the API exports, as the compiler resolves them (zod-inferred ones included). */
  const apiShapes = (() => {
    const index = join(root, 'packages/api/src/index.ts');
    const program = ts.createProgram([index], {
      strict: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      skipLibCheck: true,
      noEmit: true,
    });
    const checker = program.getTypeChecker();
    const shapes = new Map<string, Set<string>>();
    for (const exported of checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(index)!)!)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      if (!(symbol.flags & (ts.SymbolFlags.TypeAlias | ts.SymbolFlags.Interface))) continue;
      const props = checker
        .getDeclaredTypeOfSymbol(symbol)
        .getProperties()
        .map((p) => p.name);
      if (props.length >= 3) shapes.set(exported.name, new Set(props));
    }
    return shapes;
  })();
  /** Fields every object or reference has: a shape of only these is an envelope, not a copy of one kind. */
  const ENVELOPE = new Set(['apiVersion', 'kind', 'metadata', 'spec', 'status', 'name', 'namespace']);

  /**
   * Shapes written out again under another name (`BindingSpecView { resource, clusters, replicaRequirements }`): an
   * interface or object type, at any depth, with three or more properties, one of them beyond the envelope, all of
   * them properties of one API type. A view derived with `Pick`/`Partial` of the API's type writes no properties.
   */
  function renamedCopies(text: string): string[] {
    const file = ts.createSourceFile('x.ts', text, ts.ScriptTarget.ES2022, true);
    const found: string[] = [];
    const visit = (node: ts.Node): void => {
      const members = ts.isInterfaceDeclaration(node) || ts.isTypeLiteralNode(node) ? node.members : undefined;
      if (members) {
        const props = members.filter(ts.isPropertySignature).map((m) => m.name.getText(file).replace(/['"]/g, ''));
        if (props.length >= 3 && props.some((p) => !ENVELOPE.has(p))) {
          const copied = [...apiShapes].find(([, shape]) => props.every((p) => shape.has(p)));
          if (copied) {
            const where = ts.isInterfaceDeclaration(node)
              ? node.name.text
              : `line ${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}`;
            found.push(`${where} {${props.join(', ')}} copies api's ${copied[0]}`);
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
    return found;
  }

  it('a renamed copy of an API type is found, a view derived from it is not', () => {
    expect(
      renamedCopies(
        'interface BindingSpecView {\n  resource?: unknown;\n  clusters?: unknown[];\n  replicaRequirements?: unknown;\n}\n' +
          'type BindingView = { metadata: { name: string }; spec: { resource: R; rescheduleTriggeredAt?: string; clusters?: C[] } };',
      ),
    ).toEqual([
      "BindingSpecView {resource, clusters, replicaRequirements} copies api's ResourceBindingSpec",
      "line 6 {resource, rescheduleTriggeredAt, clusters} copies api's ResourceBindingSpec",
    ]);
    expect(
      renamedCopies(
        "type BindingSpecRead = Partial<Pick<ResourceBindingSpec, 'resource' | 'clusters' | 'replicaRequirements'>>;\n" +
          'interface MemberReport { cluster: string; clusterReady: boolean; specReplicas: number }\n' +
          'interface Ref { apiVersion: string; kind: string; name: string }',
      ),
    ).toEqual([]);
  });

  it.each(workspaces.filter((w) => w !== api).map((w) => [w.dir, w] as const))(
    '%s copies no type of the API under another name',
    (_dir, w) => {
      const copies = w.sources
        .filter(({ test }) => !test)
        .flatMap(({ file, text }) => renamedCopies(text).map((c) => `${file}: ${c}`));
      expect(copies).toEqual([]);
    },
  );

  it.each(workspaces.filter((w) => w !== api).map((w) => [w.dir, w] as const))(
    '%s restates no type of the API',
    (_dir, w) => {
      const restated = w.sources.flatMap(({ file, text }) => restatements(text).map((name) => `${file}: ${name}`));
      expect(restated).toEqual([]);
    },
  );
});
