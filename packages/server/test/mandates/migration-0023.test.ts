/**
 * Migration 0023 on both databases: the mandate tables exist, `grants.mandate_id` is there, and the write-once
 * guards hold: a mandate row's facts cannot be edited or deleted, `used_by` moves once from null, and an issuer row
 * is fixed.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialects } from '../support/dialects.ts';
import { startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const dialects = await testDialects();

describe.each(dialects)('migration 0023-mandates on %s', (dialect) => {
  let rt: TestRuntime;
  beforeAll(async () => {
    rt = await startTestRuntime({ dialect });
  });
  afterAll(async () => rt?.close());

  const row = {
    mandate_id: 'ns:mandate:00000000-0000-7000-8000-000000000001',
    format: 'ap2' as const,
    digest: 'digest-1',
    issuer: 'https://issuer.example',
    principal_entity_id: 'ns:entity:person:alice',
    actor_entity_id: 'ns:entity:agent:a',
    parent_grant_id: 'ns:authority:grant:p',
    root_grant_id: 'ns:authority:grant:p',
    grant_id: 'ns:authority:grant:g',
    constraints: '[]',
    document: 'doc',
    single_use: 1,
    checkout_session_id: null,
    vaulted_token_id: null,
    idempotency_key: null,
    expires_at: null,
    used_by: null,
    created_at: '2026-11-28T00:00:00.000Z',
  };

  it('guards mandates: facts fixed, used_by set once, no delete, one row per digest', async () => {
    const db = rt.ctx.store.db;
    await db.insertInto('mandates').values(row).execute();
    await expect(
      db.updateTable('mandates').set({ digest: 'other' }).where('mandate_id', '=', row.mandate_id).execute(),
    ).rejects.toThrow(/write-once/);
    await db
      .updateTable('mandates')
      .set({ used_by: 'ns:decision:1' })
      .where('mandate_id', '=', row.mandate_id)
      .execute();
    await expect(
      db.updateTable('mandates').set({ used_by: 'ns:decision:2' }).where('mandate_id', '=', row.mandate_id).execute(),
    ).rejects.toThrow(/write-once/);
    await expect(db.deleteFrom('mandates').where('mandate_id', '=', row.mandate_id).execute()).rejects.toThrow(
      /write-once/,
    );
    await expect(
      db
        .insertInto('mandates')
        .values({ ...row, mandate_id: 'ns:mandate:x', grant_id: 'ns:authority:grant:h' })
        .execute(),
    ).rejects.toThrow();
    const columns =
      dialect === 'sqlite'
        ? (await sql<{ name: string }>`select name from pragma_table_info('grants')`.execute(db)).rows
        : (
            await sql<{ name: string }>`select column_name as name from information_schema.columns
              where table_schema = current_schema() and table_name = 'grants'`.execute(db)
          ).rows;
    expect(columns.map((c) => c.name)).toContain('mandate_id');
  });

  it('guards mandate_issuers: a registration is fixed', async () => {
    const db = rt.ctx.store.db;
    await db
      .insertInto('mandate_issuers')
      .values({
        issuer: 'https://issuer.example',
        format: 'ap2',
        jwks: '{"keys":[]}',
        jwks_uri: null,
        audit_id: 'ns:audit:x',
        created_at: row.created_at,
      })
      .execute();
    await expect(
      db
        .updateTable('mandate_issuers')
        .set({ jwks: '{"keys":[{}]}' })
        .where('issuer', '=', 'https://issuer.example')
        .execute(),
    ).rejects.toThrow(/write-once/);
    await expect(db.deleteFrom('mandate_issuers').execute()).rejects.toThrow(/write-once/);
  });
});
