/**
 * Every valid document of vectors/preview (made by scripts/generate-preview-vectors.ts) is valid against the JSON
 * Schema the service serves for it: the SDKs' verifiers are tested on documents of the shape the schemas promise, and
 * a schema change that the vectors no longer meet fails here until they are regenerated.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { validatorFor } from '../support/schema-validation.ts';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const dir = fileURLToPath(new URL('../../../../vectors/preview/', import.meta.url));
const valid = readdirSync(dir)
  .filter((name) => name.endsWith('.json') && name !== 'jwks.json')
  .map((name) => ({ name, vector: JSON.parse(readFileSync(`${dir}${name}`, 'utf8')) as Json }))
  .filter(({ vector }) => vector.want.valid === true);

describe('vectors/preview against the served schemas', () => {
  it('holds valid documents of every kind', () => {
    const kinds = new Set(valid.map(({ vector }) => vector.kind as string));
    for (const kind of ['payload_artefact', 'memory_record', 'memory_chain', 'compliance_report']) {
      expect(kinds).toContain(kind);
    }
  });

  for (const { name, vector } of valid) {
    it(name, () => {
      const documents: Json[] = [
        ...(vector.input.document ? [vector.input.document] : []),
        ...(vector.input.records ?? []),
        ...(vector.input.record ? [vector.input.record] : []),
      ];
      expect(documents.length).toBeGreaterThan(0);
      for (const doc of documents) {
        const validate = validatorFor(doc.schema_version);
        expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
      }
    });
  }
});
