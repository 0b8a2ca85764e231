/**
 * Shared by the AuthZEN suites: validation of answers against the project's AuthZEN JSON Schemas
 * (routes/authzen-schemas.ts, written from the AuthZEN 1.0 text) with Ajv 2020-12, and the vectors file's location.
 */
import { existsSync, readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { TSchema } from 'typebox';
import { expect } from 'vitest';

const ajv = new Ajv2020({ allErrors: true, strict: false });
const compiled = new WeakMap<TSchema, ValidateFunction>();

/** Fails with Ajv's errors when `value` does not validate against `schema`. */
export function expectAuthzenShape(value: unknown, schema: TSchema): void {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(JSON.parse(JSON.stringify(schema)) as object);
    compiled.set(schema, validate);
  }
  const ok = validate(value);
  expect(ok ? [] : validate.errors).toEqual([]);
}

export const VECTORS_FILE = '/work/shared/vectors/authzen/decisions-authorization-api-1_0-02.json';

export interface TodoVectors {
  evaluation: Array<{ request: Record<string, unknown>; expected: boolean }>;
  evaluations: Array<{ request: Record<string, unknown>; expected: Array<{ decision: boolean }> }>;
}

/** The vectors, or undefined (with a printed notice) where /work/shared is absent; under CI=true that fails. */
export function readTodoVectors(): TodoVectors | undefined {
  if (!existsSync(VECTORS_FILE)) {
    if (process.env.CI === 'true') throw new Error(`the AuthZEN vectors are missing: ${VECTORS_FILE}`);
    console.warn(`[authzen] skipped: ${VECTORS_FILE} is absent (the shared vectors are not mounted here)`);
    return undefined;
  }
  return JSON.parse(readFileSync(VECTORS_FILE, 'utf8')) as TodoVectors;
}
