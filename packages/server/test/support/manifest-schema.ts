/**
 * Validation against the published JSON Schemas of packages/server/schemas (the files GET /v1/schemas/{name} serves),
 * strict Ajv 2020-12, for the connector and listing tests.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
const SCHEMAS_DIR = new URL('../../schemas/', import.meta.url);

const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);
const compiled = new Map<string, ValidateFunction>();

/** The schema's errors for `value` as `path message` lines; empty when valid. */
export function publishedSchemaErrors(name: string, value: unknown): string[] {
  let validate = compiled.get(name);
  if (!validate) {
    const schema = JSON.parse(readFileSync(new URL(`${name}.schema.json`, SCHEMAS_DIR), 'utf8')) as object;
    validate = ajv.compile(schema);
    compiled.set(name, validate);
  }
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
}
