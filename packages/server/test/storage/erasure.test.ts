/**
 * Right to erasure on each database (DELETE /v1/entities/{id}): the principal's personal data goes (display name,
 * public key, thumbprint; its card tokens' network token, last4 and expiry, also in their events), its salts go,
 * its principal credentials stop working, `ns.entity.tombstoned` is written; the chain still verifies, a pack
 * exported before still verifies and is served unchanged, a pack first requested after is assembled and verifies;
 * the tombstoned entity can neither come back nor be registered again, and authorize denies it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifyEvidencePack, type Jwks } from '@aar/core';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { testDialects } from '../support/dialects.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const dialects = await testDialects();
const ALICE = 'ns:entity:person:alice';
const ORIGIN = '127.0.0.1:8080/audit';

describe.each(dialects)('erasure on %s', (dialect) => {
  let rt: TestRuntime;
  let world: Awaited<ReturnType<typeof buildPurchaseWorld>>;
  let jwks: Jwks;
  beforeEach(async () => {
    rt = await startTestRuntime({ dialect });
    const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    world = await buildPurchaseWorld(base, ADMIN_TOKEN);
    await world.must('POST', '/v1/card-tokens', {
      id: 'tok-2',
      principal_entity_id: ALICE,
      network_token: 'ntk_alice_2',
      network: 'visa',
      last4: '4242',
      expires: '2029-12',
    });
    jwks = (await world.call('GET', '/.well-known/jwks.json')).body;
  });
  afterEach(async () => rt?.close());

  const db = () => rt.ctx.store.db;
  const pack = (id: string) => world.call('GET', `/v1/evidence-packs/${id}`);

  it('erases a principal and keeps the chain and every pack verifiable', async () => {
    const before = (await world.authorize(world.purchase(20))).body;
    const exported = (await pack(before.evidence_refs[0])).body;
    const later = (await world.authorize(world.purchase(21))).body;
    const saltsBefore = await db().selectFrom('subject_salts').select('subject_ref').execute();
    expect(saltsBefore.map((s) => s.subject_ref)).toEqual(
      expect.arrayContaining([ALICE, 'ns:card_token:tok-1', 'ns:card_token:tok-2']),
    );

    const res = await world.call('DELETE', `/v1/entities/${ALICE}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ entity_id: ALICE, state: 'tombstoned', display_name: null, public_key_jwk: null });

    const tokens = await db().selectFrom('card_tokens').selectAll().where('principal_entity_id', '=', ALICE).execute();
    expect(tokens).toHaveLength(2);
    for (const t of tokens) {
      expect(t).toMatchObject({ network_token: 'erased', last4: null, expires: null, state: 'suspended' });
    }
    const created = await db()
      .selectFrom('events')
      .select('envelope')
      .where('event_type', '=', 'ns.card_token.created')
      .execute();
    expect(created.map((e) => e.envelope).join()).not.toContain('4242');
    const salts = (await db().selectFrom('subject_salts').select('subject_ref').execute()).map((s) => s.subject_ref);
    expect(salts).not.toContain(ALICE);
    expect(salts).not.toContain('ns:card_token:tok-1');
    expect(salts).not.toContain('ns:card_token:tok-2');
    expect(salts).toContain('ns:entity:agent:shopper-1');
    const tombstoned = await db()
      .selectFrom('events')
      .select('envelope')
      .where('event_type', '=', 'ns.entity.tombstoned')
      .execute();
    expect(tombstoned).toHaveLength(1);
    expect(JSON.parse(tombstoned[0]!.envelope)).toMatchObject({
      subject_ref: ALICE,
      reason_code: 'entity_erased',
      data: { previous_state: 'active', new_state: 'tombstoned', card_tokens_erased: 2, credentials_revoked: 1 },
    });
    // the principal's credential is revoked with it
    expect((await world.call('GET', `/v1/entities/${ALICE}`, undefined, world.principalToken)).status).toBe(401);
    // nothing in the chain names her, before or after
    const entries = await db().selectFrom('audit_entries').select('entry').execute();
    expect(entries.map((e) => e.entry).join()).not.toMatch(/alice|tok-1|tok-2/);

    expect((await world.call('GET', '/v1/audit/verify')).body).toMatchObject({ valid: true });
    expect(await verifyEvidencePack(exported, jwks, { origin: ORIGIN })).toMatchObject({ valid: true });
    expect((await pack(before.evidence_refs[0])).body).toEqual(exported);
    const assembledAfter = (await pack(later.evidence_refs[0])).body;
    expect(await verifyEvidencePack(assembledAfter, jwks, { origin: ORIGIN })).toMatchObject({ valid: true });

    expect((await world.authorize(world.purchase(10))).body).toMatchObject({
      decision: 'deny',
      reason: 'principal_inactive',
    });
  });

  it('never brings a tombstoned entity back', async () => {
    expect((await world.call('DELETE', `/v1/entities/${ALICE}`)).status).toBe(200);
    const events = async () =>
      (await db().selectFrom('events').select('event_id').where('event_type', '=', 'ns.entity.tombstoned').execute())
        .length;
    expect((await world.call('DELETE', `/v1/entities/${ALICE}`)).body.state).toBe('tombstoned');
    expect(await events()).toBe(1);
    for (const verb of ['activate', 'suspend']) {
      const res = await world.call('POST', `/v1/entities/${ALICE}/${verb}`);
      expect(res.status, verb).toBe(409);
    }
    const again = await world.call('POST', '/v1/entities', {
      type: 'person',
      id: 'alice',
      display_name: 'Alice again',
    });
    expect(again.status).toBe(409);
    const token = await world.call('POST', '/v1/tokens', { role: 'principal', principal_entity_id: ALICE });
    expect(token.status).toBe(422);
    expect((await world.call('DELETE', '/v1/entities/ns:entity:person:nobody')).status).toBe(404);
    expect((await world.call('DELETE', '/v1/entities/not-an-id')).status).toBe(400);
    expect((await world.call('DELETE', `/v1/entities/${ALICE}`, undefined, world.runtimeToken)).status).toBe(403);
  });

  it('erases an agent: its key goes and it can act no more', async () => {
    const res = await world.call('DELETE', '/v1/entities/ns:agent:shopper-1');
    expect(res.body).toMatchObject({
      state: 'tombstoned',
      public_key_jwk: null,
      key_thumbprint: null,
      display_name: null,
    });
    const salts = (await db().selectFrom('subject_salts').select('subject_ref').execute()).map((s) => s.subject_ref);
    expect(salts).not.toContain('ns:entity:agent:shopper-1');
    // still a card token of alice: untouched
    const tok = await db()
      .selectFrom('card_tokens')
      .selectAll()
      .where('card_token_id', '=', 'ns:card_token:tok-2')
      .executeTakeFirstOrThrow();
    expect(tok.last4).toBe('4242');
    const denied = (await world.authorize(world.purchase(10))).body;
    expect(denied.decision).toBe('deny');
    expect((await world.call('GET', '/v1/audit/verify')).body).toMatchObject({ valid: true });
  });
});
