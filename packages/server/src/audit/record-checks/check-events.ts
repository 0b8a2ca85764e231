/**
 * Every event row against its audit entry (the entry its envelope's `audit_ref` names):
 * - the row's columns restate its envelope, and the entry's kind and instant are the envelope's;
 * - the entry's `record_digest` is the digest of the envelope (every state change but decisions);
 * - a decision's entry commits to the decision record instead (check-decisions.ts): its event's envelope must then
 *   restate that decision (type, reason, who, what, the map, the evidence refs);
 * - an `ns.card_token.created` envelope erased by a tombstone (`last4` null, `erased` true: the only change the
 *   guard allows) no longer has its committed digest; everything else of it is checked as above.
 * Events of a bulk operation (revocation cascades: `operation_ref` set, no envelope text) are checked per operation
 * by check-revocations.ts. A decision's event stored without envelope text is checked as rebuilt from its decision
 * (its row's id, type and instant against the entry; the rest restates the decision, checked by check-decisions.ts).
 * Pages by `seq`: O(page) memory.
 */
import type { Kysely } from 'kysely';
import type { UnsignedEventEnvelope } from '../../services/events/append-event.ts';
import { decisionEnvelopes } from '../../services/events/decision-envelope.ts';
import type { Database } from '../../store/index.ts';
import { recordDigest } from '../audit-entry.ts';
import { DECISION_ENTRY_KIND, DECISION_KINDS } from './decision-kinds.ts';
import { entriesById, existsBeyond, type AnchorEntry } from './entries-by-id.ts';
import type { RecordFindings } from './record-findings.ts';

interface EventRow {
  seq: number;
  event_id: string;
  event_type: string;
  occurred_at: string;
  subject_ref: string;
  envelope: string;
}

export async function checkEvents(db: Kysely<Database>, findings: RecordFindings, pageSize: number): Promise<void> {
  let after = findings.scope.after.events;
  for (;;) {
    const rows: EventRow[] = await db
      .selectFrom('events')
      .select(['seq', 'event_id', 'event_type', 'occurred_at', 'subject_ref', 'envelope'])
      .where('seq', '>', after)
      .where('operation_ref', 'is', null)
      .orderBy('seq')
      .limit(pageSize)
      .execute();
    if (rows.length === 0) return;
    after = Number(rows[rows.length - 1]!.seq);
    // a decision's event stored without its envelope (services/events/decision-envelope.ts) is checked as rebuilt
    // from its decision's columns (the members rebuilt from its request are checked with the decision's record)
    const derived = await decisionEnvelopes(
      db,
      rows.filter((r) => r.envelope === ''),
      { withoutRequest: true },
    );
    const envelopes = rows.map((r) => (r.envelope === '' ? derived.get(r.event_id) : parseEnvelope(r.envelope)));
    const entries = await entriesById(
      db,
      envelopes.map((e) => (typeof e?.audit_ref === 'string' ? e.audit_ref : '')),
      findings.size,
    );
    const decisions = await decisionsOf(db, rows, envelopes, entries);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      const envelope = envelopes[i];
      const record = { table: 'events', id: row.event_id };
      const entry = envelope ? entries.get(envelope.audit_ref) : undefined;
      if (!envelope || !entry) {
        if (envelope && (await existsBeyond(db, envelope.audit_ref, findings.size))) {
          findings.saw('events', Number(row.seq), true);
        } else {
          findings.fail({ reason: 'record_unanchored', record, detail: envelope ? 'audit_ref' : 'envelope' });
        }
        continue;
      }
      findings.saw('events', Number(row.seq));
      findings.eventAnchored.set(entry.index);
      const problem = eventProblem(row, envelope, entry, decisions.get(envelope.subject_ref));
      if (problem) findings.fail({ ...problem, index: entry.index, record });
    }
  }
}

type Problem = { reason: 'record_digest_mismatch' | 'record_mismatch'; detail: string } | undefined;

interface DecisionFacts {
  audit_ref: string;
  decision: string;
  reason: string;
  actor_entity_id: string;
  principal_entity_id: string;
  subject: string;
  leaf_grant_id: string | null;
  decision_map_id: string;
  evidence_refs: string;
  approval_id: string | null;
}

function eventProblem(
  row: EventRow,
  envelope: UnsignedEventEnvelope,
  entry: AnchorEntry,
  decision: DecisionFacts | undefined,
): Problem {
  for (const column of ['event_id', 'event_type', 'occurred_at', 'subject_ref'] as const) {
    if (row[column] !== envelope[column]) return { reason: 'record_mismatch', detail: column };
  }
  if (entry.parsed?.kind !== envelope.event_type) return { reason: 'record_mismatch', detail: 'event_type' };
  if (entry.parsed.occurred_at !== envelope.occurred_at) return { reason: 'record_mismatch', detail: 'occurred_at' };
  if (DECISION_KINDS.has(envelope.event_type)) return decisionEventProblem(envelope, decision);
  if (recordDigest(envelope) === entry.parsed.record_digest) return undefined;
  if (isErased(envelope)) return undefined;
  return { reason: 'record_digest_mismatch', detail: 'envelope' };
}

/** What commit-decision.ts puts in a decision's event, compared with the (digest-checked) decision row. */
function decisionEventProblem(envelope: UnsignedEventEnvelope, d: DecisionFacts | undefined): Problem {
  if (!d || d.audit_ref !== envelope.audit_ref) return { reason: 'record_mismatch', detail: 'subject_ref' };
  const data = envelope.data;
  // an allowed request_approval announces the approval it pushes (services/authorize/approval-effect.ts); whether
  // the decision pushed one is pinned by its record (check-decisions.ts checks this same entry's kind by that rule)
  const pushed = d.decision === 'allow_with_constraints' && envelope.event_type === 'ns.decision.requires_approval';
  if (pushed && (d.approval_id === null || data.approval_id === undefined)) {
    return { reason: 'record_mismatch', detail: 'data.approval_id' };
  }
  const expected: Array<[string, unknown, unknown]> = [
    ['event_type', envelope.event_type, pushed ? envelope.event_type : DECISION_ENTRY_KIND[d.decision]],
    ['reason_code', envelope.reason_code, d.reason],
    ['actor_entity_id', envelope.actor_entity_id, d.actor_entity_id],
    ['principal_entity_id', envelope.principal_entity_id, d.principal_entity_id],
    ['evidence_refs', JSON.stringify(envelope.evidence_refs), d.evidence_refs],
    ['data.policy_decision_id', data.policy_decision_id, envelope.subject_ref],
    ['data.decision', data.decision, d.decision],
    ['data.subject', data.subject, d.subject],
    ['data.grant_id', data.grant_id, d.leaf_grant_id],
    ['data.decision_map_ref', data.decision_map_ref, d.decision_map_id],
  ];
  if (data.approval_id !== undefined) expected.push(['data.approval_id', data.approval_id, d.approval_id]);
  for (const [member, actual, want] of expected) {
    if (actual !== want) return { reason: 'record_mismatch', detail: member };
  }
  return undefined;
}

function isErased(envelope: UnsignedEventEnvelope): boolean {
  return (
    envelope.event_type === 'ns.card_token.created' && envelope.data.erased === true && envelope.data.last4 === null
  );
}

async function decisionsOf(
  db: Kysely<Database>,
  rows: readonly EventRow[],
  envelopes: ReadonlyArray<UnsignedEventEnvelope | undefined>,
  entries: Map<string, AnchorEntry>,
): Promise<Map<string, DecisionFacts>> {
  const ids = rows
    .filter((_, i) => {
      const entry = entries.get(envelopes[i]?.audit_ref ?? '');
      return entry !== undefined && DECISION_KINDS.has(entry.parsed?.kind ?? '');
    })
    .map((r) => r.subject_ref);
  const out = new Map<string, DecisionFacts>();
  for (let i = 0; i < ids.length; i += 5000) {
    const found = await db
      .selectFrom('decisions')
      .select([
        'policy_decision_id',
        'audit_ref',
        'decision',
        'reason',
        'actor_entity_id',
        'principal_entity_id',
        'subject',
        'leaf_grant_id',
        'decision_map_id',
        'evidence_refs',
        'approval_id',
      ])
      .where('policy_decision_id', 'in', ids.slice(i, i + 5000))
      .execute();
    for (const d of found) out.set(d.policy_decision_id, d);
  }
  return out;
}

function parseEnvelope(text: string): UnsignedEventEnvelope | undefined {
  try {
    const value = JSON.parse(text) as UnsignedEventEnvelope | null;
    if (typeof value !== 'object' || value === null || typeof value.audit_ref !== 'string') return undefined;
    if (typeof value.data !== 'object' || value.data === null) return undefined;
    return value;
  } catch {
    return undefined;
  }
}
