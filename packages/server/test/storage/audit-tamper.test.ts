/**
 * `GET /v1/audit/verify` on each database finds a hand edit that bypasses the write-once triggers (SQLite: drop the
 * trigger, edit, recreate it; PostgreSQL: `session_replication_role = replica` in that connection) and names the
 * index: an edited entry, a wrong previous hash re-hashed to look self-consistent, a forged tree node, a deleted
 * entry. Checkpoints on both databases: an empty log has none to sign; new ones are consistent with the last.
 * Evidence packs are write-once in the database itself.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { canonicalJson, verifyConsistencyProofJson } from '@aar/core';
import { signCheckpoint } from '../../src/audit/checkpoints.ts';
import { loadConfig } from '../../src/config.ts';
import { openRuntime } from '../../src/runtime.ts';
import { bypassingGuards } from '../support/bypassing-guards.ts';
import { testDialects } from '../support/dialects.ts';
import { freshPgSchema } from '../support/pg-schema.ts';
import { auth, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const dialects = await testDialects();

describe.each(dialects)('audit tampering on %s', (dialect) => {
  let rt: TestRuntime;
  beforeEach(async () => {
    rt = await startTestRuntime({ dialect });
    for (let i = 0; i < 20; i++) {
      await rt.app.inject({
        method: 'POST',
        url: '/v1/entities',
        headers: { ...auth(), 'content-type': 'application/json' },
        payload: { type: 'person', id: `p${i}`, display_name: `P ${i}` },
      });
    }
  });
  afterEach(async () => rt?.close());

  const verify = async () => (await rt.app.inject({ method: 'GET', url: '/v1/audit/verify', headers: auth() })).json();
  const entryText = async (idx: number) =>
    (await rt.ctx.store.db.selectFrom('audit_entries').select('entry').where('idx', '=', idx).executeTakeFirstOrThrow())
      .entry;

  it('is valid untouched, and the write-once triggers still hold after a bypass', async () => {
    expect(await verify()).toMatchObject({ valid: true, size: 21, checked: 21 });
    await bypassingGuards(rt.ctx.store.db, dialect, async () => undefined);
    await expect(sql`update audit_entries set kind = 'x'`.execute(rt.ctx.store.db)).rejects.toThrow(/write-once/);
  });

  it('names an edited entry', async () => {
    const original = await entryText(7);
    await bypassingGuards(rt.ctx.store.db, dialect, async (db) => {
      await db
        .updateTable('audit_entries')
        .set({ entry: original.replace('"kind":"ns.entity.created"', '"kind":"ns.entity.removed"') })
        .where('idx', '=', 7)
        .execute();
    });
    expect(await verify()).toMatchObject({
      valid: false,
      first_invalid_index: 7,
      checked: 7,
      failure: 'leaf_hash_mismatch',
    });
  });

  it('names an entry whose previous hash is wrong, even re-hashed to look self-consistent', async () => {
    const entry = JSON.parse(await entryText(9));
    entry.prev_leaf_hash = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';
    const text = canonicalJson(entry);
    const leaf = createHash('sha256').update(Buffer.of(0)).update(text).digest('base64');
    await bypassingGuards(rt.ctx.store.db, dialect, async (db) => {
      await db.updateTable('audit_entries').set({ entry: text, leaf_hash: leaf }).where('idx', '=', 9).execute();
      await db.updateTable('audit_nodes').set({ hash: leaf }).where('level', '=', 0).where('idx', '=', 9).execute();
    });
    expect(await verify()).toMatchObject({ valid: false, first_invalid_index: 9, failure: 'prev_link_broken' });
  });

  it('names a forged tree node and a deleted entry', async () => {
    await bypassingGuards(rt.ctx.store.db, dialect, async (db) => {
      await db
        .updateTable('audit_nodes')
        .set({ hash: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=' })
        .where('level', '=', 2)
        .where('idx', '=', 3)
        .execute();
    });
    expect(await verify()).toMatchObject({ valid: false, first_invalid_index: 12, failure: 'node_mismatch' });
    await bypassingGuards(rt.ctx.store.db, dialect, async (db) => {
      await db.deleteFrom('audit_entries').where('idx', '=', 5).execute();
    });
    expect(await verify()).toMatchObject({ valid: false, first_invalid_index: 5, failure: 'entry_missing' });
  });

  it('catches a forgery of every commitment with the signed checkpoint', async () => {
    const checkpoint = await signCheckpoint(rt.ctx);
    expect(checkpoint.size).toBe(21);
    // rewrite the last entry and everything that commits to it: its hashes, its nodes, the tip
    const entry = JSON.parse(await entryText(20));
    entry.occurred_at = '2000-01-01T00:00:00.000Z';
    const text = canonicalJson(entry);
    const leaf = createHash('sha256').update(Buffer.of(0)).update(text).digest();
    const tip = await rt.ctx.store.db.selectFrom('audit_state').selectAll().executeTakeFirstOrThrow();
    const frontier = JSON.parse(tip.frontier) as { size: number; hashes: string[] };
    // 21 = 16 + 4 + 1: leaf 20 completes no interior node, and is itself the last frontier hash
    frontier.hashes[frontier.hashes.length - 1] = leaf.toString('base64');
    await bypassingGuards(rt.ctx.store.db, dialect, async (db) => {
      await db
        .updateTable('audit_entries')
        .set({ entry: text, leaf_hash: leaf.toString('base64'), occurred_at: entry.occurred_at })
        .where('idx', '=', 20)
        .execute();
      await db
        .updateTable('audit_nodes')
        .set({ hash: leaf.toString('base64') })
        .where('level', '=', 0)
        .where('idx', '=', 20)
        .execute();
      await db
        .updateTable('audit_state')
        .set({ last_leaf_hash: leaf.toString('base64'), frontier: JSON.stringify(frontier) })
        .execute();
    });
    expect(await verify()).toMatchObject({ valid: false, failure: 'checkpoint_root_mismatch', checked: 20 });
  });

  it('signs consistent checkpoints; the database refuses to change evidence packs', async () => {
    const first = await signCheckpoint(rt.ctx);
    await rt.app.inject({
      method: 'POST',
      url: '/v1/entities',
      headers: { ...auth(), 'content-type': 'application/json' },
      payload: { type: 'person', id: 'late', display_name: 'Late' },
    });
    const second = await signCheckpoint(rt.ctx);
    expect(second.size).toBe(first.size + 1);
    const proof = (
      await rt.app.inject({
        method: 'GET',
        url: `/v1/audit/proofs/consistency?from=${first.size}&to=${second.size}`,
        headers: auth(),
      })
    ).json();
    expect(verifyConsistencyProofJson(proof, first.root_hash, second.root_hash)).toEqual({ valid: true });
    const db = rt.ctx.store.db;
    await db
      .insertInto('evidence_packs')
      .values({
        evidence_pack_id: 'ns:evidence-pack:x',
        policy_decision_id: 'ns:decision:x',
        document: '{}',
        created_at: 't',
      })
      .execute();
    await expect(sql`update evidence_packs set document = '{"x":1}'`.execute(db)).rejects.toThrow(/write-once/);
    await expect(sql`delete from evidence_packs`.execute(db)).rejects.toThrow(/write-once/);
    await expect(sql`update audit_checkpoints set root_hash = 'x'`.execute(db)).rejects.toThrow(/write-once/);
  });
});

describe.each(dialects)('an empty log on %s', (dialect) => {
  it('has no checkpoint to sign and verifies as empty', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'aar-empty-'));
    const pg = dialect === 'postgres' ? await freshPgSchema() : undefined;
    const ctx = await openRuntime(loadConfig({ AAR_DATA_DIR: dataDir }, pg ? { databaseUrl: pg.url } : {}));
    try {
      await expect(signCheckpoint(ctx)).rejects.toMatchObject({ code: 'conflict' });
      const { verifyAuditLog } = await import('../../src/audit/verify-audit-log.ts');
      expect(await verifyAuditLog(ctx)).toMatchObject({ valid: true, size: 0, checked: 0, checkpoint: null });
    } finally {
      await ctx.store.close();
      await pg?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
