/**
 * Bad input never changes state and always answers problem+json naming the field (issue 2, "What it must show").
 * After every refused request the row counts of every table, events included, are unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentKeyPair, grantBody, personBody } from '../support/fixtures.ts';
import { auth, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const TABLES = ['entities', 'card_tokens', 'merchants', 'grants', 'api_tokens', 'events', 'idempotency_keys'] as const;

describe('bad input is refused with problem+json and changes nothing', () => {
  let rt: TestRuntime;
  let runtimeToken: string;

  const counts = async () => {
    const out: Record<string, number> = {};
    for (const t of TABLES) {
      const row = await rt.ctx.store.db
        .selectFrom(t)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      out[t] = Number(row.n);
    }
    return out;
  };

  const post = (url: string, payload: unknown, headers: Record<string, string> = auth()) =>
    rt.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json', ...headers },
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    });

  beforeAll(async () => {
    rt = await startTestRuntime();
    const ok = async (url: string, body: unknown) => {
      const res = await post(url, body);
      expect(res.statusCode, res.body).toBe(201);
      return res.json();
    };
    await ok('/v1/entities', personBody());
    await ok('/v1/entities', {
      type: 'agent',
      id: 'shopper-1',
      display_name: 'Shopper',
      public_key_jwk: agentKeyPair().publicJwk,
    });
    await ok('/v1/card-tokens', { id: 'tok-1', principal_entity_id: 'ns:entity:person:alice', network_token: 'ntk_1' });
    await ok('/v1/merchants', { id: 'grocer-1', display_name: 'Grocer', category: '5411', jurisdiction: 'DE' });
    runtimeToken = (await ok('/v1/tokens', { role: 'runtime' })).token;
  });
  afterAll(async () => rt?.close());

  type Case = { name: string; send: () => ReturnType<typeof post>; status: number; code: string; path?: string };
  const cases: Case[] = [
    {
      name: 'missing token',
      send: () => post('/v1/entities', personBody('bob'), {}),
      status: 401,
      code: 'unauthenticated',
    },
    {
      name: 'wrong token',
      send: () => post('/v1/entities', personBody('bob'), auth('nope')),
      status: 401,
      code: 'unauthenticated',
    },
    {
      name: 'wrong role',
      send: () => post('/v1/entities', personBody('bob'), auth(runtimeToken)),
      status: 403,
      code: 'forbidden',
    },
    {
      name: 'a PAN in a display name',
      send: () => post('/v1/entities', { ...personBody('bob'), display_name: 'card 4111 1111 1111 1111' }),
      status: 400,
      code: 'pan_refused',
      path: '/display_name',
    },
    {
      name: 'a PAN as the network token',
      send: () =>
        post('/v1/card-tokens', { principal_entity_id: 'ns:entity:person:alice', network_token: '4111111111111111' }),
      status: 400,
      code: 'pan_refused',
      path: '/network_token',
    },
    {
      name: 'a PAN as a grant category',
      send: () => post('/v1/grants', grantBody({ scope: { allowed_merchant_categories: ['5555555555554444'] } })),
      status: 400,
      code: 'pan_refused',
      path: '/scope/allowed_merchant_categories/0',
    },
    {
      name: 'an amount with too many decimals for EUR',
      send: () =>
        post('/v1/grants', grantBody({ scope: { max_amount_per_purchase: { amount: 10.001, currency: 'EUR' } } })),
      status: 400,
      code: 'invalid_amount',
      path: '/scope/max_amount_per_purchase/amount',
    },
    {
      name: 'a JPY amount with decimals',
      send: () => post('/v1/grants', grantBody({ scope: { max_daily_amount: { amount: 100.5, currency: 'JPY' } } })),
      status: 400,
      code: 'invalid_amount',
      path: '/scope/max_daily_amount/amount',
    },
    {
      name: 'a negative amount',
      send: () => post('/v1/grants', grantBody({ scope: { max_daily_amount: { amount: -1, currency: 'EUR' } } })),
      status: 400,
      code: 'invalid_amount',
      path: '/scope/max_daily_amount/amount',
    },
    {
      name: 'an unknown currency',
      send: () => post('/v1/grants', grantBody({ scope: { max_daily_amount: { amount: 10, currency: 'EUX' } } })),
      status: 400,
      code: 'unknown_currency',
      path: '/scope/max_daily_amount/currency',
    },
    {
      name: 'limits in two currencies',
      send: () =>
        post(
          '/v1/grants',
          grantBody({
            scope: {
              max_daily_amount: { amount: 10, currency: 'EUR' },
              requires_approval_above: { amount: 5, currency: 'USD' },
            },
          }),
        ),
      status: 400,
      code: 'invalid_request',
      path: '/scope/requires_approval_above/currency',
    },
    {
      name: 'a malformed principal id',
      send: () => post('/v1/grants', grantBody({ principal_entity_id: 'alice' })),
      status: 400,
      code: 'invalid_id',
      path: '/principal_entity_id',
    },
    {
      name: 'a malformed local id',
      send: () => post('/v1/entities', { ...personBody(), id: 'no spaces/allowed' }),
      status: 400,
      code: 'invalid_id',
      path: '/id',
    },
    {
      name: 'an unknown jurisdiction',
      send: () => post('/v1/merchants', { id: 'm2', display_name: 'M', category: '5411', jurisdiction: 'ZZ' }),
      status: 400,
      code: 'invalid_request',
      path: '/jurisdiction',
    },
    {
      name: 'an unknown field',
      send: () => post('/v1/entities', { ...personBody('bob'), admin: true }),
      status: 400,
      code: 'invalid_request',
      path: '/admin',
    },
    {
      name: 'a missing field',
      send: () => post('/v1/merchants', { id: 'm3', display_name: 'M', category: '5411' }),
      status: 400,
      code: 'invalid_request',
      path: '/jurisdiction',
    },
    {
      name: 'duplicate JSON keys',
      send: () => post('/v1/entities', '{"type":"person","id":"bob","display_name":"a","display_name":"b"}'),
      status: 400,
      code: 'invalid_json',
      path: '/display_name',
    },
    {
      name: 'a non-object body',
      send: () => post('/v1/entities', '[1,2]'),
      status: 400,
      code: 'invalid_json',
      path: '',
    },
    {
      name: 'a private key as the agent key',
      send: () =>
        post('/v1/entities', {
          type: 'agent',
          id: 'a2',
          display_name: 'A',
          public_key_jwk: { ...agentKeyPair().publicJwk, d: 'nW2Z3Y4vJvDZ8Y0Q3wWmOwcZZ1Z6gT6r2uZ0dJ8w9bc' },
        }),
      status: 400,
      code: 'invalid_request',
      path: '/public_key_jwk/d',
    },
    {
      name: 'a body over the limit',
      send: () => post('/v1/entities', { ...personBody('bob'), display_name: 'x'.repeat(1024 * 1024 + 10) }),
      status: 413,
      code: 'payload_too_large',
    },
    {
      name: 'a grant for a card token of nobody',
      send: () => post('/v1/grants', grantBody({ resource_id: 'ns:credential:card-token:missing' })),
      status: 422,
      code: 'reference_not_found',
      path: '/resource_id',
    },
    {
      name: 'a grant in the past',
      send: () => post('/v1/grants', grantBody({ scope: { valid_until: '2020-01-01T00:00:00Z' } })),
      status: 400,
      code: 'invalid_request',
      path: '/scope/valid_until',
    },
    {
      name: 'an unknown capability',
      send: () => post('/v1/grants', grantBody({ capability_id: 'ns:capability:payment_action:wire_transfer' })),
      status: 400,
      code: 'invalid_request',
      path: '/capability_id',
    },
    {
      name: 'a duplicate entity',
      send: () => post('/v1/entities', personBody()),
      status: 409,
      code: 'conflict',
      path: '/id',
    },
  ];

  it.each(cases)('$name -> $status $code', async (c) => {
    const before = await counts();
    const res = await c.send();
    expect(res.statusCode, res.body).toBe(c.status);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const problem = res.json();
    expect(problem).toMatchObject({ status: c.status, code: c.code });
    expect(typeof problem.type).toBe('string');
    expect(typeof problem.title).toBe('string');
    if (c.path !== undefined) expect(problem.errors?.map((e: { path: string }) => e.path)).toContain(c.path);
    expect(res.body).not.toMatch(/4111\s?1111|5555555555554444/);
    expect(await counts()).toEqual(before);
  });

  it('a PAN in the URL is refused before authentication and never echoed', async () => {
    for (const url of [
      '/v1/entities/ns:entity:person:4111111111111111',
      '/v1/grants?principal_entity_id=4111%201111%201111%201111',
    ]) {
      const res = await rt.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'pan_refused', errors: [{ path: '/url' }] });
      expect(res.body).not.toMatch(/4111/);
    }
  });

  it('the same Idempotency-Key with another body is 422 and changes nothing', async () => {
    const key = { ...auth(), 'idempotency-key': 'create-carol-1' };
    const first = await post('/v1/entities', personBody('carol'), key);
    expect(first.statusCode).toBe(201);
    const replay = await post('/v1/entities', personBody('carol'), key);
    expect(replay.statusCode).toBe(201);
    expect(replay.body).toBe(first.body);
    const before = await counts();
    const other = await post('/v1/entities', personBody('dave'), key);
    expect(other.statusCode).toBe(422);
    expect(other.json().code).toBe('idempotency_key_reused');
    expect(await counts()).toEqual(before);
  });
});
