/**
 * Retries, errors and idempotency, against a local server with an injected sleep, clock and random source: the
 * waits are recorded, never slept.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyRequestSignature, type Ed25519PublicJwk } from '@aar/core';
import { AarApiError, AarClient, AarNetworkError, createRequestSigner, parseRetryAfter } from '../../src/index.ts';
import { hangUp, json, problem, startRecordingServer, type RecordingServer } from '../support/recording-server.ts';

const TOKEN = 'aar_this_token_must_never_leak';
let server: RecordingServer;

beforeAll(async () => {
  server = await startRecordingServer();
});
afterAll(() => server.close());

function clientWith(extra: Partial<ConstructorParameters<typeof AarClient>[0]> = {}) {
  const waits: number[] = [];
  const client = new AarClient({
    baseUrl: server.base,
    token: TOKEN,
    retry: { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1_000, maxRetryAfterMs: 30_000 },
    sleep: async (ms) => {
      waits.push(ms);
    },
    random: () => 0.5,
    now: () => Date.parse('2030-01-01T00:00:00Z'),
    ...extra,
  });
  return { client, waits };
}

describe('retries', () => {
  it('honours Retry-After seconds on 429 and reuses one Idempotency-Key for every attempt', async () => {
    server.respond(
      problem(429, 'rate_limited', {}, { 'retry-after': '7' }),
      json(201, { entity_id: 'ns:entity:person:a' }),
    );
    const { client, waits } = clientWith();
    const created = await client.createEntity({ type: 'person', id: 'a', display_name: 'A' });
    expect(created).toEqual({ entity_id: 'ns:entity:person:a' });
    expect(waits).toEqual([7_000]);
    const [first, second] = server.requests;
    expect(first!.headers['idempotency-key']).toBeDefined();
    expect(second!.headers['idempotency-key']).toBe(first!.headers['idempotency-key']);
    expect(second!.body).toBe(first!.body);
  });

  it('honours a Retry-After HTTP date, capped at maxRetryAfterMs', async () => {
    server.respond(
      problem(429, 'rate_limited', {}, { 'retry-after': 'Tue, 01 Jan 2030 00:00:12 GMT' }),
      problem(429, 'rate_limited', {}, { 'retry-after': '3600' }),
      json(200, { items: [], next_cursor: null }),
    );
    const { client, waits } = clientWith();
    await client.listEntities();
    expect(waits).toEqual([12_000, 30_000]);
    expect(parseRetryAfter('Mon, 31 Dec 2029 23:00:00 GMT', Date.parse('2030-01-01T00:00:00Z'))).toBe(0);
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
    expect(parseRetryAfter('-5', 0)).toBeUndefined();
  });

  it('backs off exponentially with full jitter on 503, then gives up with the last problem', async () => {
    server.respond(problem(503, 'audit_unavailable', { request_id: 'req-503' }));
    const { client, waits } = clientWith();
    const error = await client
      .recordOutcome({ policy_decision_id: 'ns:decision:1', outcome: 'executed' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AarApiError);
    expect(error).toMatchObject({ status: 503, code: 'audit_unavailable', requestId: 'req-503', attempts: 4 });
    // random() = 0.5 of min(1000, 100 * 2^n)
    expect(waits).toEqual([50, 100, 200]);
    expect(server.requests).toHaveLength(4);
    expect(new Set(server.requests.map((r) => r.headers['idempotency-key'])).size).toBe(1);
  });

  it('retries a dropped connection, and a first attempt still in flight (409) only after one', async () => {
    server.respond(hangUp, problem(409, 'idempotency_in_flight'), json(200, { outcome: 'executed' }));
    const { client, waits } = clientWith();
    await expect(client.recordOutcome({ policy_decision_id: 'ns:decision:1', outcome: 'executed' })).resolves.toEqual({
      outcome: 'executed',
    });
    expect(waits).toHaveLength(2);
    expect(new Set(server.requests.map((r) => r.headers['idempotency-key'])).size).toBe(1);

    server.respond(problem(409, 'idempotency_in_flight'), json(200, {}));
    await expect(
      client.recordOutcome({ policy_decision_id: 'ns:decision:2', outcome: 'failed' }),
    ).rejects.toMatchObject({
      status: 409,
      code: 'idempotency_in_flight',
      attempts: 1,
    });
  });

  it('does not retry a client error, and the typed error carries the problem but never the token', async () => {
    server.respond(
      problem(
        400,
        'invalid_request',
        { errors: [{ path: '/body/display_name', message: 'is required' }], request_id: 'req-1' },
        { 'x-request-id': 'req-1' },
      ),
    );
    const { client, waits } = clientWith();
    const error = (await client.createEntity({ type: 'person' } as never).catch((e: unknown) => e)) as AarApiError;
    expect(error).toBeInstanceOf(AarApiError);
    expect(error).toMatchObject({
      status: 400,
      code: 'invalid_request',
      errors: [{ path: '/body/display_name', message: 'is required' }],
      requestId: 'req-1',
      method: 'POST',
      path: '/v1/entities',
    });
    expect(error.problem.detail).toBe('invalid_request detail');
    expect(waits).toEqual([]);
    const text = `${error.message} ${error.stack ?? ''} ${JSON.stringify(error)} ${String(error.cause)}`;
    expect(text).not.toContain(TOKEN);
  });

  it('turns a non-JSON error page into http_<status>', async () => {
    server.respond((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html', 'x-request-id': 'edge-9' });
      res.end('<html>bad gateway</html>');
    });
    const { client } = clientWith();
    await expect(client.getHealth()).rejects.toMatchObject({ status: 502, code: 'http_502', requestId: 'edge-9' });
  });

  it('gives up on an unreachable service with AarNetworkError after maxAttempts, token-free', async () => {
    const closed = await startRecordingServer();
    const base = closed.base;
    await closed.close();
    const { client, waits } = clientWith({ baseUrl: base });
    const error = await client.listGrants().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AarNetworkError);
    expect(error).toMatchObject({ method: 'GET', path: '/v1/grants', attempts: 4, timedOut: false });
    expect((error as Error).message).toContain('ECONNREFUSED');
    expect((error as Error).message).not.toContain(TOKEN);
    expect(waits).toHaveLength(3);
  });

  it('stops at once when the caller aborts, without retrying', async () => {
    server.respond(problem(503, 'audit_unavailable'));
    const controller = new AbortController();
    const client = new AarClient({
      baseUrl: server.base,
      token: TOKEN,
      sleep: async () => {
        controller.abort(new Error('caller gave up'));
        throw new Error('caller gave up');
      },
    });
    await expect(client.getHealth({ signal: controller.signal })).rejects.toThrow('caller gave up');
    expect(server.requests).toHaveLength(1);
  });

  it('re-signs a signed authorize on every attempt (a nonce is accepted once), over the same bytes and key', async () => {
    const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
    const jwk = await crypto.subtle.exportKey('jwk', pair.privateKey);
    const agent = 'ns:entity:agent:shopper-1';
    const signer = createRequestSigner({
      keyId: agent,
      privateJwk: { kty: 'OKP', crv: 'Ed25519', x: jwk.x!, d: jwk.d! },
    });
    const publicJwk: Ed25519PublicJwk = { kty: 'OKP', crv: 'Ed25519', x: jwk.x! };
    server.respond(hangUp, problem(503, 'audit_unavailable'), json(200, { decision: 'allow_with_constraints' }));
    const { client } = clientWith({ publicUrl: 'https://aar.bank.example/' });
    const body = {
      actor_entity_id: agent,
      principal_entity_id: 'ns:entity:person:alice',
      subject: 'ns:capability:payment_action:card_purchase',
      resource: { merchant_id: 'grocer-1', amount: 12.5, currency: 'EUR' },
      scope: { instrument: 'ns:card_token:tok-1' },
    };
    await expect(client.authorize(body, { signer })).resolves.toEqual({ decision: 'allow_with_constraints' });
    expect(server.requests).toHaveLength(3);
    const nonces = new Set<string>();
    for (const req of server.requests) {
      expect(req.body).toBe(JSON.stringify(body));
      expect(req.headers['idempotency-key']).toBe(server.requests[0]!.headers['idempotency-key']);
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      const verified = await verifyRequestSignature(
        { method: 'POST', url: 'https://aar.bank.example/v1/runtime/authorize', headers, body: req.body },
        (kid) => (kid === agent ? publicJwk : undefined),
        Math.floor(Date.now() / 1000),
      );
      expect(verified.status).toBe('valid');
      nonces.add(/;nonce="([^"]+)"/.exec(headers['signature-input']!)![1]!);
    }
    expect(nonces.size).toBe(3);
  });

  it('refuses nonsense retry options at construction', () => {
    expect(() => new AarClient({ baseUrl: server.base, retry: { maxAttempts: 0 } })).toThrow(/maxAttempts/);
    expect(() => new AarClient({ baseUrl: server.base, retry: { baseDelayMs: -1 } })).toThrow(/baseDelayMs/);
  });
});
