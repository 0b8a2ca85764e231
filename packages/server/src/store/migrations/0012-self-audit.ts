import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';
import { withSeq } from './column-types.ts';
import {
  ATTESTATIONS_GUARD,
  guardPostgresTable,
  guardSqliteTable,
  SELF_AUDIT_RUNS_GUARD,
} from './write-once-guards.ts';

/**
 * Self-audit (CONTRACT section 14, docs/compliance.md "Self-audit").
 * - `self_audit_runs`: one row per signed `ns.self_audit_report.v1`, write-once like the audit records (the report
 *   is evidence of what the deployment looked like at that moment; the database refuses UPDATE, DELETE, REPLACE).
 *   `document` is the signed report's RFC 8785 text, exactly what GET /v1/self-audit/runs/{id} returns.
 * - `api_token_usage`: when each API token was last used, at day precision (authentication records the first use
 *   of a token per UTC day per instance, http/token-usage.ts), so the self-audit can name tokens unused for 90
 *   days. Operational state, not an audit record: its one column changes.
 * - `certification_attestations` (preview): one row per signed self-attestation over a conformance report, the JWS
 *   in compact form (the JSON serialisation is derived from it), write-once like the reports it refers to.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await withSeq(db.schema.createTable('self_audit_runs'), dialect)
    .addColumn('run_id', 'text', (c) => c.notNull().unique())
    // 1 when no check failed (warnings allowed)
    .addColumn('passed', 'integer', (c) => c.notNull())
    .addColumn('failed', 'integer', (c) => c.notNull())
    .addColumn('document', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  if (dialect === 'postgres') await guardPostgresTable(db, SELF_AUDIT_RUNS_GUARD);
  else await guardSqliteTable(db, SELF_AUDIT_RUNS_GUARD, true);

  await db.schema
    .createTable('api_token_usage')
    .addColumn('token_id', 'text', (c) => c.primaryKey())
    .addColumn('last_used_at', 'text', (c) => c.notNull())
    .execute();

  await withSeq(db.schema.createTable('certification_attestations'), dialect)
    .addColumn('attestation_id', 'text', (c) => c.notNull().unique())
    .addColumn('conformance_report_id', 'text', (c) => c.notNull())
    // the JWS, compact serialisation (RFC 7515 section 7.1)
    .addColumn('compact', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  if (dialect === 'postgres') await guardPostgresTable(db, ATTESTATIONS_GUARD);
  else await guardSqliteTable(db, ATTESTATIONS_GUARD, true);
}
