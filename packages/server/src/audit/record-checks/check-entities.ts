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
import { changedSubjects, chunksOf } from './changed-subjects.ts';
import { entriesById, existsBeyond } from './entries-by-id.ts';
import type { RecordFindings } from './record-findings.ts';
import { subjectEvents } from './subject-events.ts';

const STATE_EVENTS = {
  'ns.entity.suspended': 'suspended',
  'ns.entity.activated': 'active',
  'ns.entity.tombstoned': 'tombstoned',
} as const;

export async function checkEntities(db: Kysely<Database>, findings: RecordFindings, pageSize: number): Promise<void> {
  // incremental: only the rows whose events are new since the mark (changed-subjects.ts)
  const changed = await changedSubjects(db, findings.scope, [
    ...Object.keys({ 'ns.entity.created': 1, ...STATE_EVENTS }),
  ]);
  const chunks =
    changed &&
    chunksOf(
      changed.map((s) => s),
      pageSize,
    );
  let after = '';
  for (let chunk = 0; ; chunk++) {
    let query = db.selectFrom('entities').select(['entity_id', 'type', 'public_key_jwk', 'key_thumbprint', 'state']);
    if (chunks) {
      if (chunk >= chunks.length) return;
      query = query.where('entity_id', 'in', chunks[chunk]!);
    } else query = query.where('entity_id', '>', after).orderBy('entity_id').limit(pageSize);
    const rows = await query.execute();
    if (rows.length === 0) {
      if (chunks) continue;
      return;
    }
    after = rows[rows.length - 1]!.entity_id;
    const histories = await subjectEvents(
      db,
      rows.map((r) => r.entity_id),
      'ns.entity.created',
      'active',
      STATE_EVENTS,
    );
    const entries = await entriesById(
      db,
      [...histories.values()].flatMap((h) => (h.created ? [h.created.audit_ref] : [])),
      findings.size,
    );
    for (const row of rows) {
      const record = { table: 'entities', id: row.entity_id };
      const history = histories.get(row.entity_id);
      const entry = history?.created ? entries.get(history.created.audit_ref) : undefined;
      if (!history?.created || !entry) {
        if (history?.created && (await existsBeyond(db, history.created.audit_ref, findings.size))) continue;
        findings.fail({ reason: 'record_unanchored', record, detail: 'entity_id' });
        continue;
      }
      const detail = await entityProblem(row, history.created.data, history.state);
      if (detail) findings.fail({ reason: 'record_mismatch', index: entry.index, record, detail });
    }
  }
}

async function entityProblem(
  row: { type: string; public_key_jwk: string | null; key_thumbprint: string | null; state: string },
  created: Record<string, unknown>,
  state: string,
): Promise<string | undefined> {
  if (row.type !== created.type) return 'type';
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
