/**
 * The committed src/generated/ files are exactly what the generator makes of docs/openapi.json today: CI fails on
 * drift (a route changed, docs/openapi.json regenerated, the SDK types not).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GENERATED_DIR, generateTypes, readOpenApi } from '../../scripts/generate-types.ts';

describe('generated SDK types', () => {
  it('match docs/openapi.json (run npm run sdk:generate)', async () => {
    const files = await generateTypes(await readOpenApi());
    for (const [name, contents] of Object.entries(files)) {
      const committed = readFileSync(`${GENERATED_DIR}${name}`, 'utf8');
      expect(committed === contents, `src/generated/${name} is stale: run npm run sdk:generate`).toBe(true);
    }
  }, 60_000);

  it('refuses a document with an operation it cannot name', async () => {
    const doc = { openapi: '3.1.0', paths: { '/v1/new-thing': { get: { responses: {} } } } };
    await expect(generateTypes(doc)).rejects.toThrow(/GET \/v1\/new-thing/);
  });

  it('names a new operation after its operationId, and is deterministic', async () => {
    const doc = {
      openapi: '3.1.0',
      paths: {
        '/v1/new-thing/{id}': {
          get: {
            operationId: 'getNewThing',
            parameters: [{ in: 'path', name: 'id', required: true, schema: { type: 'string' } }],
            responses: {
              200: {
                description: 'ok',
                content: {
                  'application/json': {
                    schema: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
                  },
                },
              },
              400: { content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
            },
          },
        },
      },
      components: { schemas: { Problem: { type: 'object', properties: { code: { type: 'string' } } } } },
    };
    const first = await generateTypes(doc);
    expect(first['api-types.ts']).toContain('export interface GetNewThingResponse');
    expect(first['operations.ts']).toContain("operationId: 'getNewThing'");
    expect(await generateTypes(doc)).toEqual(first);
  });
});
