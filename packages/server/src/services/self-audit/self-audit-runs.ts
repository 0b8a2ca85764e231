/** The stored self-audit reports (migration 0012): written once, returned byte for byte as signed. */
import { AarError, canonicalJson, fieldError, UUID_PATTERN } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import { SELF_AUDIT_RUN_PREFIX, type SelfAuditReport } from './self-audit-report.ts';

export async function storeSelfAuditReport(
  ctx: AppContext,
  report: SelfAuditReport,
  createdBy: string | null,
): Promise<void> {
  await ctx.writer.run(async (trx) => {
    await trx
      .insertInto('self_audit_runs')
      .values({
        run_id: report.run_id,
        passed: report.passed ? 1 : 0,
        failed: report.summary.fail,
        document: canonicalJson(report),
        created_by: createdBy,
        created_at: report.finished_at,
      })
      .execute();
  });
}

/** The stored report's exact text; 400 `invalid_id` for a malformed id, 404 when there is none. */
export async function getSelfAuditRun(ctx: AppContext, rawId: string): Promise<string> {
  if (!rawId.startsWith(SELF_AUDIT_RUN_PREFIX) || !UUID_PATTERN.test(rawId.slice(SELF_AUDIT_RUN_PREFIX.length))) {
    throw fieldError('invalid_id', '/params/id', `must be an id of the form \`${SELF_AUDIT_RUN_PREFIX}<uuid>\``);
  }
  const row = await ctx.store.db
    .selectFrom('self_audit_runs')
    .select('document')
    .where('run_id', '=', rawId)
    .executeTakeFirst();
  if (!row) throw new AarError('not_found', `self-audit run \`${rawId}\` does not exist`);
  return row.document;
}
