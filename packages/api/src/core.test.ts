import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as core from './core.js';
import * as api from './index.js';
import { genericTemplateAdmission } from './kinds/generic-template.js';
import { admissionOf } from './registry.js';

const SRC = dirname(fileURLToPath(import.meta.url));

/** Every module `file` loads, itself included, following its relative value imports (`import type` loads nothing). */
function loadedModules(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  for (const m of text.matchAll(/^(?:import|export)(?! type)[^;]*?from '([^']+)';/gms)) {
    const spec = m[1]!;
    if (spec.startsWith('.')) loadedModules(join(dirname(file), spec.replace(/\.js$/, '.ts')), seen);
    else seen.add(spec);
  }
  return seen;
}

describe('@flotilla/api/core', () => {
  it("loads no admission schemas: none of its modules imports zod or yaml, or a kind's admission", () => {
    const loaded = [...loadedModules(join(SRC, 'core.ts'))].map((f) => (f.startsWith('/') ? relative(SRC, f) : f));
    expect(loaded.filter((m) => ['zod', 'yaml'].includes(m) || m === 'registry.ts' || m === 'admission.ts')).toEqual(
      [],
    );
    // Of the kinds, only the cluster-health reasons, which hold no schema.
    expect(loaded.filter((m) => m.startsWith('kinds/'))).toEqual(['kinds/cluster-health.ts']);
  });

  it("exports the same values as @flotilla/api, and its kinds are the registry's", () => {
    for (const [name, value] of Object.entries(core)) expect(api[name as keyof typeof api], name).toBe(value);
    expect(core.listKinds()).toEqual(api.listKinds());
    // Each kind the table calls strict has a whole-object admission, the others a template's (or the generic one).
    for (const info of core.listKinds()) {
      const admission = admissionOf(info.kind);
      expect(admission !== genericTemplateAdmission && !admission?.resourceTemplate, info.kind).toBe(info.strict);
    }
    const remove = api.registerKind({
      group: 'example.com',
      version: 'v1',
      kind: 'Gadget',
      plural: 'gadgets',
      namespaced: true,
    });
    try {
      expect(core.resolveKind('gadgets')).toMatchObject({ kind: 'Gadget', strict: false });
    } finally {
      remove();
    }
    expect(core.listKinds().map((k) => k.kind)).not.toContain('Gadget');
  });
});
