/**
 * Incremental verification (docs/audit.md, "Incremental verification"), on each database: a valid run stores a
 * signed verification mark; `GET /v1/audit/verify?from=verified` walks only what was appended since, with the
 * records of the new entries, and still names an edit of one of them; a mark that was forged, or a log cut back
 * under it, is refused rather than trusted; a full run still finds what an incremental one does not look at (a row
 * below the mark). Also: a stored Merkle node deleted, or shortened, is named by the first leaf it covers.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifyDocument, type Jwks } from '@aar/core';
import { sql, type Kysely } from 'kysely';
import { decodeDecisionRecord, encodeDecisionRecord } from '../../src/services/decisions/record-codec.ts';
import type { Database, Dialect } from '../../src/store/index.ts';
import { testDialects } from '../support/dialects.ts';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { ADMIN_TOKEN, auth, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const dialects = await testDialects();

/** Runs `edit` with the guards out of the way (SQLite: without the table's triggers; PostgreSQL: replica). */
async function bypassingGuards(
  db: Kysely<Database>,
  dialect: Dialect,
  table: string,
  edit: (db: Kysely<Database>) => Promise<void>,
) {
  if (dialect === 'postgres') {
    await db.transaction().execute(async (trx) => {
      await sql`set local session_replication_role = replica`.execute(trx);
      await edit(trx);
    });
    return;
  }
  const triggers = (
    await sql<{ name: string; sql: string }>`select name, sql from sqlite_master
      where type = 'trigger' and tbl_name = ${table}`.execute(db)
  ).rows;
  for (const t of triggers) await sql`drop trigger ${sql.raw(t.name)}`.execute(db);
  try {
    await edit(db);
  } finally {
    for (const t of triggers) await sql.raw(t.sql).execute(db);
  }
}

describe.each(dialects)('incremental audit verification on %s', (dialect) => {
  let rt: TestRuntime;
  let world: Awaited<ReturnType<typeof buildPurchaseWorld>>;
  let jwks: Jwks;
  beforeEach(async () => {
    rt = await startTestRuntime({ dialect });
    const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    world = await buildPurchaseWorld(base, ADMIN_TOKEN);
    jwks = (await world.call('GET', '/.well-known/jwks.json')).body;
  });
  afterEach(async () => rt?.close());

  const db = () => rt.ctx.store.db;
  const verify = async (query = '') => {
    const res = await rt.app.inject({ method: 'GET', url: `/v1/audit/verify${query}`, headers: auth() });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const decide = async (amount: number) => (await world.authorize(world.purchase(amount))).body;
  const reRecord = async (id: string, from: string, to: string) => {
    const row = await db()
      .selectFrom('decisions')
      .select('record')
      .where('policy_decision_id', '=', id)
      .executeTakeFirstOrThrow();
    const record = encodeDecisionRecord(decodeDecisionRecord(row.record!).replace(from, to));
    await bypassingGuards(db(), dialect, 'decisions', async (trx) => {
      await trx.updateTable('decisions').set({ record }).where('policy_decision_id', '=', id).execute();
    });
  };

  it('marks a valid run, then walks only what was appended since', async () => {
    await decide(10);
    const full = await verify();
    expect(full).toMatchObject({ valid: true, from: 0, checked: full.size });
    expect(full.mark).toMatchObject({ schema_version: 'ns.audit_verification.v1', size: full.size, walked_from: 0 });
    expect(full.mark.root_hash).toBe(full.root_hash);
    expect(await verifyDocument(full.mark, jwks)).toMatchObject({ valid: true });

    // decisions of every kind, an approval, a revocation cascade: all new since the mark
    await decide(20);
    await decide(60);
    const asked = await decide(45);
    expect(asked.decision).toBe('require_approval');
    expect((await world.call('POST', `/v1/grants/${world.grant.grant_id}/revoke`)).status).toBe(200);
    const next = await verify('?from=verified');
    expect(next).toMatchObject({ valid: true, from: full.size });
    expect(next.size).toBeGreaterThan(full.size);
    expect(next.checked).toBe(next.size);
    expect(next.mark).toMatchObject({ size: next.size, walked_from: full.size, root_hash: next.root_hash });
    // the same root a full walk computes
    expect((await verify()).root_hash).toBe(next.root_hash);

    const idle = await verify('?from=verified');
    expect(idle).toMatchObject({ valid: true, from: next.size, checked: next.size, mark: { size: next.size } });
  });

  it('walks the whole log when no mark was made yet, and refuses an unknown `from`', async () => {
    await decide(10);
    expect(await verify('?from=verified')).toMatchObject({ valid: true, from: 0 });
    const bad = await rt.app.inject({ method: 'GET', url: '/v1/audit/verify?from=yesterday', headers: auth() });
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toMatch(/problem\+json/);
    expect(bad.body).toMatch(/from/);
  });

  it('names an edit of a record appended since the mark', async () => {
    await decide(10);
    await verify();
    const fresh = await decide(11);
    await reRecord(fresh.policy_decision_id, 'grocer-1', 'casino-1');
    const entry = await db()
      .selectFrom('audit_entries')
      .select('idx')
      .where('audit_id', '=', fresh.audit_ref)
      .executeTakeFirstOrThrow();
    expect(await verify('?from=verified')).toMatchObject({
      valid: false,
      failure: 'record_digest_mismatch',
      first_invalid_index: Number(entry.idx),
      record: { table: 'decisions', id: fresh.policy_decision_id },
      mark: null,
    });
  });

  it('leaves rows below the mark to full runs, which still find their edits', async () => {
    const old = await decide(10);
    await verify();
    await decide(11);
    await reRecord(old.policy_decision_id, 'grocer-1', 'casino-1');
    expect(await verify('?from=verified')).toMatchObject({ valid: true });
    expect(await verify()).toMatchObject({
      valid: false,
      failure: 'record_digest_mismatch',
      record: { table: 'decisions', id: old.policy_decision_id },
    });
  });

  it('refuses a forged mark and a log cut back under its mark', async () => {
    await decide(10);
    const { mark } = await verify();
    await bypassingGuards(db(), dialect, 'audit_verifications', async (trx) => {
      const forged = { ...mark, record_seqs: { ...mark.record_seqs, decisions: 1_000_000 } };
      await trx
        .updateTable('audit_verifications')
        .set({ document: JSON.stringify(forged) })
        .where('size', '=', mark.size)
        .execute();
    });
    expect(await verify('?from=verified')).toMatchObject({
      valid: false,
      failure: 'verification_mark_invalid',
      record: { table: 'audit_verifications', id: String(mark.size) },
      detail: 'signature',
    });
    await bypassingGuards(db(), dialect, 'audit_verifications', async (trx) => {
      await trx
        .updateTable('audit_verifications')
        .set({ document: JSON.stringify(mark) })
        .where('size', '=', mark.size)
        .execute();
    });
    expect(await verify('?from=verified')).toMatchObject({ valid: true, from: mark.size });

    // the last entry under the mark rewritten with its hash (as a rollback and re-append would leave it)
    await bypassingGuards(db(), dialect, 'audit_entries', async (trx) => {
      await trx
        .updateTable('audit_entries')
        .set({ leaf_hash: 'A'.repeat(43) + '=' })
        .where('idx', '=', mark.size - 1)
        .execute();
    });
    expect(await verify('?from=verified')).toMatchObject({
      valid: false,
      failure: 'verification_mark_invalid',
      detail: `entry ${mark.size - 1} is not the mark's last leaf`,
    });
  });

  it('names the first leaf of a stored node that was deleted or shortened', async () => {
    for (let i = 0; i < 4; i++) await decide(10 + i);
    await bypassingGuards(db(), dialect, 'audit_nodes', async (trx) => {
      await trx.deleteFrom('audit_nodes').where('level', '=', 1).where('idx', '=', 2).execute();
    });
    expect(await verify()).toMatchObject({ valid: false, failure: 'node_mismatch', first_invalid_index: 4 });
    await bypassingGuards(db(), dialect, 'audit_nodes', async (trx) => {
      await trx.insertInto('audit_nodes').values({ level: 1, idx: 2, hash: 'AAAA' }).execute();
    });
    expect(await verify()).toMatchObject({ valid: false, failure: 'node_mismatch', first_invalid_index: 4 });
  });
});
