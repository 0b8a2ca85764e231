/**
 * Payload artefacts (migration 0025, services/payload-artefacts) against their chained events. Attacker assumption:
 * SQL write access without the service key, the guards dropped: turn a rejected artefact into a verified one, bind
 * it to another decision or agent, mark it executed (or not), change its digest, or delete it.
 * Each row against the events of its subject (whose envelopes check-events.ts holds to their entries):
 * - `ns.payload_artefact.received`: its `occurred_at` is `received_at`;
 * - `.verified` or `.rejected` (exactly one): its type is the row's verdict (`rejected` for a rejected row, `verified`
 *   for a verified or executed one), its `occurred_at` is `decided_at`, and its `facts_digest` is the digest of the
 *   row's fixed facts (artefact-facts.ts: every other column but `seq`);
 * - `.executed`: present exactly when the row is `executed`, with its `outcome`, and `occurred_at` = `executed_at`.
 * Every `received` event has its row (a deleted artefact is found). Every run checks every row, a page at a time.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';
import { factsDigest } from '../../services/payload-artefacts/artefact-facts.ts';
import type { ArtefactRow } from '../../services/payload-artefacts/artefact-document.ts';
import { entriesById, existsBeyond } from './entries-by-id.ts';
import { failMissingRow } from './missing-row.ts';
import type { RecordFailureReason, RecordFindings } from './record-findings.ts';

const RECEIVED = 'ns.payload_artefact.received';
const VERIFIED = 'ns.payload_artefact.verified';
const REJECTED = 'ns.payload_artefact.rejected';
const EXECUTED = 'ns.payload_artefact.executed';

interface Envelope {
  audit_ref?: unknown;
  occurred_at?: unknown;
  data?: Record<string, unknown>;
}

type Problem = { reason: RecordFailureReason; detail: string } | undefined;

export async function checkPayloadArtefacts(
  db: Kysely<Database>,
  findings: RecordFindings,
  pageSize: number,
): Promise<void> {
  await checkRows(db, findings, pageSize);
  await checkReceivedEvents(db, findings, pageSize);
}

async function checkRows(db: Kysely<Database>, findings: RecordFindings, pageSize: number): Promise<void> {
  let after = 0;
  for (;;) {
    const rows = await db
      .selectFrom('payload_artefacts')
      .selectAll()
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(pageSize)
      .execute();
    if (rows.length === 0) return;
    after = Number(rows[rows.length - 1]!.seq);
    const events = await db
      .selectFrom('events')
      .select(['subject_ref', 'event_type', 'envelope'])
      .where('event_type', 'in', [RECEIVED, VERIFIED, REJECTED, EXECUTED])
      .where(
        'subject_ref',
        'in',
        rows.map((r) => r.payload_artefact_id),
      )
      .execute();
    const bySubject = new Map<string, Map<string, Envelope>>();
    for (const event of events) {
      let envelope: Envelope;
      try {
        envelope = JSON.parse(event.envelope) as Envelope;
      } catch {
        continue; // unreadable: check-events.ts names it; the artefact is then unanchored below
      }
      const mine = bySubject.get(event.subject_ref) ?? new Map<string, Envelope>();
      mine.set(event.event_type, envelope);
      bySubject.set(event.subject_ref, mine);
    }
    const received = [...bySubject.values()].map((m) => String(m.get(RECEIVED)?.audit_ref ?? ''));
    const entries = await entriesById(db, received, findings.size);
    for (const row of rows) {
      const record = { table: 'payload_artefacts', id: row.payload_artefact_id };
      const mine = bySubject.get(row.payload_artefact_id) ?? new Map<string, Envelope>();
      const auditRef = String(mine.get(RECEIVED)?.audit_ref ?? '');
      const entry = entries.get(auditRef);
      if (!entry) {
        if (mine.has(RECEIVED) && (await existsBeyond(db, auditRef, findings.size))) continue;
        findings.fail({ reason: 'record_unanchored', record, detail: 'payload_artefact_id' });
        continue;
      }
      const problem = rowProblem(row, mine);
      if (problem) findings.fail({ ...problem, index: entry.index, record });
    }
  }
}

function rowProblem(row: ArtefactRow, events: Map<string, Envelope>): Problem {
  const received = events.get(RECEIVED)!;
  const verdict = events.get(VERIFIED) ?? events.get(REJECTED);
  const executed = events.get(EXECUTED);
  if (received.occurred_at !== row.received_at) return { reason: 'record_mismatch', detail: 'received_at' };
  if (!verdict || (events.has(VERIFIED) && events.has(REJECTED))) return { reason: 'record_mismatch', detail: 'state' };
  const rejected = events.has(REJECTED);
  if (rejected !== (row.state === 'rejected')) return { reason: 'record_mismatch', detail: 'state' };
  if (verdict.occurred_at !== row.decided_at) return { reason: 'record_mismatch', detail: 'decided_at' };
  if (verdict.data?.facts_digest !== factsDigest(row)) return { reason: 'record_digest_mismatch', detail: 'facts' };
  if ((executed !== undefined) !== (row.state === 'executed')) return { reason: 'record_mismatch', detail: 'state' };
  if (executed) {
    if (executed.data?.outcome !== row.outcome) return { reason: 'record_mismatch', detail: 'outcome' };
    if (executed.occurred_at !== row.executed_at) return { reason: 'record_mismatch', detail: 'executed_at' };
  } else if (row.outcome !== null || row.executed_at !== null) {
    return { reason: 'record_mismatch', detail: row.outcome !== null ? 'outcome' : 'executed_at' };
  }
  return undefined;
}

/** Every `received` event has its artefact row (a deleted row is found). */
async function checkReceivedEvents(db: Kysely<Database>, findings: RecordFindings, pageSize: number): Promise<void> {
  let after = 0;
  for (;;) {
    const events = await db
      .selectFrom('events')
      .select(['seq', 'subject_ref', 'envelope'])
      .where('event_type', '=', RECEIVED)
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(pageSize)
      .execute();
    if (events.length === 0) return;
    after = Number(events[events.length - 1]!.seq);
    const present = new Set(
      (
        await db
          .selectFrom('payload_artefacts')
          .select('payload_artefact_id')
          .where(
            'payload_artefact_id',
            'in',
            events.map((e) => e.subject_ref),
          )
          .execute()
      ).map((r) => r.payload_artefact_id),
    );
    for (const event of events) {
      if (present.has(event.subject_ref)) continue;
      await failMissingRow(
        db,
        findings,
        event.envelope,
        { table: 'payload_artefacts', id: event.subject_ref },
        'payload_artefact_id',
      );
    }
  }
}
