/**
 * POST /v1/mandates over HTTP on both databases (CONTRACT section 21): an AP2 chain made with test keys is accepted
 * under the principal's grant and becomes a bound grant; every refusal (unknown issuer, a wider mandate, a reused
 * nonce, a wrong audience, malformed presentations, a caller who may not) is problem+json naming the part and writes
 * nothing; GET shows the derived state; revoking the mandate, or the principal's grant above it, revokes its grant in
 * the cascade and says so with `ns.mandate.revoked`.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDelegationWorld, type DelegationWorld } from '../support/delegation-world.ts';
import { testDialects } from '../support/dialects.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';
import { ap2Keys, openPaymentChain, paymentConstraints, type Ap2Keys } from './support/ap2-chain.ts';

const dialects = await testDialects();
const ISSUER = 'https://wallet.issuer.test';

describe.each(dialects)('AP2 mandates over HTTP on %s', (dialect) => {
  let rt: TestRuntime;
  let w: DelegationWorld;
  let keys: Ap2Keys;
  let audience: string;
  const now = () => Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    rt = await startTestRuntime({ dialect });
    const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    void (rt.app.server.address() as AddressInfo);
    w = await buildDelegationWorld(base, ADMIN_TOKEN);
    keys = await ap2Keys();
    audience = rt.ctx.config.mandateAudiences[0]!;
  }, 60_000);
  afterAll(async () => rt?.close());

  /** Rows a refusal must leave as they were. */
  const counts = async () => {
    const db = rt.ctx.store.db;
    const n = async (t: 'mandates' | 'mandate_nonces' | 'grants' | 'events' | 'audit_entries') =>
      Number(
        (
          await db
            .selectFrom(t)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    return {
      mandates: await n('mandates'),
      nonces: await n('mandate_nonces'),
      grants: await n('grants'),
      events: await n('events'),
      audit: await n('audit_entries'),
    };
  };
  const chain = (overrides: Partial<Parameters<typeof openPaymentChain>[1]> = {}) =>
    openPaymentChain(keys, {
      issuer: ISSUER,
      audience,
      nowSeconds: now(),
      constraints: paymentConstraints(5000, 'EUR', ['merchant_1']),
      ...overrides,
    });
  const body = (presentation: string, extra: Record<string, unknown> = {}) => ({
    format: 'ap2',
    presentation,
    parent_grant_id: w.root.grant_id,
    actor_entity_id: 'ns:entity:agent:shopper-1',
    payees: { merchant_1: 'ns:merchant:grocer-1' },
    ...extra,
  });
  const codes = (res: { body: { errors?: Array<{ code?: string; path: string }> } }) =>
    (res.body.errors ?? []).map((e) => e.code);

  it('refuses a mandate whose issuer is not registered (issuer_key_unknown), writing nothing', async () => {
    const before = await counts();
    const res = await w.call('POST', '/v1/mandates', body(await chain()));
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('mandate_invalid');
    expect(codes(res)).toContain('issuer_key_unknown');
    expect(res.body.errors[0].path).toMatch(/^\/presentation\/hops\/0/);
    expect(await counts()).toEqual(before);
  });

  it('registers the issuer (admin only), then accepts the chain as a grant bound to the mandate', async () => {
    const jwks = { keys: [keys.issuer.publicJwk] };
    expect(
      (await w.call('POST', '/v1/mandate-issuers', { issuer: ISSUER, format: 'ap2', jwks }, w.aliceToken)).status,
    ).toBe(403);
    const reg = await w.call('POST', '/v1/mandate-issuers', { issuer: ISSUER, format: 'ap2', jwks });
    expect(reg.status).toBe(201);
    expect(reg.body.jwks.keys[0]).not.toHaveProperty('d');
    expect((await w.call('POST', '/v1/mandate-issuers', { issuer: ISSUER, format: 'ap2', jwks })).status).toBe(409);
    expect((await w.call('GET', '/v1/mandate-issuers')).body.items.map((i: { issuer: string }) => i.issuer)).toEqual([
      ISSUER,
    ]);

    const presentation = await chain();
    const res = await w.call('POST', '/v1/mandates', body(presentation), w.aliceToken);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      format: 'ap2',
      issuer: ISSUER,
      state: 'active',
      principal_entity_id: 'ns:entity:person:alice',
      actor_entity_id: 'ns:entity:agent:shopper-1',
      parent_grant_id: w.root.grant_id,
      payees: { merchant_1: 'grocer-1' },
    });
    expect(res.body.mandate_id).toMatch(/^ns:mandate:[0-9a-f-]{36}$/);
    const grant = res.body.grant;
    expect(grant).toMatchObject({ parent_grant_id: w.root.grant_id, actor_entity_id: 'ns:entity:agent:shopper-1' });
    expect(grant.scope.max_amount_per_purchase).toEqual({ amount: 50, currency: 'EUR' });
    expect(grant.scope.allowed_merchants).toEqual(['grocer-1']);
    expect(grant.link.mandate).toEqual({ mandate_id: res.body.mandate_id, format: 'ap2', digest: res.body.digest });
    const row = await rt.ctx.store.db
      .selectFrom('grants')
      .select('mandate_id')
      .where('grant_id', '=', grant.grant_id)
      .executeTakeFirstOrThrow();
    expect(row.mandate_id).toBe(res.body.mandate_id);
    const stored = await rt.ctx.store.db
      .selectFrom('mandates')
      .select(['document', 'digest'])
      .where('mandate_id', '=', res.body.mandate_id)
      .executeTakeFirstOrThrow();
    expect(stored.document).toBe(presentation);
    const accepted = await rt.ctx.store.db
      .selectFrom('events')
      .select('envelope')
      .where('event_type', '=', 'ns.mandate.accepted')
      .where('subject_ref', '=', res.body.mandate_id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(accepted.envelope).data).toMatchObject({
      mandate_id: res.body.mandate_id,
      digest: res.body.digest,
      grant_id: grant.grant_id,
      issuer: ISSUER,
    });

    const got = await w.call('GET', `/v1/mandates/${res.body.mandate_id}`, undefined, w.aliceToken);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ mandate_id: res.body.mandate_id, state: 'active', digest: res.body.digest });
    // another principal does not see it; an unknown id is 404
    expect((await w.call('GET', `/v1/mandates/${res.body.mandate_id}`, undefined, w.bobToken)).status).toBe(404);
    expect((await w.call('GET', '/v1/mandates/ns:mandate:00000000-0000-7000-8000-000000000000')).status).toBe(404);
    expect((await w.call('GET', '/v1/mandates/not-an-id')).status).toBe(400);

    // the same presentation again: 409 naming the mandate; nothing written
    const before = await counts();
    const again = await w.call('POST', '/v1/mandates', body(presentation));
    expect(again.status).toBe(409);
    expect(again.body.mandate_id).toBe(res.body.mandate_id);
    expect(await counts()).toEqual(before);
  });

  it('refuses a reused key-binding nonce, a wrong audience, and a mandate wider than the parent, writing nothing', async () => {
    const nonce = 'nonce-shared-by-two-presentations';
    const first = await w.call('POST', '/v1/mandates', body(await chain({ nonce })));
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const before = await counts();

    const reused = await w.call('POST', '/v1/mandates', body(await chain({ nonce, ttl: 3600 })));
    expect(reused.status).toBe(422);
    expect(codes(reused)).toEqual(['nonce_reused']);
    expect(reused.body.errors[0].path).toBe('/presentation/hops/1/payload/nonce');

    const elsewhere = await w.call('POST', '/v1/mandates', body(await chain({ audience: 'https://other.verifier' })));
    expect(elsewhere.status).toBe(422);
    expect(codes(elsewhere)).toContain('audience_mismatch');

    // 200.00 EUR per purchase under a grant of 100.00: not_subset naming the field
    const wider = await w.call(
      'POST',
      '/v1/mandates',
      body(await chain({ constraints: paymentConstraints(20_000, 'EUR', ['merchant_1']) })),
    );
    expect(wider.status).toBe(422);
    expect(wider.body.code).toBe('mandate_invalid');
    expect(codes(wider)).toEqual(['not_subset']);
    expect(wider.body.errors[0].path).toBe('/scope/max_amount_per_purchase');

    // a payee mapped to no registered merchant
    const unknown = await w.call(
      'POST',
      '/v1/mandates',
      body(await chain(), { payees: { merchant_1: 'ns:merchant:nowhere' } }),
    );
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0].path).toBe('/payees/merchant_1');
    expect(await counts()).toEqual(before);
  });

  it('refuses malformed presentations naming the part, writing nothing', async () => {
    const good = await chain();
    const before = await counts();
    const cases: Array<[string, string, number, string]> = [
      ['truncated', good.slice(0, -1), 422, '/presentation'],
      ['bad base64 in a disclosure', good.replace(/~([^~]+)~$/, '~%%%not-base64%%%~'), 422, '/presentation/hops/1'],
      ['duplicate disclosures', await chain({ duplicateDisclosure: true }), 422, '/presentation/hops/1'],
      ['bad base64 in the issuer JWS', `!!${good}`, 422, '/presentation/hops/0'],
      ['oversized', `${good}${'A'.repeat(70_000)}~`, 400, '/presentation'],
    ];
    for (const [what, presentation, status, path] of cases) {
      const res = await w.call('POST', '/v1/mandates', body(presentation));
      expect(res.status, what).toBe(status);
      expect(res.body.type, what).toMatch(/^urn:aar:problem:/);
      expect(res.body.errors?.[0]?.path ?? '', `${what}: ${JSON.stringify(res.body)}`).toMatch(
        new RegExp(`^${path.replace(/\//g, '\\/')}`),
      );
    }
    expect(await counts()).toEqual(before);
  });

  it('lets only an admin or the principal bring a mandate', async () => {
    const before = await counts();
    const presentation = await chain();
    expect((await w.call('POST', '/v1/mandates', body(presentation), w.runtimeToken)).status).toBe(403);
    expect((await w.call('POST', '/v1/mandates', body(presentation), w.bobToken)).status).toBe(403);
    expect(await counts()).toEqual(before);
  });

  it('revokes a mandate by id, and with the principal grant above it, in the cascade', async () => {
    const made = await w.call('POST', '/v1/mandates', body(await chain()));
    expect(made.status).toBe(201);
    const id = made.body.mandate_id as string;
    const revoked = await w.call('POST', `/v1/mandates/${id}/revoke`, undefined, w.aliceToken);
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    expect(revoked.body).toMatchObject({ mandate_id: id, state: 'revoked', grant: { revoked_count: 1 } });
    const got = await w.call('GET', `/v1/mandates/${id}`);
    expect(got.body.state).toBe('revoked');
    expect(got.body.grant.state).toBe('revoked');
    const again = await w.call('POST', `/v1/mandates/${id}/revoke`);
    expect(again.body.grant.already_revoked).toBe(true);

    // a second mandate, then the root grant revoked: the cascade reaches the mandate's grant and says so
    const other = await w.call('POST', '/v1/mandates', body(await chain()));
    expect(other.status).toBe(201);
    const otherId = other.body.mandate_id as string;
    const root = await w.call('POST', `/v1/grants/${w.root.grant_id}/revoke`, undefined, w.aliceToken);
    expect(root.status).toBe(200);
    expect((await w.call('GET', `/v1/mandates/${otherId}`)).body.state).toBe('revoked');
    const revocations = await rt.ctx.store.db
      .selectFrom('events')
      .select(['subject_ref', 'envelope'])
      .where('event_type', '=', 'ns.mandate.revoked')
      .execute();
    // one event per mandate: the one revoked by id, then every mandate of the tree (the earlier tests' too)
    const all = await rt.ctx.store.db.selectFrom('mandates').select('mandate_id').execute();
    expect(revocations.map((e) => e.subject_ref).sort()).toEqual(all.map((m) => m.mandate_id).sort());
    expect(revocations.filter((e) => e.subject_ref === id)).toHaveLength(1);
    const cascade = JSON.parse(revocations.find((e) => e.subject_ref === otherId)!.envelope);
    expect(cascade.data).toMatchObject({ revocation_root: w.root.grant_id, grant_id: other.body.grant.grant_id });
    expect(cascade.reason_code).toBe('principal_revoked_authority');
    // the chain still verifies with every new row
    expect((await w.call('GET', '/v1/audit/verify')).body.valid).toBe(true);
  });
});
