/**
 * Agent metadata attestations on each database (migration 0029, issue 30): a stored attestation is write-once (the
 * database refuses an UPDATE, a DELETE, a REPLACE (SQLite) or an upsert of its key, and TRUNCATE (PostgreSQL)); an
 * insert moves the facts version, so the very next authorize sees a new attestation; and a row written around the
 * service (SQL access without the agent's key) is never used: authorize verifies the stored document against the
 * agent's registered key, so a request presenting the forged metadata is denied.
 */
import { createPrivateKey, generateKeyPairSync, sign as nodeSign } from 'node:crypto';
import { signDocument } from '@aar/core';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { testDialects } from '../support/dialects.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const dialects = await testDialects();
const AGENT = 'ns:entity:agent:shopper-1';
const METADATA = { model: 'gpt-shop-7', software_version: 'shopper/2.4.1', operator: 'Example Agents GmbH' };

describe.each(dialects)('agent metadata attestations on %s', (dialect) => {
  let rt: TestRuntime;
  let world: Awaited<ReturnType<typeof buildPurchaseWorld>>;
  let id: string;
  let stored: string;
  beforeEach(async () => {
    rt = await startTestRuntime({ dialect });
    const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    world = await buildPurchaseWorld(base, ADMIN_TOKEN);
    const key = createPrivateKey({ key: world.privateJwk, format: 'jwk' });
    const doc = await signDocument(
      {
        schema_version: 'ns.agent_metadata_attestation.v1',
        agent_entity_id: AGENT,
        ...METADATA,
        issued_at: new Date().toISOString(),
      },
      { keyId: AGENT, sign: async (m) => new Uint8Array(nodeSign(null, m, key)) },
    );
    const res = await world.call('POST', `/v1/entities/${AGENT}/metadata-attestations`, doc, world.runtimeToken);
    expect(res.status).toBe(201);
    id = res.body.attestation_id;
    stored = (
      await rt.ctx.store.db.selectFrom('agent_metadata_attestations').select('document').executeTakeFirstOrThrow()
    ).document;
  });
  afterEach(async () => rt?.close());

  it('refuses update, delete, replace, upsert and truncate, and keeps the stored bytes', async () => {
    const db = rt.ctx.store.db;
    const row = await db.selectFrom('agent_metadata_attestations').selectAll().executeTakeFirstOrThrow();
    const attempts = [
      () =>
        db
          .updateTable('agent_metadata_attestations')
          .set({ model: 'other' })
          .where('attestation_id', '=', id)
          .execute(),
      () => db.updateTable('agent_metadata_attestations').set({ document: '{}' }).execute(),
      () => db.deleteFrom('agent_metadata_attestations').where('attestation_id', '=', id).execute(),
      () =>
        db
          .insertInto('agent_metadata_attestations')
          .values({ ...row, model: 'other' })
          .onConflict((oc) => oc.column('attestation_id').doUpdateSet({ model: 'other' }))
          .execute(),
      dialect === 'sqlite'
        ? () =>
            sql`insert or replace into agent_metadata_attestations
              select attestation_id, agent_entity_id, digest, document, 'other', software_version, operator, issued_at,
                public_key_jwk, audit_id, created_at from agent_metadata_attestations`.execute(db)
        : () => sql`truncate agent_metadata_attestations`.execute(db),
    ];
    for (const attempt of attempts) await expect(attempt()).rejects.toThrow(/write-once|refused/);
    const after = await db.selectFrom('agent_metadata_attestations').select(['document', 'model']).execute();
    expect(after).toEqual([{ document: stored, model: METADATA.model }]);
  });

  it('never uses a row written around the service: its document does not verify with the agent key', async () => {
    const db = rt.ctx.store.db;
    expect((await world.authorize(world.purchase(10, { agent_metadata: METADATA }))).body.decision).toBe(
      'allow_with_constraints',
    );
    // mallory, with SQL access but not the agent's key, inserts a newer attestation signed by her own key
    const mallory = generateKeyPairSync('ed25519').privateKey;
    const forgedMetadata = { ...METADATA, model: 'mallory-model' };
    const forged = await signDocument(
      {
        schema_version: 'ns.agent_metadata_attestation.v1',
        agent_entity_id: AGENT,
        ...forgedMetadata,
        issued_at: new Date().toISOString(),
      },
      { keyId: AGENT, sign: async (m) => new Uint8Array(nodeSign(null, m, mallory)) },
    );
    const row = await db.selectFrom('agent_metadata_attestations').selectAll().executeTakeFirstOrThrow();
    const versionBefore = await rt.ctx.store.db.selectFrom('grant_version').select('version').executeTakeFirstOrThrow();
    await db
      .insertInto('agent_metadata_attestations')
      .values({
        ...row,
        attestation_id: 'ns:agent_metadata:01963a4f-0c00-7c00-8a00-0000000000ff',
        digest: 'sha-256:' + 'B'.repeat(43),
        document: JSON.stringify(forged),
        model: forgedMetadata.model,
        audit_id: 'ns:audit:01963a4f-0c00-7c00-8a00-0000000000ff',
        created_at: new Date(Date.now() + 1000).toISOString(),
      })
      .execute();
    // the insert moved the facts version (authorize re-reads at once)
    const versionAfter = await rt.ctx.store.db.selectFrom('grant_version').select('version').executeTakeFirstOrThrow();
    expect(Number(versionAfter.version)).toBeGreaterThan(Number(versionBefore.version));
    const res = await world.authorize(world.purchase(10, { agent_metadata: forgedMetadata }));
    expect(res.body).toMatchObject({ decision: 'deny', reason: 'agent_metadata_mismatch' });
    const actor = res.body.decision_map.nodes.find((n: { type: string }) => n.type === 'actor');
    expect(actor.agent_metadata).toBeUndefined();
  });
});
