// The AP2 vectors for the tests: the doc tokens and the AP2 JSON Schemas, read from ../shared/vectors/ap2 (never
// copied into the project), and an ajv 2020 validator over those schemas in the injected form (the server builds the
// same kind of validator and passes it as `validateContent`).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { sharedVectorPath } from '../../../../../vectors/lib/shared-vectors.ts';
import type { Ap2ContentValidator, Ap2Vct } from '../../../src/mandates/index.ts';

export const AP2_DIR = sharedVectorPath('ap2');

export interface DocToken {
  source: string;
  example: string;
  token: string;
}

export function docTokens(): DocToken[] {
  return AP2_DIR === undefined
    ? []
    : (JSON.parse(readFileSync(join(AP2_DIR, 'doc-tokens.json'), 'utf8')) as DocToken[]);
}

const SCHEMA_OF: Record<Ap2Vct, string> = {
  'mandate.payment.open.1': 'open_payment_mandate.json',
  'mandate.payment.1': 'payment_mandate.json',
  'mandate.checkout.open.1': 'open_checkout_mandate.json',
  'mandate.checkout.1': 'checkout_mandate.json',
};

/** An ajv 2020 validator over the AP2 schemas, in the injected form (findings as JSON pointers). */
let cachedValidator: Ap2ContentValidator | undefined;

export function ap2SchemaValidator(): Ap2ContentValidator {
  cachedValidator ??= compileValidator();
  return cachedValidator;
}

function compileValidator(): Ap2ContentValidator {
  if (AP2_DIR === undefined) throw new Error('AP2 schemas absent');
  const dir = join(AP2_DIR, 'schemas', 'ap2');
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  for (const name of readdirSync(join(dir, 'types'))) {
    ajv.addSchema(JSON.parse(readFileSync(join(dir, 'types', name), 'utf8')) as object);
  }
  const compiled = new Map<Ap2Vct, ValidateFunction>();
  for (const [vct, file] of Object.entries(SCHEMA_OF) as Array<[Ap2Vct, string]>) {
    compiled.set(vct, ajv.compile(JSON.parse(readFileSync(join(dir, file), 'utf8')) as object));
  }
  return (vct, content) => {
    const validate = compiled.get(vct);
    if (validate === undefined) return [{ path: '/vct', detail: 'no schema' }];
    if (validate(content)) return [];
    return (validate.errors ?? []).map((error) => ({
      path: error.instancePath,
      detail: `${error.keyword}: ${error.message ?? ''}`,
    }));
  };
}
