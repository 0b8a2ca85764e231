/**
 * The self-audit report `ns.self_audit_report.v1` (CONTRACT section 14, docs/compliance.md "Self-audit"): the nine
 * checks, always all of them and always in this order, each with the evidence it looked at and, unless it passed,
 * what to do about it. Signed (CONTRACT section 4) and stored write-once. A stored format: change it additively.
 */
import type { DocumentSignature } from '@aar/core';

export const SELF_AUDIT_REPORT_SCHEMA = 'ns.self_audit_report.v1';
export const SELF_AUDIT_RUN_PREFIX = 'ns:self_audit_run:';

export const SELF_AUDIT_CHECKS = [
  'audit_chain_verifies',
  'checkpoints_recent',
  'key_files_private',
  'signing_key_age',
  'retention_settings',
  'webhook_endpoint_profiles',
  'tokens_unused_90_days',
  'no_card_numbers_stored',
  'conformance_last_run',
] as const;

export type SelfAuditCheckName = (typeof SELF_AUDIT_CHECKS)[number];

/** `warn`: not a failure of the deployment's guarantees, but something an operator should look at. */
export type CheckStatus = 'pass' | 'warn' | 'fail';

export interface SelfAuditCheck {
  check: SelfAuditCheckName;
  status: CheckStatus;
  /** what was looked at, in one line */
  summary: string;
  /** the facts the status rests on; never a secret, a key, a URL path or a card number */
  evidence: Record<string, unknown>;
  /** what to do; present unless the check passed */
  remedy?: string;
}

export interface UnsignedSelfAuditReport {
  schema_version: typeof SELF_AUDIT_REPORT_SCHEMA;
  /** `ns:self_audit_run:<uuid>` */
  run_id: string;
  issuer: string;
  started_at: string;
  finished_at: string;
  /** true when no check failed (warnings allowed) */
  passed: boolean;
  summary: Record<CheckStatus, number>;
  checks: SelfAuditCheck[];
}

export type SelfAuditReport = UnsignedSelfAuditReport & { signature: DocumentSignature };

export const passed = (check: SelfAuditCheckName, summary: string, evidence: Record<string, unknown>) =>
  ({ check, status: 'pass', summary, evidence }) satisfies SelfAuditCheck;

export const failed = (
  check: SelfAuditCheckName,
  status: 'warn' | 'fail',
  summary: string,
  evidence: Record<string, unknown>,
  remedy: string,
) => ({ check, status, summary, evidence, remedy }) satisfies SelfAuditCheck;
