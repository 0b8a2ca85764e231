/**
 * A risk state is honoured only as the chain backs it (chained-state.ts): the subject's latest
 * `ns.risk.state_changed` event (read in the same statement as the row, cached-facts.ts) must be one whose envelope
 * its audit entry commits to, and the row must be what that event set (`new_state`, `expires_at`). A row without
 * any event, or an event without its row, is a forgery too (a row edited, inserted or deleted with the guards
 * dropped). Only read when the fact is not cached (a fact miss); a checked (envelope, row) pair is kept in the
 * instance's ChainedStateCache, so a fact re-read after the facts version moved costs no further read.
 */
import { createHash } from 'node:crypto';
import { parseAuditEntryText } from '@aar/core';
import type { Kysely } from 'kysely';
import { recordDigest } from '../../audit/audit-entry.ts';
import type { Database } from '../../store/index.ts';
import type { UnsignedEventEnvelope } from '../events/append-event.ts';
import { integrityFailure, type ChainedStateCache } from './chained-state.ts';

export const RISK_EVENT = 'ns.risk.state_changed';

export interface RiskWithEvent {
  subject: string;
  risk_state: string | null;
  expires_at: string | null;
  /** the envelope text of the subject's latest risk event, null when it has none */
  last_event: string | null;
}

/** Throws integrityFailure unless the row (or its absence) is what the subject's latest chained event left. */
export async function assertRiskChained(
  db: Kysely<Database>,
  cache: ChainedStateCache,
  fact: RiskWithEvent,
): Promise<void> {
  const fail = () => integrityFailure('risk_states', fact.subject, 'risk_state');
  if (fact.last_event === null) {
    if (fact.risk_state !== null) throw fail();
    return;
  }
  const eventDigest = createHash('sha256').update(fact.last_event, 'utf8').digest('base64url');
  const key = `risk\n${fact.subject}\n${eventDigest}\n${fact.risk_state}\n${fact.expires_at}`;
  if (cache.has(key)) return;
  let envelope: UnsignedEventEnvelope;
  try {
    envelope = JSON.parse(fact.last_event) as UnsignedEventEnvelope;
  } catch {
    throw fail();
  }
  const data = envelope.data ?? {};
  if (
    fact.risk_state === null ||
    envelope.subject_ref !== fact.subject ||
    envelope.event_type !== RISK_EVENT ||
    data.new_state !== fact.risk_state ||
    (data.expires_at ?? null) !== fact.expires_at
  ) {
    throw fail();
  }
  const row = await db
    .selectFrom('audit_entries')
    .select('entry')
    .where('audit_id', '=', String(envelope.audit_ref))
    .executeTakeFirst();
  const entry = parseAuditEntryText(row?.entry);
  if (!entry || entry.kind !== RISK_EVENT || entry.record_digest !== recordDigest(envelope)) throw fail();
  cache.add(key);
}
