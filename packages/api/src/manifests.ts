import { parseAllDocuments, stringify, type YAMLError } from 'yaml';
import { ManifestError } from './errors.js';
import { inputShapeErrors, MAX_NESTING_DEPTH } from './input-shape.js';
import { isPlainObject } from './object.js';

function reasonOf(err: YAMLError): string {
  // The library appends " at line L, column C:" and a code frame; the line is reported separately.
  return err.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
}

function tooDeep(document: number, cause: unknown): ManifestError {
  return new ManifestError(document, undefined, `nested more than ${MAX_NESTING_DEPTH} levels deep`, { cause });
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
    // The parser reports its own stack overflow as a syntax error; the cause is the nesting, so say that.
    if (err?.message.includes('Maximum call stack size exceeded')) throw tooDeep(i + 1, err);
    if (err) throw new ManifestError(i + 1, err.linePos?.[0].line, reasonOf(err), { cause: err });
    if (doc.contents === null) return;
    let value: unknown;
    try {
      // maxAliasCount bounds alias expansion ("billion laughs"); unresolved aliases also surface here.
      value = doc.toJS({ maxAliasCount: 100 });
    } catch (e) {
      if (e instanceof RangeError) throw tooDeep(i + 1, e);
      throw new ManifestError(i + 1, undefined, (e as Error).message, { cause: e });
    }
    if (value === null || value === undefined) return;
    // Checked here because JSON cannot carry them: NaN and Infinity would reach the gateway as null.
    const shapeErr = inputShapeErrors(value, { prototypeKeys: 'allowed' })[0];
    if (shapeErr) throw new ManifestError(i + 1, undefined, `${shapeErr.field || '(document)'}: ${shapeErr.message}`);
    if (isPlainObject(value) && value.kind === 'List' && Array.isArray(value.items)) out.push(...value.items);
    else out.push(value);
  });
  return out;
}

/** YAML as kubectl prints it: block style, no line folding, no anchors for repeated objects. */
export function toYaml(obj: unknown): string {
  return stringify(obj, { lineWidth: 0, aliasDuplicateObjects: false });
}
