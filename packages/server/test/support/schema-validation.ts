/**
 * Validates documents against the JSON Schemas the service serves (packages/server/schemas/, CONTRACT section 16),
 * with Ajv's 2020-12 validator and every schema loaded, so `$ref`s between schemas resolve. Any suite may call
 * `expectSchemaValid(doc)` on what a route answered; `nsDocumentsIn(value)` finds every `ns.*` document inside an
 * answer (an object whose `schema_version` names one).
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'vitest';
import { readSchemaFolder, SCHEMA_NAME_PATTERN } from '../../src/services/schemas/schema-catalogue.ts';

// ajv-formats is CommonJS: its default export arrives wrapped depending on the loader
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv2020,
) => void;

let ajv: Ajv2020 | undefined;
const compiled = new Map<string, ValidateFunction>();

/**
 * One Ajv holding every schema of the folder. Strict about the schema itself (an unknown keyword or format, a
 * non-number bound, is an error); the usual 2020-12 idioms are allowed: `properties` or `required` under
 * `allOf` / `if`-`then` without repeating `type: object` there.
 */
export function schemaValidator(): Ajv2020 {
  if (ajv) return ajv;
  const instance = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, strictTypes: false });
  addFormats(instance);
  // the v1.1 preview documents are marked `"x-preview": true` (DESIGN issue 30): an annotation, not a constraint
  instance.addKeyword('x-preview');
  for (const entry of readSchemaFolder().values()) instance.addSchema(entry.document, entry.name);
  ajv = instance;
  return instance;
}

export function validatorFor(name: string): ValidateFunction {
  let validate = compiled.get(name);
  if (!validate) {
    const found = schemaValidator().getSchema(name);
    if (!found) throw new Error(`no schema file packages/server/schemas/${name}.schema.json`);
    validate = found;
    compiled.set(name, validate);
  }
  return validate;
}

/** The Ajv errors of `doc` against schema `name` (default: its own `schema_version`); empty when it validates. */
export function schemaErrors(doc: unknown, name?: string): string[] {
  const schema = name ?? (doc as { schema_version?: unknown } | null)?.schema_version;
  if (typeof schema !== 'string') return ['the document names no schema (`schema_version`) and none was given'];
  const validate = validatorFor(schema);
  if (validate(doc)) return [];
  return (validate.errors ?? []).map(
    (e) => `${schema}${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`,
  );
}

export function expectSchemaValid(doc: unknown, name?: string): void {
  expect(schemaErrors(doc, name)).toEqual([]);
}

/** Every object inside `value` (itself included) whose `schema_version` is an `ns.*.v<n>` name, with its pointer. */
export function nsDocumentsIn(value: unknown, pointer = ''): Array<{ pointer: string; doc: Record<string, unknown> }> {
  const found: Array<{ pointer: string; doc: Record<string, unknown> }> = [];
  if (Array.isArray(value)) {
    value.forEach((item, i) => found.push(...nsDocumentsIn(item, `${pointer}/${i}`)));
  } else if (typeof value === 'object' && value !== null) {
    const doc = value as Record<string, unknown>;
    if (typeof doc.schema_version === 'string' && SCHEMA_NAME_PATTERN.test(doc.schema_version)) {
      found.push({ pointer, doc });
    }
    for (const [key, child] of Object.entries(doc)) found.push(...nsDocumentsIn(child, `${pointer}/${key}`));
  }
  return found;
}
