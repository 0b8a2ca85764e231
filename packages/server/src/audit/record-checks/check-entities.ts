/**
 * Every entity against its events (check-events.ts checks each envelope against its entry): `ns.entity.created`
 * restates the type and the key's RFC 7638 thumbprint, and the state is the one the entity's last
 * `ns.entity.suspended` / `ns.entity.activated` / `ns.entity.tombstoned` event left it in. The public key must have
 * that thumbprint (it is what verifies the agent's signed requests and delegation statements); erasure clears key,
 * thumbprint and display name together. Attacker assumption: someone with SQL access swaps an agent's key for one
 * they hold, or reactivates a suspended or erased entity. `display_name` (personal data, kept out of the chain so it
 * can be erased) and the timestamps are in no chained record (docs/audit.md, "Outside the chain").
 * A full run checks every row, a page at a time; an incremental run, the rows whose events are new since its mark
 * (changed-subjects.ts).
 */
import { jwkThumbprint, parsePublicEd25519Jwk } from '@aar/core';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';
import { checkSubjectRows } from './check-subject-rows.ts';
import type { RecordFindings } from './record-findings.ts';

const STATE_EVENTS = {
  'ns.entity.suspended': 'suspended',
  'ns.entity.activated': 'active',
  'ns.entity.tombstoned': 'tombstoned',
} as const;

export async function checkEntities(db: Kysely<Database>, findings: RecordFindings, pageSize: number): Promise<void> {
  await checkSubjectRows(db, findings, pageSize, {
    table: 'entities',
    idColumn: 'entity_id',
    createdType: 'ns.entity.created',
    stateEvents: STATE_EVENTS,
    subjectOf: (id) => id,
    idOfSubject: (subject) => subject,
    readRows: (db, page) => {
      const query = db
        .selectFrom('entities')
        .select(['entity_id', 'type', 'public_key_jwk', 'key_thumbprint', 'state', 'time_zone']);
      return 'ids' in page
        ? query.where('entity_id', 'in', page.ids).execute()
        : query.where('entity_id', '>', page.after).orderBy('entity_id').limit(page.limit).execute();
    },
    idOf: (row) => row.entity_id,
    problem: (row, { created, state }) => entityProblem(row, created.data, state),
  });
}

async function entityProblem(
  row: {
    type: string;
    public_key_jwk: string | null;
    key_thumbprint: string | null;
    state: string;
    time_zone: string | null;
  },
  created: Record<string, unknown>,
  state: string,
): Promise<string | undefined> {
  if (row.type !== created.type) return 'type';
  // the zone the rules' local time is computed in (since 0018; an entity created before has none, nor its event)
  if (row.time_zone !== (created.time_zone ?? null)) return 'time_zone';
  if (row.state !== state) return 'state';
  if (state === 'tombstoned') {
    if (row.public_key_jwk !== null) return 'public_key_jwk';
    return row.key_thumbprint === null ? undefined : 'key_thumbprint';
  }
  if (row.key_thumbprint !== created.key_thumbprint) return 'key_thumbprint';
  if (row.public_key_jwk === null) return row.key_thumbprint === null ? undefined : 'public_key_jwk';
  try {
    const jwk = parsePublicEd25519Jwk(JSON.parse(row.public_key_jwk), '/public_key_jwk');
    // stored as create-entity.ts writes it: exactly the members the thumbprint covers
    if (JSON.stringify({ kty: jwk.kty, crv: jwk.crv, x: jwk.x }) !== row.public_key_jwk) return 'public_key_jwk';
    return (await jwkThumbprint(jwk)) === row.key_thumbprint ? undefined : 'public_key_jwk';
  } catch {
    return 'public_key_jwk';
  }
}
