/**
 * A compliance report (`ns.compliance_report.v1`, docs/reports.md "Verification"), offline: its signature by a key of
 * the caller's JWKS, then its arithmetic, each total against its parts (a report whose figures do not add up is not
 * evidence of anything, however well signed):
 * - `shape`: ids and timestamps of their forms;
 * - `period`: `start < end`, generated at or after `end`, `every` set exactly when a schedule made it;
 * - `decisions`: `total` = the sum of `by_decision` = the sum of `by_outcome`; amounts per currency once each,
 *   sorted, counting no more decisions than were allowed (executed: no more than were executed, nor more money than
 *   was allowed in that currency);
 * - `denials`: `total` = `by_decision.deny` = the sum of `by_reason` (each reason once, most frequent first);
 * - `approvals`: `total` = the sum of `by_status`;
 * - `revocations`: no more revoke calls than grants revoked;
 * - `coverage`: each framework once, its `summary` the count of its controls per status, `reason` beside every
 *   status but `satisfied`, satisfying packs within applicable ones within the projected, projected within the period's.
 */
import type { TrustedKeySource } from '../trusted-key-source.ts';
import { before, isCount, isNsId, isTimestamp, member, requireFields } from './document-fields.ts';
import {
  fail,
  isRecord,
  verifyPreviewDocument,
  type CheckOutcome,
  type DocumentCheck,
  type PreviewVerificationResult,
} from './preview-verification.ts';

export const COMPLIANCE_REPORT_SCHEMA = 'ns.compliance_report.v1';

const DECISIONS = ['allow_with_constraints', 'require_approval', 'deny'] as const;
const OUTCOMES = ['none', 'reserved', 'executed', 'failed', 'refunded'] as const;
const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'expired', 'consumed'] as const;
const CONTROL_STATUSES = ['satisfied', 'partially_satisfied', 'not_applicable', 'gap'] as const;
const CURRENCY = /^[A-Z]{3}$/;

/** The sum of `names` in `counts`; undefined when one is not a count (or the sum leaves the safe integers). */
function sumOf(counts: unknown, names: readonly string[]): number | undefined {
  let sum = 0;
  for (const name of names) {
    const value = member(counts, name);
    if (!isCount(value)) return undefined;
    sum += value;
  }
  return Number.isSafeInteger(sum) ? sum : undefined;
}

const shape: DocumentCheck = (d) =>
  requireFields([
    ['/report_id', isNsId(d.report_id, 'compliance_report')],
    ['/issuer', typeof d.issuer === 'string' && d.issuer.length > 0],
    ['/generated_at', isTimestamp(d.generated_at)],
    ['/schedule_id', d.schedule_id === null || isNsId(d.schedule_id, 'report_schedule')],
    ['/period', isRecord(d.period)],
    ['/decisions', isRecord(d.decisions)],
    ['/denials', isRecord(d.denials)],
    ['/approvals', isRecord(d.approvals)],
    ['/revocations', isRecord(d.revocations)],
    ['/coverage', Array.isArray(d.coverage)],
  ]);

const period: DocumentCheck = (d) => {
  const start = member(d.period, 'start');
  const end = member(d.period, 'end');
  const every = member(d.period, 'every');
  if (!isTimestamp(start)) return fail('malformed_document', '/period/start');
  if (!isTimestamp(end)) return fail('malformed_document', '/period/end');
  if (!before(start, end)) return fail('period_invalid', '/period/end');
  if (isTimestamp(d.generated_at) && before(d.generated_at, end)) return fail('period_invalid', '/generated_at');
  const scheduled = d.schedule_id !== null;
  if (scheduled !== (typeof every === 'string' && every.length > 0) || (!scheduled && every !== null)) {
    return fail('period_invalid', '/period/every');
  }
  return undefined;
};

/** `[{ currency, amount_minor, count }]` sorted by currency, each once; its entries by currency. */
function amountsOf(list: unknown, pointer: string): Map<string, { amount: number; count: number }> | CheckOutcome {
  if (!Array.isArray(list)) return fail('malformed_document', pointer);
  const out = new Map<string, { amount: number; count: number }>();
  let last = '';
  for (const [i, entry] of list.entries()) {
    const currency = member(entry, 'currency');
    const amount = member(entry, 'amount_minor');
    const count = member(entry, 'count');
    if (typeof currency !== 'string' || !CURRENCY.test(currency)) return fail('malformed_document', `${pointer}/${i}`);
    if (!isCount(amount) || !isCount(count)) return fail('malformed_document', `${pointer}/${i}`);
    if (currency <= last) return fail('totals_mismatch', `${pointer}/${i}/currency`);
    last = currency;
    out.set(currency, { amount, count });
  }
  return out;
}

const decisions: DocumentCheck = (d) => {
  const section = d.decisions;
  const total = member(section, 'total');
  if (!isCount(total)) return fail('malformed_document', '/decisions/total');
  const byDecision = sumOf(member(section, 'by_decision'), DECISIONS);
  const byOutcome = sumOf(member(section, 'by_outcome'), OUTCOMES);
  if (byDecision === undefined) return fail('malformed_document', '/decisions/by_decision');
  if (byOutcome === undefined) return fail('malformed_document', '/decisions/by_outcome');
  if (byDecision !== total) return fail('totals_mismatch', '/decisions/by_decision');
  if (byOutcome !== total) return fail('totals_mismatch', '/decisions/by_outcome');
  const allowed = amountsOf(member(section, 'allowed_amounts'), '/decisions/allowed_amounts');
  if (!(allowed instanceof Map)) return allowed;
  const executed = amountsOf(member(section, 'executed_amounts'), '/decisions/executed_amounts');
  if (!(executed instanceof Map)) return executed;
  const allowedCount = [...allowed.values()].reduce((n, e) => n + e.count, 0);
  if (allowedCount > (member(member(section, 'by_decision'), 'allow_with_constraints') as number)) {
    return fail('totals_mismatch', '/decisions/allowed_amounts');
  }
  const executedCount = [...executed.values()].reduce((n, e) => n + e.count, 0);
  if (executedCount > (member(member(section, 'by_outcome'), 'executed') as number)) {
    return fail('totals_mismatch', '/decisions/executed_amounts');
  }
  for (const [currency, entry] of executed) {
    const of = allowed.get(currency);
    if (of === undefined || entry.count > of.count || entry.amount > of.amount) {
      return fail('totals_mismatch', `/decisions/executed_amounts (${currency})`);
    }
  }
  return undefined;
};

const denials: DocumentCheck = (d) => {
  const total = member(d.denials, 'total');
  const reasons = member(d.denials, 'by_reason');
  if (!isCount(total)) return fail('malformed_document', '/denials/total');
  if (!Array.isArray(reasons)) return fail('malformed_document', '/denials/by_reason');
  if (total !== member(member(d.decisions, 'by_decision'), 'deny')) return fail('totals_mismatch', '/denials/total');
  const seen = new Set<string>();
  let sum = 0;
  let previous: { reason: string; count: number } | undefined;
  for (const [i, entry] of reasons.entries()) {
    const reason = member(entry, 'reason');
    const count = member(entry, 'count');
    if (typeof reason !== 'string' || reason.length === 0 || !isCount(count)) {
      return fail('malformed_document', `/denials/by_reason/${i}`);
    }
    if (seen.has(reason)) return fail('totals_mismatch', `/denials/by_reason/${i}/reason`);
    // most frequent first, then by reason
    if (previous && (count > previous.count || (count === previous.count && reason < previous.reason))) {
      return fail('totals_mismatch', `/denials/by_reason/${i}`);
    }
    seen.add(reason);
    sum += count;
    previous = { reason, count };
  }
  return sum === total ? undefined : fail('totals_mismatch', '/denials/by_reason');
};

const approvals: DocumentCheck = (d) => {
  const total = member(d.approvals, 'total');
  const sum = sumOf(member(d.approvals, 'by_status'), APPROVAL_STATUSES);
  if (!isCount(total)) return fail('malformed_document', '/approvals/total');
  if (sum === undefined) return fail('malformed_document', '/approvals/by_status');
  return sum === total ? undefined : fail('totals_mismatch', '/approvals/by_status');
};

const revocations: DocumentCheck = (d) => {
  const grants = member(d.revocations, 'grants_revoked');
  const operations = member(d.revocations, 'revoke_operations');
  if (!isCount(grants)) return fail('malformed_document', '/revocations/grants_revoked');
  if (!isCount(operations)) return fail('malformed_document', '/revocations/revoke_operations');
  // every revoke call counted revoked at least one grant (its root)
  return operations <= grants ? undefined : fail('totals_mismatch', '/revocations/revoke_operations');
};

function frameworkOutcome(entry: unknown, at: string): CheckOutcome {
  const packs = member(entry, 'evidence_packs');
  const inPeriod = member(packs, 'in_period');
  const projected = member(packs, 'projected');
  if (!isCount(inPeriod) || !isCount(projected)) return fail('malformed_document', `${at}/evidence_packs`);
  if (projected > inPeriod) return fail('totals_mismatch', `${at}/evidence_packs/projected`);
  const controls = member(entry, 'controls');
  if (!Array.isArray(controls)) return fail('malformed_document', `${at}/controls`);
  const counted: Record<string, number> = { satisfied: 0, partially_satisfied: 0, not_applicable: 0, gap: 0 };
  for (const [i, control] of controls.entries()) {
    const status = member(control, 'status');
    const applicable = member(member(control, 'packs'), 'applicable');
    const satisfying = member(member(control, 'packs'), 'satisfying');
    if (typeof status !== 'string' || !(CONTROL_STATUSES as readonly string[]).includes(status)) {
      return fail('malformed_document', `${at}/controls/${i}/status`);
    }
    if (!isCount(applicable) || !isCount(satisfying)) return fail('malformed_document', `${at}/controls/${i}/packs`);
    if (satisfying > applicable || applicable > projected) {
      return fail('totals_mismatch', `${at}/controls/${i}/packs`);
    }
    if ((status === 'satisfied') === (typeof member(control, 'reason') === 'string')) {
      return fail('totals_mismatch', `${at}/controls/${i}/reason`);
    }
    counted[status] = (counted[status] as number) + 1;
  }
  const summary = member(entry, 'summary');
  for (const status of CONTROL_STATUSES) {
    const stated = member(summary, status);
    if (!isCount(stated)) return fail('malformed_document', `${at}/summary/${status}`);
    if (stated !== counted[status]) return fail('totals_mismatch', `${at}/summary/${status}`);
  }
  return undefined;
}

const coverage: DocumentCheck = (d) => {
  const list = d.coverage;
  if (!Array.isArray(list)) return fail('malformed_document', '/coverage');
  const frameworks = new Set<string>();
  for (const [i, entry] of list.entries()) {
    const framework = member(entry, 'framework');
    if (typeof framework !== 'string' || framework.length === 0) return fail('malformed_document', `/coverage/${i}`);
    if (frameworks.has(framework)) return fail('totals_mismatch', `/coverage/${i}/framework`);
    frameworks.add(framework);
    const outcome = frameworkOutcome(entry, `/coverage/${i}`);
    if (outcome !== undefined) return outcome;
  }
  return undefined;
};

export async function verifyComplianceReport(
  report: unknown,
  trusted: TrustedKeySource,
): Promise<PreviewVerificationResult> {
  return verifyPreviewDocument(report, trusted, COMPLIANCE_REPORT_SCHEMA, [
    ['shape', shape],
    ['period', period],
    ['decisions', decisions],
    ['denials', denials],
    ['approvals', approvals],
    ['revocations', revocations],
    ['coverage', coverage],
  ]);
}
