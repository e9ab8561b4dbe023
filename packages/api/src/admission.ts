import { AdmissionError, UnknownKindError, WrongApiVersionError, type FieldError } from './errors.js';
import { issuesToFieldErrors } from './field-path.js';
import { inputShapeErrors } from './input-shape.js';
import { aboutRemoved, typedRemainder } from './typed-remainder.js';
import type { ScheduleChecks } from './kinds/kind-admission.js';
import { objectMetaSchema, validateObjectMeta, type ObjectMeta } from './meta.js';
import { isPlainObject, type KubeObject } from './object.js';
import { admissionOf, kindOf } from './registry.js';
import type { KindInfo } from './registry-types.js';
import { ReservedNamespaces } from './reserved-namespaces.js';

/** Largest object admitted, in bytes of JSON: NATS' default max payload is 1 MiB, and an envelope rides along. */
export const MAX_OBJECT_BYTES = 900 * 1024;

export const DEFAULT_NAMESPACE = 'default';

export interface AdmitOptions {
  /** The stored object this one replaces; enables the update checks (immutable identity and kind-specific fields). */
  existing?: KubeObject;
  /** Cron and time zone checks (the cron package's); every entry point that admits user input passes them. */
  schedules?: ScheduleChecks;
  /**
   * Namespaces no namespaced object may be in (a template or policy there would be propagated from Kubernetes' or
   * Flotilla's own namespace); the defaults (`kube-*`, `flotilla-system`) unless the caller configured more.
   */
  reservedNamespaces?: ReservedNamespaces;
}

function lookupKind(apiVersion: string, kind: string): KindInfo | string {
  try {
    return kindOf(apiVersion, kind);
  } catch (err) {
    if (err instanceof UnknownKindError) return `no kind ${JSON.stringify(kind)} is registered`;
    if (err instanceof WrongApiVersionError) return err.message;
    throw err;
  }
}

function typeName(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

/**
 * Defaulting then validation, as a Kubernetes mutating and validating webhook pair would do. Returns a defaulted
 * copy (the input is not changed). Throws AdmissionError listing every field error found.
 */
export function admit(input: unknown, opts: AdmitOptions = {}): KubeObject {
  if (!isPlainObject(input)) {
    throw new AdmissionError(undefined, undefined, [
      { field: '', message: `Invalid value: an object must be a mapping, got ${typeName(input)}` },
    ]);
  }
  const kindName = typeof input.kind === 'string' ? input.kind : undefined;
  const meta = isPlainObject(input.metadata) ? input.metadata : undefined;
  const objectName = typeof meta?.name === 'string' ? meta.name : undefined;
  const reject = (causes: FieldError[]): never => {
    throw new AdmissionError(kindName, objectName, causes);
  };

  // First, and alone: what follows recurses over the object and would overflow on it or misreport it.
  const shapeErrs = inputShapeErrors(input);
  if (shapeErrs.length) reject(shapeErrs);

  const size = Buffer.byteLength(JSON.stringify(input));
  if (size > MAX_OBJECT_BYTES)
    reject([{ field: '', message: `Too long: the object is ${size} bytes of JSON, the limit is ${MAX_OBJECT_BYTES}` }]);

  const typeErrs: FieldError[] = [];
  for (const f of ['apiVersion', 'kind'] as const) {
    if (input[f] === undefined || input[f] === '') typeErrs.push({ field: f, message: 'Required value' });
    else if (typeof input[f] !== 'string')
      typeErrs.push({ field: f, message: `Invalid value: expected string, got ${typeName(input[f])}` });
  }
  if (typeErrs.length) reject(typeErrs);

  let info: KindInfo;
  try {
    info = kindOf(input.apiVersion as string, input.kind as string);
  } catch (err) {
    if (err instanceof UnknownKindError)
      throw new AdmissionError(kindName, objectName, [{ field: 'kind', message: `Invalid value: ${err.message}` }], {
        cause: err,
      });
    if (err instanceof WrongApiVersionError)
      throw new AdmissionError(
        kindName,
        objectName,
        [{ field: 'apiVersion', message: `Invalid value: ${err.message}` }],
        { cause: err },
      );
    throw err;
  }
  const admission = admissionOf(info.kind)!;
  const reserved = opts.reservedNamespaces ?? ReservedNamespaces.defaults;

  // 1. Defaulting, on a private copy.
  const obj = structuredClone(input) as Record<string, unknown>;
  const errs: FieldError[] = [];
  if (obj.metadata === undefined) obj.metadata = {};
  if (isPlainObject(obj.metadata)) {
    const m = obj.metadata;
    if (m.creationTimestamp === null) delete m.creationTimestamp; // kubectl's dry-run output carries `creationTimestamp: null`
    if (m.namespace === '') delete m.namespace;
    if (info.namespaced && m.namespace === undefined) m.namespace = DEFAULT_NAMESPACE;
    const namespace = info.namespaced && typeof m.namespace === 'string' ? m.namespace : undefined;
    const refused = reserved.fieldError(namespace);
    if (refused) errs.push(refused);
    if (!info.namespaced && m.namespace !== undefined) {
      errs.push({
        field: 'metadata.namespace',
        message: `Forbidden: ${info.kind} is cluster-scoped, it must not have a namespace`,
      });
    }
  }
  admission.defaults?.(obj);

  // 2. Structure: metadata, then the kind's schema.
  const metaResult = objectMetaSchema.safeParse(obj.metadata, { reportInput: true });
  if (!metaResult.success) errs.push(...issuesToFieldErrors(metaResult.error.issues, 'metadata'));
  else
    errs.push(
      ...validateObjectMeta(
        metaResult.data as ObjectMeta,
        admission.nameRule ? { nameIsLabel: true, nameMaxLength: admission.nameRule.maxLength } : {},
      ),
    );
  const result = admission.schema.safeParse(obj, { reportInput: true });
  if (!result.success) errs.push(...issuesToFieldErrors(result.error.issues));

  // 3. Semantics, only on a well-typed object (the rules trust the types): the object itself, or what is left of it
  // once the fields the schema rejected are taken out.
  if (metaResult.success) {
    const ctx = { lookupKind, schedules: opts.schedules, reservedNamespaces: reserved };
    if (result.success) {
      errs.push(...(admission.validate?.(obj as never, ctx) ?? []));
      if (opts.existing) errs.push(...validateUpdate(opts.existing, obj as unknown as KubeObject));
    } else if (admission.validate) {
      const rest = typedRemainder(obj, admission.schema, result.error.issues);
      if (rest)
        errs.push(...admission.validate(rest.object as never, ctx).filter((e) => !aboutRemoved(e, rest.removed)));
    }
  }
  if (errs.length) reject(errs);
  return obj as unknown as KubeObject;
}

/**
 * Warnings about an admitted object (Kubernetes' admission warnings: accepted, but probably not what was meant),
 * each naming its field: a reference whose apiVersion is not the one its kind is served as (Karmada's proposal
 * samples name `app/v1` Deployments; Karmada accepts them as written, and so does Flotilla).
 */
export function admissionWarnings(object: KubeObject): string[] {
  const references = admissionOf(object.kind)?.references?.(object as never) ?? [];
  const warnings: string[] = [];
  for (const ref of references) {
    if (!ref.apiVersion || !ref.kind) continue;
    try {
      kindOf(ref.apiVersion, ref.kind);
    } catch (err) {
      // A kind Flotilla does not know (any kind can be a template) has no apiVersion to compare with.
      if (err instanceof UnknownKindError) continue;
      if (!(err instanceof WrongApiVersionError)) throw err;
      warnings.push(
        `${ref.at}.apiVersion: unknown apiVersion ${JSON.stringify(ref.apiVersion)} for kind ${ref.kind} (served as ${err.servedApiVersion}); accepted as written`,
      );
    }
  }
  return warnings;
}

/** Update rules: identity (kind, name, namespace, uid) never changes, plus the kind's own immutable fields. */
export function validateUpdate(oldObj: KubeObject, newObj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (oldObj.kind !== newObj.kind)
    errs.push({
      field: 'kind',
      message: `Invalid value: ${JSON.stringify(newObj.kind)}: field is immutable (was ${JSON.stringify(oldObj.kind)})`,
    });
  const om = oldObj.metadata ?? ({} as ObjectMeta);
  const nm = newObj.metadata ?? ({} as ObjectMeta);
  if (om.name !== nm.name)
    errs.push({ field: 'metadata.name', message: `Invalid value: ${JSON.stringify(nm.name)}: field is immutable` });
  if ((om.namespace ?? '') !== (nm.namespace ?? ''))
    errs.push({
      field: 'metadata.namespace',
      message: `Invalid value: ${JSON.stringify(nm.namespace ?? '')}: field is immutable`,
    });
  if (om.uid && nm.uid && om.uid !== nm.uid)
    errs.push({ field: 'metadata.uid', message: `Invalid value: ${JSON.stringify(nm.uid)}: field is immutable` });
  if (oldObj.kind === newObj.kind) {
    const admission = admissionOf(newObj.kind);
    errs.push(...(admission?.validateUpdate?.(oldObj as never, newObj as never) ?? []));
  }
  return errs;
}
