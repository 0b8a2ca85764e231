/**
 * The issue's walkthrough, over a real socket, once per database: an admin script creates a person, an agent with
 * a key, a card token, a merchant and a grant; reads each back; lists them; and checks what was signed.
 */
import { createPublicKey, verify } from 'node:crypto';
import canonicalize from 'canonicalize';
import { createLocalJWKSet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyDocument } from '@aar/core';
import { testDialects } from '../support/dialects.ts';
import { agentKeyPair, grantBody, personBody } from '../support/fixtures.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const dialects = await testDialects();

describe.each(dialects)('admin script over HTTP on %s', (dialect) => {
  let rt: TestRuntime;
  let base: string;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${ADMIN_TOKEN}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return {
      status: res.status,
      type: res.headers.get('content-type') ?? '',
      body: text ? JSON.parse(text) : undefined,
    };
  };

  beforeAll(async () => {
    rt = await startTestRuntime({ dialect });
    base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => rt?.close());

  it('creates, reads back and lists every admin resource', async () => {
    const { publicJwk } = agentKeyPair();
    const person = await call('POST', '/v1/entities', personBody());
    expect(person.status).toBe(201);
    expect(person.body).toMatchObject({ entity_id: 'ns:entity:person:alice', type: 'person', state: 'active' });

    const agent = await call('POST', '/v1/entities', {
      type: 'agent',
      id: 'shopper-1',
      display_name: 'Shopper',
      public_key_jwk: publicJwk,
    });
    expect(agent.status).toBe(201);
    expect(agent.body.public_key_jwk).toEqual(publicJwk);
    expect(agent.body.key_thumbprint).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const token = await call('POST', '/v1/card-tokens', {
      id: 'tok-1',
      principal_entity_id: 'ns:entity:person:alice',
      network_token: 'ntk_visa_7f3a9c',
      network: 'visa',
      last4: '4242',
      expires: '2029-12',
    });
    expect(token.status).toBe(201);
    expect(token.body).toMatchObject({
      card_token_id: 'ns:card_token:tok-1',
      credential_id: 'ns:credential:card-token:tok-1',
      state: 'active',
    });
    expect(JSON.stringify(token.body)).not.toContain('ntk_visa_7f3a9c');

    const merchant = await call('POST', '/v1/merchants', {
      id: 'grocer-1',
      display_name: 'Corner Grocer',
      category: '5411',
      jurisdiction: 'DE',
    });
    expect(merchant.status).toBe(201);

    const grant = await call('POST', '/v1/grants', grantBody());
    expect(grant.status).toBe(201);
    expect(grant.body.grant_id).toMatch(/^ns:authority:grant:[0-9a-f-]{36}$/);
    expect(grant.body).toMatchObject({
      principal_entity_id: 'ns:entity:person:alice',
      actor_entity_id: 'ns:entity:agent:shopper-1',
      resource_id: 'ns:credential:card-token:tok-1',
      state: 'active',
      parent_grant_id: null,
    });
    expect(grant.body.scope.max_daily_amount).toEqual({ amount: 100, currency: 'EUR' });
    expect(grant.body.scope.requires_approval_above).toEqual({ amount: 40.5, currency: 'EUR' });

    // read back
    expect((await call('GET', '/v1/entities/ns:entity:person:alice')).body.display_name).toBe('Alice Example');
    expect((await call('GET', '/v1/entities/ns:agent:shopper-1')).body.entity_id).toBe('ns:entity:agent:shopper-1');
    expect((await call('GET', '/v1/card-tokens/ns:credential:card-token:tok-1')).body.card_token_id).toBe(
      'ns:card_token:tok-1',
    );
    expect((await call('GET', '/v1/merchants/grocer-1')).body.category).toBe('5411');
    expect((await call('GET', `/v1/grants/${grant.body.grant_id}`)).body).toEqual(grant.body);

    // lists, walked one item per page through the cursor
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { items: Array<{ entity_id: string }>; next_cursor: string | null } } = await call(
        'GET',
        `/v1/entities?limit=1${cursor ? `&cursor=${cursor}` : ''}`,
      );
      seen.push(...page.body.items.map((e) => e.entity_id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(['ns:entity:person:alice', 'ns:entity:agent:shopper-1']);
    expect((await call('GET', '/v1/entities?type=agent')).body.items).toHaveLength(1);
    expect((await call('GET', '/v1/card-tokens')).body.items).toHaveLength(1);
    expect((await call('GET', '/v1/merchants')).body.items).toHaveLength(1);
    expect((await call('GET', '/v1/grants?actor_entity_id=ns:agent:shopper-1')).body.items).toHaveLength(1);

    // the grant link is signed by a key of the JWKS: core's verifier and an independent node:crypto check agree
    const jwks = (await call('GET', '/.well-known/jwks.json')).body;
    expect(() => createLocalJWKSet(jwks)).not.toThrow();
    const link = grant.body.link;
    expect(await verifyDocument(link, jwks)).toMatchObject({ valid: true, key_id: link.signature.key_id });
    const { signature, ...unsigned } = link;
    const jwk = jwks.keys.find((k: { kid: string }) => k.kid === signature.key_id);
    const ok = verify(
      null,
      Buffer.from(canonicalize(unsigned)!),
      createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: 'jwk' }),
      Buffer.from(signature.signature, 'base64url'),
    );
    expect(ok).toBe(true);

    // every state change left a signed envelope, in order
    const events = (await call('GET', '/v1/events')).body.items;
    expect(events.map((e: { event_type: string }) => e.event_type)).toEqual([
      'ns.credential.created',
      'ns.entity.created',
      'ns.entity.created',
      'ns.card_token.created',
      'ns.merchant.created',
      'ns.authority.granted',
    ]);
    for (const e of events) {
      expect(e).toMatchObject({
        schema_version: 'ns.webhook.v1',
        delivery: { idempotency_key: e.event_id, replayable: true },
      });
      expect((await verifyDocument(e, jwks)).valid).toBe(true);
    }
    const afterFirst = (
      await call('GET', `/v1/events?after=${(await call('GET', '/v1/events?limit=1')).body.next_cursor}`)
    ).body.items;
    expect(afterFirst).toHaveLength(events.length - 1);
  });

  it('suspends and reactivates an entity and a card token, with events', async () => {
    const s = await call('POST', '/v1/entities/ns:entity:agent:shopper-1/suspend');
    expect(s.body.state).toBe('suspended');
    expect((await call('POST', '/v1/card-tokens/ns:card_token:tok-1/suspend')).body.state).toBe('suspended');
    expect((await call('POST', '/v1/card-tokens/ns:card_token:tok-1/activate')).body.state).toBe('active');
    expect((await call('POST', '/v1/entities/ns:entity:agent:shopper-1/activate')).body.state).toBe('active');
    const types = (await call('GET', '/v1/events?limit=500')).body.items.map(
      (e: { event_type: string }) => e.event_type,
    );
    expect(types.slice(-4)).toEqual([
      'ns.entity.suspended',
      'ns.card_token.suspended',
      'ns.card_token.activated',
      'ns.entity.activated',
    ]);
  });
});
