import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/http/openapi.ts';
import { SERVER_VERSION } from '../../src/http/server-version.ts';
import { buildHarness, type Harness } from './gateway-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await buildHarness();
});
afterAll(async () => {
  await h.close();
});

type Operation = { security?: unknown[]; responses: Record<string, { content?: Record<string, unknown> }> };
type Doc = {
  openapi: string;
  info: { title: string; version: string };
  security: unknown[];
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
  paths: Record<string, Record<string, Operation>>;
};

describe('OpenAPI', () => {
  it('serves the OpenAPI 3.1 document publicly at /v1/openapi.json', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json() as Doc;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: 'Agent Authority Runtime', version: SERVER_VERSION });
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    expect(doc).toEqual(JSON.parse(JSON.stringify(openApiDocument(h.app))));
  });

  it('marks public routes `security: []` and leaves the others under the global bearer scheme', () => {
    const doc = openApiDocument(h.app) as unknown as Doc;
    expect(doc.paths['/healthz']?.get?.security).toEqual([]);
    expect(doc.paths['/metrics']?.get?.security).toEqual([]);
    expect(doc.paths['/test/public']?.get?.security).toEqual([]);
    expect(doc.paths['/test/admin']?.get?.security).toBeUndefined();
    expect(doc.paths['/test/echo']?.post?.security).toBeUndefined();
  });

  it('documents the problem+json answer of every operation, and hides the docs UI', () => {
    const doc = openApiDocument(h.app) as unknown as Doc;
    expect(doc.components.schemas.Problem).toBeDefined();
    expect(doc.paths['/test/echo']?.post?.responses.default?.content).toHaveProperty(['application/problem+json']);
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/docs'))).toBe(false);
  });

  it('serves the docs UI without a token', async () => {
    const page = await h.app.inject({ method: 'GET', url: '/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Swagger UI');
    expect((await h.app.inject({ method: 'GET', url: '/docs/json' })).statusCode).toBe(200);
    expect((await h.app.inject({ method: 'GET', url: '/docs/static/swagger-ui.css' })).statusCode).toBe(200);
  });
});
