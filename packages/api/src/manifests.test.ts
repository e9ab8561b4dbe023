import { describe, expect, it } from 'vitest';
import { ManifestError } from './errors.js';
import { parseManifests, toYaml } from './manifests.js';

function manifestError(text: string): ManifestError {
  try {
    parseManifests(text);
  } catch (err) {
    if (err instanceof ManifestError) return err;
    throw err;
  }
  throw new Error('expected a ManifestError');
}

describe('parseManifests', () => {
  it('splits documents and skips empty ones', () => {
    const text =
      '---\n# only a comment\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n---\nkind: B\n...\n';
    expect(parseManifests(text)).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } },
      { kind: 'B' },
    ]);
  });

  it.each(['', '   \n', '---\n', '# nothing\n', '~\n'])('returns nothing for %j', (text) => {
    expect(parseManifests(text)).toEqual([]);
  });

  it('accepts JSON', () => {
    expect(parseManifests('{"kind": "A", "spec": {"replicas": 2}}')).toEqual([{ kind: 'A', spec: { replicas: 2 } }]);
  });

  it('expands a kind: List into its items', () => {
    const text = 'apiVersion: v1\nkind: List\nitems:\n- {kind: A}\n- {kind: B}\n---\nkind: C\n';
    expect(parseManifests(text)).toEqual([{ kind: 'A' }, { kind: 'B' }, { kind: 'C' }]);
  });

  it('keeps YAML 1.2 scalars: quoted cron schedules stay strings, yes/no stay strings', () => {
    expect(parseManifests('schedule: "30 08 * * *"\nflag: yes\ntz: "0"\nn: 010\n')).toEqual([
      { schedule: '30 08 * * *', flag: 'yes', tz: '0', n: 10 },
    ]);
  });

  it.each([
    ['kind: A\n---\nkind: B\n  bad: indent\n', 2, 3],
    ['a: [1, 2\n', 1, 2],
    ['kind: A\nkind: B\n', 1, 2],
    ['kind: A\n---\nkind: B\n---\nmetadata:\n  name: "unterminated\n', 3, 7],
    ['a: b\n\tc: d\n', 1, 2],
  ])('reports the document and line of a YAML error in %j', (text, document, line) => {
    const err = manifestError(text);
    expect(err.document).toBe(document);
    expect(err.line).toBe(line);
    expect(err.message).toMatch(new RegExp(`^yaml: document ${document}, line ${line}: \\S`));
  });

  it('reports an unresolved alias and an alias bomb by document', () => {
    expect(manifestError('kind: A\n---\na: *x\n').message).toMatch(/^yaml: document 2: Unresolved alias/);
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      ...'bcdefgh'.split('').map((k, i) => `${k}: &${k} [${Array(10).fill(`*${'abcdefgh'[i]}`).join(', ')}]`),
    ].join('\n');
    expect(manifestError(bomb).document).toBe(1);
  });
});

describe('toYaml', () => {
  it('prints block YAML without folding or anchors, and round-trips', () => {
    const shared = { clusterNames: ['m1'] };
    const obj = {
      kind: 'X',
      a: shared,
      b: shared,
      long: 'x '.repeat(100).trim(),
      schedule: '30 08 * * *',
      n: '010',
      on: 'yes',
    };
    const text = toYaml(obj);
    expect(text).not.toContain('&');
    expect(text).not.toContain('*a');
    expect(text.split('\n').find((l) => l.startsWith('long:'))).toHaveLength(6 + 199);
    expect(parseManifests(text)).toEqual([obj]);
  });
});
