/**
 * A card token is honoured only as the chain backs it (chained-state.ts), by verify's rule (check-card-tokens.ts):
 * its principal is the one its `ns.card_token.created` event names, its state the one its latest
 * `ns.card_token.suspended` / `.activated` event left it in (`active` without one), and each of those events must be
 * one whose envelope its audit entry commits to (by SHA-256 digest; no signature check). Attacker: the database but
 * not the key, setting a suspended token (by its principal, or by erasure) back to `active`, or moving a token to
 * another principal.
 *
 * The events are found by the token's plain id (`events.subject_ref`); each is held to the entry its `audit_ref`
 * names. Those entries name the token by a salted commitment (audit/subject-commitment.ts): with the token's salt,
 * its entries are read by that commitment, so the latest state ENTRY must be the latest state event's (a suspension
 * whose event row was deleted still counts) and the creation entry must be among them (which binds the salt). Erasure
 * deletes the salt and rewrites the creation's envelope (`last4` null, `erased` true: the only change the write-once
 * guard allows, so its digest no longer matches): a token without a salt must be such an erased one, `suspended` by a
 * chained state event, and decides nothing but a denial.
 *
 * COST: the two events come in the same statement as the row (cached-facts.ts, index `events_subject`, migration
 * 0016), and only on a fact miss; a checked (row, events) content is kept in the instance's ChainedStateCache.
 */
import type { Kysely } from 'kysely';
import { recordDigest } from '../../audit/audit-entry.ts';
import type { Database } from '../../store/index.ts';
import {
  assertEnvelopesCommitted,
  commitmentOf,
  digestOf,
  entriesAbout,
  envelopeOf,
  type EnvelopeCheck,
} from './chained-events.ts';
import { integrityFailure, type ChainedStateCache } from './chained-state.ts';

export const CARD_TOKEN_CREATED = 'ns.card_token.created';
export const CARD_TOKEN_STATE_EVENTS: Readonly<Record<string, string>> = {
  'ns.card_token.suspended': 'suspended',
  'ns.card_token.activated': 'active',
};

export interface CardTokenWithEvents {
  card_token_id: string;
  principal_entity_id: string;
  state: string;
  /** the envelope text of the token's `ns.card_token.created` event, null when it has none */
  created_event: string | null;
  /** the envelope text of its latest state event, null when it has none */
  state_event: string | null;
  /** the token's subject salt (base64url), null once erasure deleted it */
  salt: string | null;
}

/** Throws integrityFailure (table `card_tokens`) unless the row is what the token's chained events say. */
export async function assertCardTokenChained(
  db: Kysely<Database>,
  cache: ChainedStateCache,
  row: CardTokenWithEvents,
): Promise<void> {
  const key = [
    'card_token',
    row.card_token_id,
    digestOf(row.created_event),
    digestOf(row.state_event),
    row.principal_entity_id,
    row.state,
    row.salt ?? '-',
  ].join('\n');
  if (cache.has(key)) return;
  const fail = (column: string) => integrityFailure('card_tokens', row.card_token_id, column);

  const created = row.created_event === null ? null : envelopeOf(row.created_event);
  if (!created || created.subject_ref !== row.card_token_id || created.event_type !== CARD_TOKEN_CREATED) {
    throw fail('card_token_id');
  }
  if (created.principal_entity_id !== row.principal_entity_id) throw fail('principal_entity_id');

  const stateEvent = row.state_event === null ? undefined : envelopeOf(row.state_event);
  if (stateEvent === null) throw fail('state');
  const expected = stateEvent ? CARD_TOKEN_STATE_EVENTS[String(stateEvent.event_type)] : 'active';
  if (stateEvent && stateEvent.subject_ref !== row.card_token_id) throw fail('state');
  if (row.state !== expected) throw fail('state');

  const erased = isErased(created);
  if (row.salt === null) {
    // erased: the chain can no longer be asked about the token, only a chained suspension lets it be read
    if (!erased || row.state !== 'suspended') throw fail('state');
    const toCheck: EnvelopeCheck[] = [{ envelope: created, column: 'card_token_id', erased }];
    if (stateEvent) toCheck.push({ envelope: stateEvent, column: 'state' });
    await assertEnvelopesCommitted(db, toCheck, fail);
  } else {
    const entries = await entriesAbout(db, commitmentOf(row.salt, row.card_token_id), [
      CARD_TOKEN_CREATED,
      ...Object.keys(CARD_TOKEN_STATE_EVENTS),
    ]);
    const creation = entries.find((e) => e.audit_id === created.audit_ref);
    // erasure deletes the salt in the transaction that rewrites the envelope: an erased one beside a salt is forged
    if (!creation || creation.kind !== CARD_TOKEN_CREATED || erased) throw fail('card_token_id');
    if (creation.record_digest !== recordDigest(created)) throw fail('card_token_id');
    const latest = entries.filter((e) => Object.hasOwn(CARD_TOKEN_STATE_EVENTS, e.kind)).at(-1);
    if ((latest?.audit_id ?? null) !== (stateEvent?.audit_ref ?? null)) throw fail('state');
    if (stateEvent && (latest?.kind !== stateEvent.event_type || latest.record_digest !== recordDigest(stateEvent))) {
      throw fail('state');
    }
  }
  cache.add(key);
}

/** As check-events.ts recognises erasure's rewrite of a creation envelope. */
function isErased(envelope: { data?: Record<string, unknown> }): boolean {
  return envelope.data?.erased === true && envelope.data.last4 === null;
}
