/**
 * The client methods of the mandate and allowance routes (CONTRACT section 21), against a local server: each sends
 * its method, escaped path and body; every POST carries an Idempotency-Key, reused across retries, and no GET does;
 * a refused mandate is an AarApiError whose `errors` keep each fault's `path`, `code` and `detail`; an authorize that
 * presents a mandate sends it in the signed bytes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyRequestSignature, type Ed25519PublicJwk } from '@aar/core';
import { AarApiError, AarClient, createRequestSigner } from '../../src/index.ts';
import type { AllowanceCreation, MandateCreation } from '../../src/index.ts';
import { json, problem, startRecordingServer, type RecordingServer } from '../support/recording-server.ts';

const TOKEN = 'aar_secret_token_for_tests';
let server: RecordingServer;
let client: AarClient;

beforeAll(async () => {
  server = await startRecordingServer();
  client = new AarClient({ baseUrl: server.base, token: TOKEN, retry: { maxAttempts: 1 } });
});
afterAll(() => server.close());

const MANDATE_ID = 'ns:mandate:0195f3a0-0000-7000-8000-000000000001';
const ALLOWANCE_ID = 'ns:allowance:0195f3a0-0000-7000-8000-000000000002';
const MANDATE: MandateCreation = {
  format: 'ap2',
  presentation: 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln~WyJzYWx0IiwgMV0~',
  parent_grant_id: 'ns:authority:grant:root',
  actor_entity_id: 'ns:entity:agent:shopper-1',
  payees: { merchant_1: 'ns:merchant:grocer-1' },
};
const ALLOWANCE: AllowanceCreation = {
  format: 'acp',
  allowance: {
    reason: 'one_time',
    max_amount: 2000,
    currency: 'usd',
    checkout_session_id: 'cs_01',
    merchant_id: 'acme',
    expires_at: '2026-12-01T00:00:00Z',
  },
  vaulted_token_id: 'vt_01',
  parent_grant_id: 'ns:authority:grant:root',
  actor_entity_id: 'ns:entity:agent:shopper-1',
};

type Case = [name: string, call: (c: AarClient) => Promise<unknown>, method: string, url: string, body?: unknown];

const CASES: Case[] = [
  [
    'createMandateIssuer',
    (c) =>
      c.createMandateIssuer({
        issuer: 'https://issuer.example',
        format: 'ap2',
        jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y' }] },
      }),
    'POST',
    '/v1/mandate-issuers',
    { issuer: 'https://issuer.example', format: 'ap2', jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y' }] } },
  ],
  [
    'createMandateIssuer (jwks_uri)',
    (c) => c.createMandateIssuer({ issuer: 'https://issuer.example', format: 'ap2', jwks_uri: 'https://i.example/j' }),
    'POST',
    '/v1/mandate-issuers',
    { issuer: 'https://issuer.example', format: 'ap2', jwks_uri: 'https://i.example/j' },
  ],
  ['listMandateIssuers', (c) => c.listMandateIssuers(), 'GET', '/v1/mandate-issuers'],
  ['createMandate', (c) => c.createMandate(MANDATE), 'POST', '/v1/mandates', MANDATE],
  ['getMandate', (c) => c.getMandate(MANDATE_ID), 'GET', `/v1/mandates/${encodeURIComponent(MANDATE_ID)}`],
  [
    'revokeMandate',
    (c) => c.revokeMandate(MANDATE_ID),
    'POST',
    `/v1/mandates/${encodeURIComponent(MANDATE_ID)}/revoke`,
  ],
  ['createAllowance', (c) => c.createAllowance(ALLOWANCE), 'POST', '/v1/allowances', ALLOWANCE],
  ['getAllowance', (c) => c.getAllowance(ALLOWANCE_ID), 'GET', `/v1/allowances/${encodeURIComponent(ALLOWANCE_ID)}`],
  [
    'revokeAllowance',
    (c) => c.revokeAllowance(ALLOWANCE_ID),
    'POST',
    `/v1/allowances/${encodeURIComponent(ALLOWANCE_ID)}/revoke`,
  ],
];

describe('AarClient: mandates and allowances (CONTRACT 21)', () => {
  it.each(CASES)('%s sends its method, path and body', async (_name, call, method, url, body) => {
    server.respond(json(200, { ok: true }));
    await expect(call(client)).resolves.toEqual({ ok: true });
    expect(server.requests).toHaveLength(1);
    const req = server.requests.pop()!;
    expect([req.method, req.url]).toEqual([method, url]);
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    if (body === undefined) expect(req.body).toBe('');
    else expect(JSON.parse(req.body)).toEqual(body);
    if (method === 'POST') expect(req.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    else expect(req.headers['idempotency-key']).toBeUndefined();
  });

  it('types a refused mandate: every fault keeps its pointer, code and detail', async () => {
    const retrying = new AarClient({
      baseUrl: server.base,
      token: TOKEN,
      retry: { maxAttempts: 3 },
      sleep: async () => {},
    });
    server.respond(
      problem(503, 'audit_unavailable'),
      problem(422, 'mandate_invalid', {
        errors: [
          { path: '/presentation/hops/0/header/kid', code: 'issuer_key_unknown', detail: 'no configured issuer' },
          { path: '/presentation/hops/1/payload/sd_hash', code: 'sd_hash_mismatch', detail: 'not hop 0' },
          { code: 'not_subset', detail: 'no path: dropped' },
        ],
      }),
    );
    const refused = await retrying.createMandate(MANDATE).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AarApiError);
    const error = refused as AarApiError;
    expect(error).toMatchObject({ status: 422, code: 'mandate_invalid' });
    expect(error.errors).toEqual([
      {
        path: '/presentation/hops/0/header/kid',
        code: 'issuer_key_unknown',
        detail: 'no configured issuer',
        message: 'no configured issuer',
      },
      {
        path: '/presentation/hops/1/payload/sd_hash',
        code: 'sd_hash_mismatch',
        detail: 'not hop 0',
        message: 'not hop 0',
      },
    ]);
    const keys = server.requests.splice(0).map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
  });

  it('keeps the older { path, message } field errors as they were', async () => {
    server.respond(problem(400, 'pan_refused', { errors: [{ path: '/payment_method', message: 'a card number' }] }));
    const refused = (await client.createAllowance(ALLOWANCE).catch((e: unknown) => e)) as AarApiError;
    expect(refused.code).toBe('pan_refused');
    expect(refused.errors).toEqual([{ path: '/payment_method', message: 'a card number' }]);
    server.requests.splice(0);
  });

  it('presents a mandate with a signed authorize: the mandate is inside the signed bytes', async () => {
    const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
    const jwk = await crypto.subtle.exportKey('jwk', pair.privateKey);
    const agent = 'ns:entity:agent:shopper-1';
    const signer = createRequestSigner({
      keyId: agent,
      privateJwk: { kty: 'OKP', crv: 'Ed25519', x: jwk.x!, d: jwk.d! },
    });
    const publicJwk: Ed25519PublicJwk = { kty: 'OKP', crv: 'Ed25519', x: jwk.x! };
    const signing = new AarClient({
      baseUrl: server.base,
      token: TOKEN,
      retry: { maxAttempts: 1 },
      publicUrl: 'https://aar.bank.example',
    });
    const base = {
      actor_entity_id: agent,
      principal_entity_id: 'ns:entity:person:alice',
      subject: 'ns:capability:payment_action:card_purchase',
      resource: { merchant_id: 'grocer-1', amount: 12.5, currency: 'EUR' },
      scope: { instrument: 'ns:card_token:tok-1' },
    };
    for (const mandate of [{ mandate_id: MANDATE_ID }, { presentation: 'open~~closed~' }]) {
      server.respond(json(200, { decision: 'allow_with_constraints' }));
      await signing.authorize({ ...base, mandate }, { signer });
      const req = server.requests.pop()!;
      expect(JSON.parse(req.body)).toEqual({ ...base, mandate });
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      const verified = await verifyRequestSignature(
        { method: 'POST', url: 'https://aar.bank.example/v1/runtime/authorize', headers, body: req.body },
        (kid) => (kid === agent ? publicJwk : undefined),
        Math.floor(Date.now() / 1000),
      );
      expect(verified.status).toBe('valid');
      // the signature covers the mandate: another mandate under the same signature headers fails
      const swapped = req.body.replace(JSON.stringify(mandate), JSON.stringify({ mandate_id: 'ns:mandate:other' }));
      const forged = await verifyRequestSignature(
        { method: 'POST', url: 'https://aar.bank.example/v1/runtime/authorize', headers, body: swapped },
        (kid) => (kid === agent ? publicJwk : undefined),
        Math.floor(Date.now() / 1000),
      );
      expect(forged.status).not.toBe('valid');
    }
  });
});
