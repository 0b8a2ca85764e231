import { sql } from 'kysely';
import type { AppContext } from '../../../app-context.ts';
import { AUDIT_RETENTION } from '../../../audit/retention.ts';
import {
  ATTESTATIONS_GUARD,
  CONFORMANCE_RUNS_GUARD,
  GUARDED_TABLES,
  SELF_AUDIT_RUNS_GUARD,
} from '../../../store/migrations/write-once-guards.ts';
import { failed, passed, type SelfAuditCheck } from '../self-audit-report.ts';

/** EU AI Act Art. 19(1) and Art. 26(6): automatically generated logs are kept at least six months. */
export const MINIMUM_RETENTION_MONTHS = 6;

/**
 * Retention is enforced by the database, not by a setting someone can lower: the write-once tables refuse DELETE
 * (write-once-guards.ts) and no code path deletes from them. So this check reads the retention classes and then asks
 * the database whether each guarded table still has its DELETE guard. A dropped trigger means records could have
 * been deleted (or edited: GET /v1/audit/verify finds edits of committed records).
 */
async function tablesWithDeleteGuard(ctx: AppContext, tables: readonly string[]): Promise<Set<string>> {
  const db = ctx.store.db;
  if (ctx.store.dialect === 'postgres') {
    // tgtype bit 3 (8) is TRIGGER_TYPE_DELETE
    const rows = await sql<{ table: string }>`select distinct c.relname as table
      from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and not t.tgisinternal and (t.tgtype & 8) <> 0
        and c.relname in (${sql.join(tables)})`.execute(db);
    return new Set(rows.rows.map((r) => r.table));
  }
  const rows = await sql<{ table: string; text: string }>`select tbl_name as "table", sql as text from sqlite_master
    where type = 'trigger' and tbl_name in (${sql.join(tables)})`.execute(db);
  return new Set(rows.rows.filter((r) => /before\s+(update\s+or\s+)?delete/i.test(r.text)).map((r) => r.table));
}

export async function checkRetention(ctx: AppContext): Promise<SelfAuditCheck> {
  const extra = [CONFORMANCE_RUNS_GUARD, SELF_AUDIT_RUNS_GUARD, ATTESTATIONS_GUARD].map((g) => g.table);
  const tables = [...new Set([...GUARDED_TABLES, ...extra])].sort();
  const guarded = await tablesWithDeleteGuard(ctx, tables);
  const unguarded = tables.filter((t) => !guarded.has(t));
  const shortRetention = Object.entries(AUDIT_RETENTION)
    .filter(([, years]) => years * 12 < MINIMUM_RETENTION_MONTHS)
    .map(([table]) => table);
  const evidence = {
    retention_years: AUDIT_RETENTION,
    minimum_months: MINIMUM_RETENTION_MONTHS,
    write_once_tables: tables,
    missing_delete_guard: unguarded,
    below_minimum: shortRetention,
  };
  if (unguarded.length === 0 && shortRetention.length === 0) {
    return passed(
      'retention_settings',
      `${tables.length} write-once tables refuse DELETE; retention classes are 7 to 50 years`,
      evidence,
    );
  }
  return failed(
    'retention_settings',
    'fail',
    `${unguarded.length} write-once tables have lost their DELETE guard`,
    evidence,
    'Someone with database access dropped the guard triggers: restore them (run `aar migrate` against a fresh ' +
      'store and compare, or recreate the triggers of store/migrations/write-once-guards.ts), then run ' +
      'GET /v1/audit/verify to find records changed while they were missing.',
  );
}
