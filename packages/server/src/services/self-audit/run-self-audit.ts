/**
 * POST /v1/self-audit/runs: runs the nine checks (self-audit-report.ts) against this deployment, signs the report
 * (CONTRACT section 4) and stores it write-once (migration 0012). Checks run one after another: each reads the
 * store, and the chain verification and the card-number scan are the heavy ones. A check that throws is reported as
 * failed with the error's code, never dropped: a report always has all nine.
 */
import { isAarError, signDocument } from '@aar/core';
import type { AppContext } from '../../app-context.ts';
import type { Credential } from '../../http/fastify-types.ts';
import { checkAuditChain } from './checks/audit-chain.ts';
import { checkCheckpoints } from './checks/checkpoints.ts';
import { checkConformanceRun } from './checks/conformance-run.ts';
import { checkKeyFiles } from './checks/key-files.ts';
import { checkRetention } from './checks/retention.ts';
import { checkSigningKeyAge } from './checks/signing-key-age.ts';
import { checkStoredCardNumbers } from './checks/stored-card-numbers.ts';
import { checkUnusedTokens } from './checks/unused-tokens.ts';
import { checkWebhookProfiles } from './checks/webhook-profiles.ts';
import {
  failed,
  SELF_AUDIT_CHECKS,
  SELF_AUDIT_REPORT_SCHEMA,
  SELF_AUDIT_RUN_PREFIX,
  type CheckStatus,
  type SelfAuditCheck,
  type SelfAuditCheckName,
  type SelfAuditReport,
  type UnsignedSelfAuditReport,
} from './self-audit-report.ts';
import { storeSelfAuditReport } from './self-audit-runs.ts';

const CHECKS: Record<SelfAuditCheckName, (ctx: AppContext) => SelfAuditCheck | Promise<SelfAuditCheck>> = {
  audit_chain_verifies: checkAuditChain,
  checkpoints_recent: checkCheckpoints,
  key_files_private: checkKeyFiles,
  signing_key_age: checkSigningKeyAge,
  retention_settings: checkRetention,
  webhook_endpoint_profiles: checkWebhookProfiles,
  tokens_unused_90_days: checkUnusedTokens,
  no_card_numbers_stored: checkStoredCardNumbers,
  conformance_last_run: checkConformanceRun,
};

async function runCheck(ctx: AppContext, name: SelfAuditCheckName): Promise<SelfAuditCheck> {
  try {
    return await CHECKS[name](ctx);
  } catch (error) {
    // the code only: an error message may quote a path or a value
    const code = isAarError(error) ? error.code : ((error as { code?: unknown })?.code ?? 'error');
    return failed(
      name,
      'fail',
      'the check could not run',
      { error: String(code) },
      'Look at the service log for this run; the check could not read what it needs.',
    );
  }
}

export async function runSelfAudit(ctx: AppContext, credential: Credential | null): Promise<SelfAuditReport> {
  const startedAt = ctx.clock.now().toISOString();
  const checks: SelfAuditCheck[] = [];
  for (const name of SELF_AUDIT_CHECKS) checks.push(await runCheck(ctx, name));
  const summary: Record<CheckStatus, number> = { pass: 0, warn: 0, fail: 0 };
  for (const c of checks) summary[c.status]++;
  const unsigned: UnsignedSelfAuditReport = {
    schema_version: SELF_AUDIT_REPORT_SCHEMA,
    run_id: `${SELF_AUDIT_RUN_PREFIX}${ctx.newUuid()}`,
    issuer: ctx.config.issuerUrl,
    started_at: startedAt,
    finished_at: ctx.clock.now().toISOString(),
    passed: summary.fail === 0,
    summary,
    checks,
  };
  const report = await signDocument(unsigned, ctx.keys.current());
  await storeSelfAuditReport(ctx, report, credential?.token_id ?? null);
  return report;
}
