/**
 * The AP2 JSON Schemas a deployment points to (AAR_AP2_SCHEMA_DIR), compiled once with ajv 2020 into core's injected
 * `validateContent`: every mandate content verifyAp2Presentation accepts (POST /v1/mandates, a presentation at
 * authorize) is then also valid against the schema of its `vct`. The schemas are AP2's, read where the deployment
 * keeps them (the project does not ship a copy); a directory that lacks one of the four mandate schemas fails the
 * first use loudly rather than validating less than it says.
 * Attacker assumption: mandate contents are hostile; the schemas are the operator's files, trusted like config.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Ap2ContentValidator, Ap2Vct } from '@aar/core';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

const SCHEMA_OF: Readonly<Record<Ap2Vct, string>> = {
  'mandate.payment.open.1': 'open_payment_mandate.json',
  'mandate.payment.1': 'payment_mandate.json',
  'mandate.checkout.open.1': 'open_checkout_mandate.json',
  'mandate.checkout.1': 'checkout_mandate.json',
};

const compiled = new Map<string, Ap2ContentValidator>();

/** The validator of the schemas in `dir` (compiled on first use, then shared); undefined when no dir is set. */
export function ap2ContentValidator(dir: string | undefined): Ap2ContentValidator | undefined {
  if (dir === undefined) return undefined;
  let validator = compiled.get(dir);
  if (!validator) {
    validator = compile(dir);
    compiled.set(dir, validator);
  }
  return validator;
}

function compile(dir: string): Ap2ContentValidator {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  // the shared types AP2's schemas refer to by `$id`: `types/` beside them, and UCP's beside AP2's when present
  for (const typesDir of [join(dir, 'types'), join(dir, '..', 'ucp', 'types')]) {
    if (!existsSync(typesDir)) continue;
    for (const name of readdirSync(typesDir)
      .filter((n) => n.endsWith('.json'))
      .sort()) {
      ajv.addSchema(JSON.parse(readFileSync(join(typesDir, name), 'utf8')) as object);
    }
  }
  const validators = new Map<Ap2Vct, ValidateFunction>();
  for (const [vct, file] of Object.entries(SCHEMA_OF) as Array<[Ap2Vct, string]>) {
    const path = join(dir, file);
    if (!existsSync(path)) throw new Error(`AAR_AP2_SCHEMA_DIR has no ${file} (the schema of ${vct})`);
    validators.set(vct, ajv.compile(JSON.parse(readFileSync(path, 'utf8')) as object));
  }
  return (vct, content) => {
    const validate = validators.get(vct);
    if (validate === undefined) return [{ path: '/vct', detail: `no AP2 schema for \`${vct}\`` }];
    if (validate(content)) return [];
    return (validate.errors ?? []).map((error) => ({
      path: error.instancePath,
      detail: `${error.keyword}: ${error.message ?? ''}`,
    }));
  };
}
