/**
 * Which routes answer without a credential: exactly the ones meant to be public (CONTRACT sections 4, 16, 17: the
 * JWKS, the JSON Schemas, the event catalogue, the conformance profiles and fixtures, the OpenAPI document, health
 * and metrics, the console's and the simulator's static files). Every other operation of the OpenAPI document, the
 * routes of this session included, is walked without a token, with a token in the query string and with a
 * malformed scheme, and must answer 401 problem+json. A route added later without `roles` or `public` is
 * admin-only by default; one marked public by mistake fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';
import { expectProblem, send } from './hostile-support.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const PUBLIC = new Set([
  'GET /.well-known/jwks.json',
  'GET /v1/schemas',
  'GET /v1/schemas/{name}',
  'GET /v1/event-types',
  'GET /v1/conformance/profiles',
  'GET /v1/conformance/fixtures',
  'GET /v1/openapi.json',
  'GET /healthz',
  'GET /readyz',
  'GET /metrics',
  // the AuthZEN PDP metadata (CONTRACT section 20: public), as the JWKS is
  'GET /.well-known/authzen-configuration',
]);

let rt: TestRuntime;
let operations: Array<{ method: string; path: string; security: unknown }>;

beforeAll(async () => {
  rt = await startTestRuntime();
  const doc = (await send(rt.app, ADMIN_TOKEN, { method: 'GET', url: '/v1/openapi.json' })).body;
  operations = Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, op]) => ({ method: method.toUpperCase(), path, security: (op as Json).security })),
  );
});
afterAll(async () => rt?.close());

const concrete = (path: string) => path.replace(/\{[^}]+\}/g, 'ns:x:0190c5a8-7a5e-7000-8000-000000000001');

describe('authentication is required everywhere but the public documents', () => {
  it('the public documents answer without a credential', async () => {
    for (const url of [
      '/.well-known/jwks.json',
      '/v1/schemas',
      '/v1/schemas/ns.bundle_verification.v1',
      '/v1/event-types',
    ]) {
      const res = await send(rt.app, ADMIN_TOKEN, { method: 'GET', url, token: null });
      expect(res.status, url).toBe(200);
    }
  });

  it('the document marks public exactly the intended operations', () => {
    const marked = operations
      .filter((op) => Array.isArray(op.security) && op.security.length === 0)
      .map((op) => `${op.method} ${op.path}`);
    for (const op of marked) expect(PUBLIC.has(op), `${op} is public but not meant to be`).toBe(true);
    expect(marked).toEqual(
      expect.arrayContaining([
        'GET /v1/schemas',
        'GET /v1/schemas/{name}',
        'GET /v1/event-types',
        'GET /.well-known/jwks.json',
      ]),
    );
    expect(operations.length).toBeGreaterThan(60);
  });

  it('every other operation is 401 without a token, with one in the query string, or with another scheme', async () => {
    let walked = 0;
    for (const op of operations) {
      if (PUBLIC.has(`${op.method} ${op.path}`)) continue;
      const method = op.method as 'GET' | 'POST' | 'DELETE';
      const url = concrete(op.path);
      const payload = method === 'POST' ? {} : undefined;
      const where = `${op.method} ${op.path}`;
      for (const req of [
        { method, url, payload, token: null },
        { method, url: `${url}?access_token=${ADMIN_TOKEN}`, payload, token: null },
        { method, url, payload, token: null, headers: { authorization: `Basic ${ADMIN_TOKEN}` } },
        { method, url, payload, token: null, headers: { authorization: `Bearer` } },
      ]) {
        const res = await send(rt.app, ADMIN_TOKEN, req);
        expect(res.status, `${where}: ${res.text.slice(0, 200)}`).toBe(401);
        expectProblem(res, 401, 'unauthenticated');
      }
      walked += 1;
    }
    expect(walked).toBeGreaterThan(50);
  });
});
