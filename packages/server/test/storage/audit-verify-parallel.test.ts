/**
 * `/verify` on two threads (audit/verify/parallel-walk.ts) on the embedded default, forced on a small log: it gives
 * the answer of one thread, valid or not, whichever half of the chain or of the decision rows the damage is in,
 * including damage to the stored frontier the worker starts from (found below the split, so named there). It runs
 * only on a SQLite file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { verifyAuditLog, type VerifyAuditLogOptions } from '../../src/audit/verify-audit-log.ts';
import { workerWalks } from '../../src/audit/verify/parallel-walk.ts';
import { decodeDecisionRecord, encodeDecisionRecord } from '../../src/services/decisions/record-codec.ts';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

describe('the two-thread walk of /verify', () => {
  let rt: TestRuntime;
  beforeAll(async () => {
    rt = await startTestRuntime();
    const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    const world = await buildPurchaseWorld(base, ADMIN_TOKEN);
    for (let i = 0; i < 12; i++) await world.authorize(world.purchase(10 + (i % 3) * 20));
    await world.call('POST', '/v1/audit/checkpoint');
    for (let i = 0; i < 5; i++) await world.authorize(world.purchase(11));
  });
  afterAll(async () => rt?.close());

  const both = async () => {
    const one: VerifyAuditLogOptions = { storeMark: false, parallelMinEntries: Number.MAX_SAFE_INTEGER };
    const two: VerifyAuditLogOptions = { storeMark: false, parallelMinEntries: 0, pageSize: 7 };
    const a = await verifyAuditLog(rt.ctx, one);
    const walked = workerWalks.completed;
    const b = await verifyAuditLog(rt.ctx, two);
    // the upper half was walked by the worker thread (not by the fallback on this thread), unless the lower half
    // failed first (then the worker's answer is not waited for)
    if (!b.valid && (b.first_invalid_index ?? 0) < (b.checked ?? 0) / 2) return { one: a, two: b };
    expect(workerWalks.completed).toBe(walked + 1);
    return { one: a, two: b };
  };
  const size = async () =>
    Number((await rt.ctx.store.db.selectFrom('audit_state').select('size').executeTakeFirstOrThrow()).size);
  /** an edit of the audit tables with their triggers dropped, undone after `check` */
  const tampered = async (edit: string, undo: string, check: () => Promise<void>) => {
    const db = rt.ctx.store.db;
    const triggers = (
      await sql<{ name: string; sql: string }>`select name, sql from sqlite_master where type = 'trigger'
        and tbl_name in ('audit_entries', 'audit_nodes')`.execute(db)
    ).rows;
    for (const t of triggers) await sql`drop trigger ${sql.raw(t.name)}`.execute(db);
    try {
      await sql.raw(edit).execute(db);
      await check();
    } finally {
      await sql.raw(undo).execute(db);
      for (const t of triggers) await sql.raw(t.sql).execute(db);
    }
  };

  it('answers a valid log as the one-thread walk does', async () => {
    const { one, two } = await both();
    expect(one).toMatchObject({ valid: true, checked: await size() });
    expect(two).toEqual(one);
  });

  it('names the same first failure in the upper half (the worker thread)', async () => {
    const n = await size();
    const at = n - 3;
    await tampered(
      `update audit_entries set entry = entry || ' ' where idx = ${at}`,
      `update audit_entries set entry = substr(entry, 1, length(entry) - 1) where idx = ${at}`,
      async () => {
        const { one, two } = await both();
        expect(one).toMatchObject({ valid: false, failure: 'leaf_hash_mismatch', first_invalid_index: at });
        expect(two).toEqual(one);
      },
    );
  });

  it('names an edited decision record checked by the worker thread (the upper half of the rows)', async () => {
    const db = rt.ctx.store.db;
    const last = await db
      .selectFrom('decisions')
      .select(['policy_decision_id', 'record'])
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    const edited = encodeDecisionRecord(decodeDecisionRecord(last.record!).replace('grocer-1', 'casino-1'));
    const triggers = (
      await sql<{ name: string; sql: string }>`select name, sql from sqlite_master where type = 'trigger'
        and tbl_name = 'decisions'`.execute(db)
    ).rows;
    for (const t of triggers) await sql`drop trigger ${sql.raw(t.name)}`.execute(db);
    try {
      await db
        .updateTable('decisions')
        .set({ record: edited })
        .where('policy_decision_id', '=', last.policy_decision_id)
        .execute();
      const { one, two } = await both();
      expect(one).toMatchObject({
        valid: false,
        failure: 'record_digest_mismatch',
        record: { table: 'decisions', id: last.policy_decision_id },
      });
      expect(two).toEqual(one);
    } finally {
      await db
        .updateTable('decisions')
        .set({ record: last.record })
        .where('policy_decision_id', '=', last.policy_decision_id)
        .execute();
      for (const t of triggers) await sql.raw(t.sql).execute(db);
    }
    expect((await both()).two).toMatchObject({ valid: true });
  });

  it('names a forged node of the frontier the worker starts from below the split', async () => {
    const n = await size();
    const mid = Math.floor(n / 2);
    // the largest perfect subtree of the frontier at `mid`: the worker trusts it, the lower half checks it
    const level = Math.floor(Math.log2(mid));
    const stored = await rt.ctx.store.db
      .selectFrom('audit_nodes')
      .select('hash')
      .where('level', '=', level)
      .where('idx', '=', 0)
      .executeTakeFirstOrThrow();
    const forged = (stored.hash.startsWith('A') ? 'B' : 'A') + stored.hash.slice(1);
    await tampered(
      `update audit_nodes set hash = '${forged}' where level = ${level} and idx = 0`,
      `update audit_nodes set hash = '${stored.hash}' where level = ${level} and idx = 0`,
      async () => {
        const { one, two } = await both();
        expect(one).toMatchObject({ valid: false, failure: 'node_mismatch', first_invalid_index: 0 });
        expect(two).toEqual(one);
      },
    );
  });
});
