/**
 * Every decision row against its audit entry: the decision record rebuilt from the row's columns (exactly what the
 * entry's `record_digest` commits to, as an evidence pack rebuilds it) has that digest, and every column that
 * restates the record (`decision`, `reason`, who, what, the map's ids, the reservation, the request's merchant and amount the rule counters read…) agrees with it, so a row
 * edited with the guards dropped is found whichever column was edited. Only `outcome` and `updated_at` change after
 * the decision (state columns, write-once-guards.ts); the outcome must be the one the chain's
 * `ns.purchase_authority.<outcome>` entries about the decision leave it in (`reserved` before any), and an approval a
 * retry spent must say it was spent by that retry.
 * Pages by `seq`: O(page) memory.
 */
import { canonicalDecisionRecord, canonicalJson, decidingChain, type DecisionRecordInput } from '@aar/core';
import type { Kysely, Selectable } from 'kysely';
import { readPolicySetTexts } from '../../services/decisions/policy-set-texts.ts';
import type { PolicySetTextLookup } from '../../services/decisions/record-codec.ts';
import { decodeDecisionRecord } from '../../services/decisions/record-codec.ts';
import type { Database, DecisionsTable } from '../../store/index.ts';
import { digestOfCanonical } from '../audit-entry.ts';
import { approvalEffect, createsApproval, decisionEntryKind } from '../../services/authorize/approval-effect.ts';
import { chainedOutcome, OUTCOME_KINDS } from '../../services/authorize/chained-outcome.ts';
import { entriesById, existsBeyond } from './entries-by-id.ts';
import { stateEntriesOf, type StateEntries } from './state-entries.ts';
import type { RecordFindings } from './record-findings.ts';

/** The rows of `seq` in (after, through]: the whole table from the scope's `after` by default. */
export interface SeqWindow {
  after: number;
  through?: number;
}

export async function checkDecisions(
  db: Kysely<Database>,
  findings: RecordFindings,
  pageSize: number,
  window: SeqWindow = { after: findings.scope.after.decisions },
): Promise<void> {
  let after = window.after;
  for (;;) {
    let query = db.selectFrom('decisions').selectAll().where('seq', '>', after);
    if (window.through !== undefined) query = query.where('seq', '<=', window.through);
    const rows = await query.orderBy('seq').limit(pageSize).execute();
    if (rows.length === 0) return;
    after = Number(rows[rows.length - 1]!.seq);
    const entries = await entriesById(
      db,
      rows.map((r) => r.audit_ref),
      findings.size,
    );
    const states = await statesOf(db, rows, findings.size);
    const policySets = await readPolicySetTexts(
      db,
      rows.map((r) => r.record),
    );
    for (const row of rows) {
      const record = { table: 'decisions', id: row.policy_decision_id };
      const entry = entries.get(row.audit_ref);
      if (!entry) {
        if (await existsBeyond(db, row.audit_ref, findings.size)) findings.saw('decisions', Number(row.seq), true);
        else findings.fail({ reason: 'record_unanchored', record, detail: `audit_ref ${row.audit_ref}` });
        continue;
      }
      // the decision's entry has its row, whatever its outcome
      findings.decisionAnchored.set(entry.index);
      if (states.outcomes.beyond.has(row.policy_decision_id)) {
        // an outcome reported during this run: its entry (and so the outcome) is the next run's to check
        findings.saw('decisions', Number(row.seq), true);
        continue;
      }
      findings.saw('decisions', Number(row.seq));
      const problem = decisionProblem(row, entry.parsed?.record_digest, entry.parsed?.kind, states, policySets);
      if (problem) findings.fail({ record, ...problem, index: entry.index });
    }
  }
}

/** `record`: another row found at fault through this decision (the approval it spent), else the decision's own */
type Problem =
  | { reason: 'record_digest_mismatch' | 'record_mismatch'; detail: string; record?: { table: string; id: string } }
  | undefined;

/** What the chain says of a page's later states: outcomes reported, and the approvals its retries spent. */
interface PageStates {
  outcomes: StateEntries;
  approvals: Map<string, { status: string; consumed_by: string | null }>;
}

async function statesOf(
  db: Kysely<Database>,
  rows: ReadonlyArray<Selectable<DecisionsTable>>,
  size: number,
): Promise<PageStates> {
  const reserved = rows.filter((r) => r.reservation !== null).map((r) => r.policy_decision_id);
  const outcomes = await stateEntriesOf(db, reserved, OUTCOME_KINDS, size);
  const spent = rows.flatMap((r) =>
    r.reason === 'approved_by_principal' && r.approval_id !== null ? [r.approval_id] : [],
  );
  const approvals = new Map<string, { status: string; consumed_by: string | null }>();
  for (let i = 0; i < spent.length; i += 2000) {
    const found = await db
      .selectFrom('approvals')
      .select(['approval_id', 'status', 'consumed_by'])
      .where('approval_id', 'in', spent.slice(i, i + 2000))
      .execute();
    for (const a of found) approvals.set(a.approval_id, a);
  }
  return { outcomes, approvals };
}

function decisionProblem(
  row: Selectable<DecisionsTable>,
  committedDigest: string | undefined,
  kind: string | undefined,
  states: PageStates,
  policySets: PolicySetTextLookup,
): Problem {
  const read =
    row.record === null ? legacyRecord(row, committedDigest) : storedRecord(row, committedDigest, policySets);
  if ('reason' in read) return read;
  const input = read.input;
  const request = input.request as unknown as Record<string, unknown>;
  const result = input.result as unknown as Record<string, unknown>;
  const map = input.decision_map as unknown as Record<string, unknown>;
  // the chain that decided: the first, or the alternative decide chose (aar-decide/1.2.0), as commit-decision.ts names it
  const grants = decidingChain(input.snapshot, input.result) as Array<{ grant_id?: unknown } | undefined>;
  const reservation = result.reservation ?? null;
  const expected: Record<string, unknown> = {
    decision: result.decision,
    reason: result.reason,
    actor_entity_id: request.actor_entity_id,
    principal_entity_id: request.principal_entity_id,
    subject: request.subject,
    action: request.action,
    leaf_grant_id: grants[grants.length - 1]?.grant_id ?? null,
    decision_map_id: map.decision_map_id,
    audit_ref: map.audit_ref,
    evidence_refs: JSON.stringify(map.evidence_refs),
    reservation: reservation === null ? null : canonicalJson(reservation),
    spend_day: reservation === null ? null : row.now.slice(0, 10),
    created_at: row.now,
    // since 0018 (the rows before were filled from their record): what the rule counters read
    merchant_id: typeof request.merchant_id === 'string' ? request.merchant_id : null,
    amount_minor: amountOf(request)?.minor ?? null,
    currency: amountOf(request)?.currency ?? null,
  };
  for (const [column, value] of Object.entries(expected)) {
    let stored = (row as unknown as Record<string, unknown>)[column];
    // PostgreSQL returns a bigint as its decimal text
    if (column === 'amount_minor' && typeof stored === 'string' && /^-?[0-9]+$/.test(stored)) stored = Number(stored);
    const same = column === 'reservation' && stored !== null ? sameJson(stored, value) : stored === value;
    if (!same) return { reason: 'record_mismatch', detail: column };
  }
  // the approval the decision names, by the rule commit-decision.ts writes it by (approval-effect.ts): a new one
  // when it created one (require_approval, or an allowed request_approval's push), else the one it held, if any
  const held = (input.snapshot as unknown as { approval?: { approval_id?: unknown } | null }).approval;
  const heldId = typeof held?.approval_id === 'string' ? held.approval_id : null;
  const effect = approvalEffect(request as { action: string }, result as { decision: string; reason: string }, heldId);
  if (createsApproval(effect) ? row.approval_id === null || row.approval_id === heldId : row.approval_id !== heldId) {
    return { reason: 'record_mismatch', detail: 'approval_id' };
  }
  if (kind !== decisionEntryKind(String(result.decision), effect)) return { reason: 'record_mismatch', detail: 'kind' };
  // the outcome: none without a reservation; else reserved until reported, then the last reported outcome's entry
  const outcomes = (states.outcomes.below.get(row.policy_decision_id) ?? []).map((e) => e.kind);
  const expectedOutcome = reservation === null ? 'none' : chainedOutcome(outcomes);
  if (row.outcome !== expectedOutcome || (reservation === null && outcomes.length > 0)) {
    return { reason: 'record_mismatch', detail: 'outcome' };
  }
  // a retry that spent an approval: the approval says so (an approval set back to `approved` would buy twice)
  if (effect === 'consume') {
    const spent = states.approvals.get(String(heldId));
    if (spent && (spent.status !== 'consumed' || spent.consumed_by !== row.policy_decision_id)) {
      const approval = { table: 'approvals', id: String(heldId) };
      return {
        reason: 'record_mismatch',
        record: approval,
        detail: spent.status !== 'consumed' ? 'status' : 'consumed_by',
      };
    }
  }
  return undefined;
}

type Read = { input: DecisionRecordInput } | NonNullable<Problem>;

/**
 * Since 0010: the stored bytes are the record, hashed as they are (no parse, no canonicalisation); the columns the
 * record holds must then be empty (or, for the map, restate it), and the ids of the row must be the record's.
 */
function storedRecord(
  row: Selectable<DecisionsTable>,
  committedDigest: string | undefined,
  policySets: PolicySetTextLookup,
): Read {
  let text: string;
  try {
    text = decodeDecisionRecord(row.record!, policySets);
  } catch {
    return { reason: 'record_digest_mismatch', detail: 'record' };
  }
  if (digestOfCanonical(text) !== committedDigest) return { reason: 'record_digest_mismatch', detail: 'record' };
  // the committed bytes: the service wrote them as RFC 8785 JSON, so they parse
  const input = JSON.parse(text) as DecisionRecordInput;
  for (const column of ['request', 'snapshot', 'result'] as const) {
    if (row[column] !== '') return { reason: 'record_mismatch', detail: column };
  }
  for (const column of ['policy_decision_id', 'now', 'engine_version'] as const) {
    if (row[column] !== input[column]) return { reason: 'record_mismatch', detail: column };
  }
  if (row.decision_map !== '' && !sameCanonical(row.decision_map, input.decision_map)) {
    return { reason: 'record_mismatch', detail: 'decision_map' };
  }
  return { input };
}

/** Before 0010: the record rebuilt from the row's JSON columns (the entry's digest commits to its RFC 8785 bytes). */
function legacyRecord(row: Selectable<DecisionsTable>, committedDigest: string | undefined): Read {
  let input: DecisionRecordInput;
  try {
    input = {
      policy_decision_id: row.policy_decision_id,
      request: JSON.parse(row.request) as DecisionRecordInput['request'],
      snapshot: JSON.parse(row.snapshot) as DecisionRecordInput['snapshot'],
      now: row.now,
      result: JSON.parse(row.result) as DecisionRecordInput['result'],
      engine_version: row.engine_version,
      decision_map: JSON.parse(row.decision_map) as DecisionRecordInput['decision_map'],
    };
  } catch {
    return { reason: 'record_digest_mismatch', detail: 'a JSON column does not parse' };
  }
  if (digestOfCanonical(canonicalDecisionRecord(input)) !== committedDigest) {
    return {
      reason: 'record_digest_mismatch',
      detail: 'request, snapshot, now, result, engine_version or decision_map',
    };
  }
  return { input };
}

/** the request's amount when it is one decide could have read (minor units and a currency) */
function amountOf(request: Record<string, unknown>): { minor: number; currency: string } | undefined {
  const amount = request.amount as { minor?: unknown; currency?: unknown } | undefined | null;
  if (!amount || typeof amount.minor !== 'number' || typeof amount.currency !== 'string') return undefined;
  return { minor: amount.minor, currency: amount.currency };
}

function sameCanonical(text: string, value: unknown): boolean {
  try {
    return canonicalJson(JSON.parse(text)) === canonicalJson(value);
  } catch {
    return false;
  }
}

/** The reservation column holds JSON.stringify of the result's reservation: compared by RFC 8785 form (key order). */
function sameJson(stored: unknown, expected: unknown): boolean {
  try {
    return typeof expected === 'string' && canonicalJson(JSON.parse(String(stored))) === expected;
  } catch {
    return false;
  }
}
