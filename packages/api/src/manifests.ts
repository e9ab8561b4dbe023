import { parseAllDocuments, stringify, type YAMLError } from 'yaml';
import { ManifestError } from './errors.js';
import { isPlainObject } from './object.js';

function reasonOf(err: YAMLError): string {
  // The library appends " at line L, column C:" and a code frame; the line is reported separately.
  return err.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
}

/**
 * Parses multi-document YAML (or JSON) as kubectl does: empty documents are skipped and a `kind: List` is expanded
 * into its items. A syntax error throws ManifestError naming the document (from 1) and the line.
 */
export function parseManifests(text: string): unknown[] {
  const docs = parseAllDocuments(text, { uniqueKeys: true, prettyErrors: true });
  const list = Array.isArray(docs) ? docs : [docs];
  const out: unknown[] = [];
  list.forEach((doc, i) => {
    const err = doc.errors[0];
    if (err) throw new ManifestError(i + 1, err.linePos?.[0].line, reasonOf(err), { cause: err });
    if (doc.contents === null) return;
    let value: unknown;
    try {
      // maxAliasCount bounds alias expansion ("billion laughs"); unresolved aliases also surface here.
      value = doc.toJS({ maxAliasCount: 100 });
    } catch (e) {
      throw new ManifestError(i + 1, undefined, (e as Error).message, { cause: e });
    }
    if (value === null || value === undefined) return;
    if (isPlainObject(value) && value.kind === 'List' && Array.isArray(value.items)) out.push(...value.items);
    else out.push(value);
  });
  return out;
}

/** YAML as kubectl prints it: block style, no line folding, no anchors for repeated objects. */
export function toYaml(obj: unknown): string {
  return stringify(obj, { lineWidth: 0, aliasDuplicateObjects: false });
}
