/**
 * The test runtimes' apps share compiled validators and serializers (test/support/shared-validators.ts,
 * shared-serializers.ts): they must answer exactly as an app with Fastify's own compilers, which production uses.
 * Same requests, good and bad (body, query, params, the signed-request headers), to both; and a headers schema
 * that Fastify would lower-case for its own compiler only is refused by the shared one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { sharedSerializers } from '../support/shared-serializers.ts';
import { sharedValidators } from '../support/shared-validators.ts';
import { auth, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

let rt: TestRuntime;
let own: FastifyInstance;

beforeAll(async () => {
  rt = await startTestRuntime(); // its app: the shared compilers
  own = await buildApp(rt.ctx); // Fastify's own
  const created = await rt.app.inject({
    method: 'POST',
    url: '/v1/entities',
    headers: auth(),
    payload: { type: 'person', id: 'ada', display_name: 'Ada' },
  });
  expect(created.statusCode).toBe(201);
});
afterAll(async () => {
  await own?.close();
  await rt?.close();
});

const REQUESTS: Array<{ method: 'GET' | 'POST'; url: string; payload?: unknown; headers?: Record<string, string> }> = [
  { method: 'GET', url: '/v1/entities?limit=2' },
  { method: 'GET', url: '/v1/entities?limit=abc' },
  { method: 'GET', url: '/v1/entities?limit=2&unknown=1' },
  { method: 'GET', url: '/v1/entities/ns:entity:person:ada' },
  { method: 'POST', url: '/v1/entities', payload: { id: 'x', display_name: 'No type' } },
  { method: 'POST', url: '/v1/entities', payload: { type: 'robot', id: 'r', display_name: 'R', extra: 1 } },
  { method: 'POST', url: '/v1/runtime/authorize', payload: {}, headers: { signature: 'x', 'content-digest': 'y' } },
];

describe('shared compilers', () => {
  it('answer every request exactly as Fastify’s own compilers do', async () => {
    const statuses: number[] = [];
    for (const r of REQUESTS) {
      const send = (app: FastifyInstance) =>
        app.inject({
          method: r.method,
          url: r.url,
          headers: { ...auth(), ...r.headers },
          ...(r.payload === undefined ? {} : { payload: r.payload as object }),
        });
      const [shared, fastify] = [await send(rt.app), await send(own)];
      const label = `${r.method} ${r.url}`;
      expect(shared.statusCode, label).toBe(fastify.statusCode);
      const body = (res: typeof shared) => {
        const { instance: _i, request_id: _r, ...rest } = res.json() as Record<string, unknown>;
        return rest;
      };
      expect(body(shared), label).toEqual(body(fastify));
      statuses.push(shared.statusCode);
    }
    // the lists and the reads answer, every bad input is refused
    expect(statuses).toEqual([200, 400, 400, 200, 400, 400, 400]);
  });

  it('refuses a headers schema naming anything in upper case', () => {
    const compile = sharedValidators({}, { customOptions: {} } as never) as unknown as (route: object) => unknown;
    const route = (schema: object) => ({ schema, method: 'POST', url: '/x', httpPart: 'headers' });
    expect(() => compile(route({ type: 'object', properties: { 'Content-Digest': { type: 'string' } } }))).toThrow(
      /`Content-Digest`: write header names in lower case/,
    );
    expect(() => compile(route({ type: 'object', required: ['X-Api'] }))).toThrow(/`X-Api`/);
    expect(compile(route({ type: 'object', properties: { signature: { type: 'string' } } }))).toBeTypeOf('function');
    expect(sharedSerializers).toBeTypeOf('function');
  });
});
