/**
 * Rebuilds the envelopes of events that a bulk operation stored without envelope text (migration 0006): the
 * operation's common members (event_operations.template) plus, per event, its id, its subject and what the subject
 * grant's immutable row says (principal, capability). Grant rows are never rewritten (revocations live in
 * grant_revocations), so the rebuilt envelope is the same on every read; signing happens after, like any other.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';
import type { UnsignedEventEnvelope } from './append-event.ts';
import { checkEnvelopeInTests } from './check-envelope-in-tests.ts';
import { decisionEnvelopes, isDecisionDerived } from './decision-envelope.ts';

export interface StoredEventRow {
  event_id: string;
  subject_ref: string;
  envelope: string;
  operation_ref: string | null;
}

/** The common members of a bulk operation's events (written by the operation, read here). */
export interface OperationTemplate {
  schema_version: 'ns.webhook.v1';
  event_type: string;
  occurred_at: string;
  actor_entity_id: string | null;
  reason_code: string;
  audit_ref: string;
  evidence_refs: string[];
  /** merged under each event's own `data` */
  data: Record<string, unknown>;
  /** per-event members taken from the subject grant's row */
  from_grant: { principal_entity_id: true; affected_capabilities: true };
}

export async function envelopesOf(
  db: Kysely<Database>,
  rows: readonly StoredEventRow[],
): Promise<UnsignedEventEnvelope[]> {
  const derived = rows.filter((r) => r.operation_ref !== null);
  const templates = new Map<string, OperationTemplate>();
  const grants = new Map<string, { principal_entity_id: string; capability_id: string }>();
  if (derived.length > 0) {
    const ops = [...new Set(derived.map((r) => r.operation_ref!))];
    for (const op of await db.selectFrom('event_operations').selectAll().where('operation_ref', 'in', ops).execute()) {
      templates.set(op.operation_ref, JSON.parse(op.template) as OperationTemplate);
    }
    const subjects = [...new Set(derived.map((r) => r.subject_ref))];
    const found = await db
      .selectFrom('grants')
      .select(['grant_id', 'principal_entity_id', 'capability_id'])
      .where('grant_id', 'in', subjects)
      .execute();
    for (const g of found) grants.set(g.grant_id, g);
  }
  const fromDecisions = await decisionEnvelopes(db, await withTypeAndInstant(db, rows.filter(isDecisionDerived)));
  return rows.map((row) => {
    if (isDecisionDerived(row)) {
      const envelope = fromDecisions.get(row.event_id);
      if (!envelope) throw new Error(`event ${row.event_id} names a decision that is missing`);
      return envelope;
    }
    if (row.operation_ref === null) return JSON.parse(row.envelope) as UnsignedEventEnvelope;
    const t = templates.get(row.operation_ref);
    const grant = grants.get(row.subject_ref);
    if (!t || !grant) throw new Error(`event ${row.event_id} names an operation or subject that is missing`);
    const envelope: UnsignedEventEnvelope = {
      schema_version: t.schema_version,
      event_id: row.event_id,
      event_type: t.event_type,
      occurred_at: t.occurred_at,
      actor_entity_id: t.actor_entity_id,
      principal_entity_id: grant.principal_entity_id,
      subject_ref: row.subject_ref,
      reason_code: t.reason_code,
      data: { affected_capabilities: [grant.capability_id], ...t.data },
      audit_ref: t.audit_ref,
      evidence_refs: t.evidence_refs,
      delivery: { idempotency_key: row.event_id, replayable: true },
    };
    checkEnvelopeInTests(envelope);
    return envelope;
  });
}

/** The type and instant of derived decision events (their callers read only the columns other rows need). */
async function withTypeAndInstant(
  db: Kysely<Database>,
  rows: readonly StoredEventRow[],
): Promise<Array<StoredEventRow & { event_type: string; occurred_at: string }>> {
  if (rows.length === 0) return [];
  const found = new Map<string, { event_type: string; occurred_at: string }>();
  const ids = rows.map((r) => r.event_id);
  for (let i = 0; i < ids.length; i += 5000) {
    const page = await db
      .selectFrom('events')
      .select(['event_id', 'event_type', 'occurred_at'])
      .where('event_id', 'in', ids.slice(i, i + 5000))
      .execute();
    for (const r of page) found.set(r.event_id, r);
  }
  return rows.flatMap((r) => {
    const more = found.get(r.event_id);
    return more ? [{ ...r, ...more }] : [];
  });
}
