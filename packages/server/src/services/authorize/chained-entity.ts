/**
 * An entity (agent, principal, intermediary) is honoured only as the chain backs it (chained-state.ts): its state
 * is the one its latest `ns.entity.suspended` / `.activated` / `.tombstoned` event left it in (`active` without one),
 * its type, its public key's RFC 7638 thumbprint and its time zone are those its `ns.entity.created` event restates, and each of
 * those events must be one whose envelope its audit entry commits to (by SHA-256 digest; no signature check), the
 * latest state entry about its salted commitment (audit/subject-commitment.ts) being the latest state event's.
 * Attacker: the database but not the key, swapping an agent's public key for one they hold (then signing as the
 * agent), or setting a suspended or erased agent back to `active`. The rule is verify's (check-entities.ts).
 *
 * COST: the two events come in the same statement as the row (cached-facts.ts, index `events_subject`, migration
 * 0016), and only on a fact miss; a checked (row, events) content is kept in the instance's ChainedStateCache, so a
 * fact re-read after the facts version moved costs no further read. A new event (a suspension) changes the key.
 */
import { jwkThumbprint, parsePublicEd25519Jwk } from '@aar/core';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';
import { recordDigest } from '../../audit/audit-entry.ts';
import { assertEnvelopesCommitted, commitmentOf, digestOf, entriesAbout, envelopeOf } from './chained-events.ts';
import { integrityFailure, type ChainedStateCache } from './chained-state.ts';

export const ENTITY_CREATED = 'ns.entity.created';
export const ENTITY_STATE_EVENTS: Readonly<Record<string, string>> = {
  'ns.entity.suspended': 'suspended',
  'ns.entity.activated': 'active',
  'ns.entity.tombstoned': 'tombstoned',
};

export interface EntityWithEvents {
  entity_id: string;
  type: string;
  state: string;
  public_key_jwk: string | null;
  /** the IANA zone of the rules' local time (migration 0018), restated by the creation event */
  time_zone: string | null;
  /** the envelope text of the entity's `ns.entity.created` event, null when it has none */
  created_event: string | null;
  /** the envelope text of its latest state event, null when it has none */
  state_event: string | null;
  /** the entity's subject salt (base64url), null once erasure deleted it */
  salt: string | null;
}

/** Throws integrityFailure (table `entities`) unless the row is what the entity's chained events say. */
export async function assertEntityChained(
  db: Kysely<Database>,
  cache: ChainedStateCache,
  row: EntityWithEvents,
): Promise<void> {
  const key = [
    'entity',
    row.entity_id,
    digestOf(row.created_event),
    digestOf(row.state_event),
    row.type,
    row.state,
    row.public_key_jwk,
    row.time_zone ?? '-',
    row.salt ?? '-',
  ].join('\n');
  if (cache.has(key)) return;
  const fail = (column: string) => integrityFailure('entities', row.entity_id, column);

  const stateEvent = row.state_event === null ? undefined : envelopeOf(row.state_event);
  if (stateEvent === null) throw fail('state');
  const expected = stateEvent ? ENTITY_STATE_EVENTS[String(stateEvent.event_type)] : 'active';
  if (stateEvent && stateEvent.subject_ref !== row.entity_id) throw fail('state');
  if (row.state !== expected) throw fail('state');

  if (row.state === 'tombstoned') {
    // erasure clears the key and deletes the salt (and may redact the creation's data): an erased entity decides
    // nothing but a denial, so its tombstone event's own entry is enough
    if (row.public_key_jwk !== null) throw fail('public_key_jwk');
    if (stateEvent) await assertEnvelopesCommitted(db, [{ envelope: stateEvent, column: 'state' }], fail);
  } else {
    const created = row.created_event === null ? null : envelopeOf(row.created_event);
    if (!created || created.subject_ref !== row.entity_id || created.event_type !== ENTITY_CREATED) {
      throw fail('entity_id');
    }
    const data = created.data ?? {};
    if (data.type !== row.type) throw fail('type');
    // a zone moved in the row would move the local time a time-window rule reads
    if ((data.time_zone ?? null) !== row.time_zone) throw fail('time_zone');
    if ((await thumbprintOf(row.public_key_jwk)) !== (data.key_thumbprint ?? null)) throw fail('public_key_jwk');
    // only erasure deletes a subject's salt; with it, the entity's entries are read by its commitment, so the latest
    // state ENTRY must be the latest state event's (a suspension whose event row was deleted still counts)
    if (row.salt === null) throw fail('entity_id');
    const entries = await entriesAbout(db, commitmentOf(row.salt, row.entity_id), [
      ENTITY_CREATED,
      ...Object.keys(ENTITY_STATE_EVENTS),
    ]);
    const creation = entries.find((e) => e.audit_id === created.audit_ref);
    if (!creation || creation.kind !== ENTITY_CREATED || creation.record_digest !== recordDigest(created)) {
      throw fail('entity_id');
    }
    const latest = entries.filter((e) => Object.hasOwn(ENTITY_STATE_EVENTS, e.kind)).at(-1);
    if ((latest?.audit_id ?? null) !== (stateEvent?.audit_ref ?? null)) throw fail('state');
    if (stateEvent && (latest?.kind !== stateEvent.event_type || latest.record_digest !== recordDigest(stateEvent))) {
      throw fail('state');
    }
  }
  cache.add(key);
}

/** The thumbprint of a stored key, exactly as create-entity.ts stores it; `invalid` for anything else. */
async function thumbprintOf(stored: string | null): Promise<string | null> {
  if (stored === null) return null;
  try {
    const jwk = parsePublicEd25519Jwk(JSON.parse(stored), '/public_key_jwk');
    if (JSON.stringify({ kty: jwk.kty, crv: jwk.crv, x: jwk.x }) !== stored) return 'invalid';
    return await jwkThumbprint(jwk);
  } catch {
    return 'invalid';
  }
}
