import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IN_FLIGHT_LEASE_SECONDS } from '../../src/http/idempotency.ts';
import { buildHarness, type Harness } from './gateway-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await buildHarness({ config: { idempotencyTtlSeconds: 3600 } });
});
afterAll(async () => {
  await h.close();
});

function post(url: string, key: string | undefined, payload: unknown, token = h.tokens.runtime) {
  const headers: Record<string, string> = { ...h.auth(token) };
  if (key !== undefined) headers['idempotency-key'] = key;
  return h.app.inject({ method: 'POST', url, headers, payload: payload as Record<string, unknown> });
}

async function rowCount(): Promise<number> {
  return (await h.ctx.store.db.selectFrom('idempotency_keys').selectAll().execute()).length;
}

describe('Idempotency-Key', () => {
  it('runs the first request once and replays its response byte for byte', async () => {
    const before = await h.eventCount();
    const first = await post('/test/echo', 'key-replay-1', { name: 'a', n: 1 });
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // same body with other key order and spacing: the same request
    const second = await h.app.inject({
      method: 'POST',
      url: '/test/echo',
      headers: { ...h.auth(h.tokens.runtime), 'idempotency-key': 'key-replay-1', 'content-type': 'application/json' },
      payload: '{ "n": 1, "name": "a" }',
    });
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
    expect(second.headers['content-type']).toBe(first.headers['content-type']);
    expect(second.headers.location).toBe(first.headers.location);
    expect(await h.eventCount()).toBe(before + 1);
  });

  it('runs requests without a key every time', async () => {
    const before = await h.eventCount();
    await post('/test/echo', undefined, { name: 'b' });
    await post('/test/echo', undefined, { name: 'b' });
    expect(await h.eventCount()).toBe(before + 2);
  });

  it('refuses the same key with another body (422) or another path', async () => {
    await post('/test/echo', 'key-reuse', { name: 'c' });
    const other = await post('/test/echo', 'key-reuse', { name: 'c', n: 2 });
    expect(other.statusCode).toBe(422);
    expect(other.json()).toMatchObject({
      code: 'idempotency_key_reused',
      errors: [{ path: '/headers/idempotency-key' }],
    });
    const otherPath = await post('/test/free', 'key-reuse', { name: 'c' });
    expect(otherPath.statusCode).toBe(422);
  });

  it('answers 409 while the first request is in flight, then replays it', async () => {
    const gate = h.newGate();
    const first = post('/test/slow', 'key-slow', { x: 1 });
    await gate.reached;
    const during = await post('/test/slow', 'key-slow', { x: 1 });
    expect(during.statusCode).toBe(409);
    expect(during.json()).toMatchObject({ code: 'idempotency_in_flight', retry_after: 1 });
    expect(during.headers['retry-after']).toBe('1');
    gate.open();
    const done = await first;
    expect(done.statusCode).toBe(200);
    const after = await post('/test/slow', 'key-slow', { x: 1 });
    expect(after.headers['idempotent-replayed']).toBe('true');
    expect(after.body).toBe(done.body);
  });

  it('lets exactly one of two concurrent first requests run', async () => {
    const before = await h.eventCount();
    const results = await Promise.all([
      post('/test/echo', 'key-race', { name: 'race' }),
      post('/test/echo', 'key-race', { name: 'race' }),
    ]);
    const statuses = results.map((r) => r.statusCode).sort();
    expect(statuses[0]).toBe(201);
    expect([201, 409]).toContain(statuses[1]);
    expect(await h.eventCount()).toBe(before + 1);
  });

  it('forgets the key when the request failed with 5xx, so a retry runs again', async () => {
    const runs = h.calls.crash;
    expect((await post('/test/crash', 'key-crash', {})).statusCode).toBe(500);
    expect((await post('/test/crash', 'key-crash', {})).statusCode).toBe(500);
    expect(h.calls.crash).toBe(runs + 2);
    const row = await h.ctx.store.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('idem_key', '=', 'key-crash')
      .executeTakeFirst();
    expect(row).toBeUndefined();
  });

  it('stores and replays a 4xx answer of the handler', async () => {
    const first = await post('/test/conflict', 'key-409', {});
    expect(first.statusCode).toBe(409);
    const second = await post('/test/conflict', 'key-409', {});
    expect(second.statusCode).toBe(409);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  });

  it('claims nothing for a request refused by validation', async () => {
    const bad = await post('/test/echo', 'key-invalid', { nope: 1 });
    expect(bad.statusCode).toBe(400);
    const good = await post('/test/echo', 'key-invalid', { name: 'fixed' });
    expect(good.statusCode).toBe(201);
  });

  it('scopes keys to the credential', async () => {
    const before = await h.eventCount();
    await post('/test/echo', 'key-shared', { name: 'd' }, h.tokens.runtime);
    const admin = await post('/test/echo', 'key-shared', { name: 'd' }, h.tokens.admin);
    expect(admin.headers['idempotent-replayed']).toBeUndefined();
    expect(await h.eventCount()).toBe(before + 2);
  });

  it('refuses a malformed key with 400 naming the header', async () => {
    for (const key of ['', 'has space', 'é', 'x'.repeat(256)]) {
      const res = await h.app.inject({
        method: 'POST',
        url: '/test/echo',
        headers: { ...h.auth(h.tokens.runtime), 'idempotency-key': key },
        payload: { name: 'e' },
      });
      expect(res.statusCode, JSON.stringify(key)).toBe(400);
      expect(res.json()).toMatchObject({ code: 'invalid_request', errors: [{ path: '/headers/idempotency-key' }] });
    }
    expect((await post('/test/echo', 'x'.repeat(255), { name: 'e' })).statusCode).toBe(201);
  });

  it('frees a claim left in flight by a dead process once its lease has passed', async () => {
    const credential = await h.ctx.store.db
      .selectFrom('api_tokens')
      .select('token_id')
      .where('role', '=', 'runtime')
      .where('revoked_at', 'is', null)
      .executeTakeFirstOrThrow();
    const now = h.clock.now().getTime();
    await h.ctx.store.db
      .insertInto('idempotency_keys')
      .values({
        credential_id: credential.token_id,
        idem_key: 'key-orphan',
        request_hash: 'whatever',
        state: 'in_flight',
        response_status: null,
        response_headers: null,
        response_body: null,
        created_at: new Date(now - (IN_FLIGHT_LEASE_SECONDS - 1) * 1000).toISOString(),
        expires_at: new Date(now + 1000).toISOString(),
      })
      .execute();
    expect((await post('/test/echo', 'key-orphan', { name: 'o' })).statusCode).toBe(422);
    h.clock.advance(2);
    expect((await post('/test/echo', 'key-orphan', { name: 'o' })).statusCode).toBe(201);
  });

  it('forgets keys after the configured time, and sweeps expired rows of other keys', async () => {
    const before = await h.eventCount();
    await post('/test/echo', 'key-expiry', { name: 'f' });
    expect(await rowCount()).toBeGreaterThan(2);
    h.clock.advance(3601);
    const again = await post('/test/echo', 'key-expiry', { name: 'f' });
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(await h.eventCount()).toBe(before + 2);
    // every other key of this file expired too, and went with the opportunistic sweep
    expect(await rowCount()).toBe(1);
  });
});
