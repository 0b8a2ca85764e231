/**
 * The writes of one revocation, done by the database in a handful of statements whatever the subtree's size: the
 * subtree's active grants are collected into a temporary table (one walk of the covering index `grants_subtree`),
 * then one `grant_revocations` row and one `ns.authority.revoked` envelope are written per grant, and one audit entry
 * for the operation. JavaScript only mints the event ids. Written by hand because the obvious way (rows into
 * JavaScript, one JSON envelope each, back into SQL) spent most of a 100k-grant cascade's second outside the
 * database; here no per-grant value crosses into JavaScript but the ids it mints and reads back for the digest.
 *
 * The envelope (CONTRACT section 9) of grant G, revoked by operation O: `schema_version` `ns.webhook.v1`, a minted
 * `event_id` (also `delivery.idempotency_key`, `replayable` true), `event_type` `ns.authority.revoked`,
 * `occurred_at`, `actor_entity_id`, `reason_code` and `audit_ref` of O, `principal_entity_id` G's principal,
 * `subject_ref` G, `evidence_refs` [], `data` `{ affected_capabilities: [G's capability_id], new_state: "revoked",
 * previous_state: "active", revocation_root: the grant the revoke was called on }`.
 * The audit entry's record holds O's common members and `events_sha256`: the base64url SHA-256 of the lines
 * `<event_id> <subject_ref>\n`, one per event in event order. With the grants' own (signed) capability and principal,
 * every envelope can be rebuilt from the record and checked against what GET /v1/events serves.
 * Must run inside a write-queue unit (the audit appender, the savepoint).
 */
import { createHash } from 'node:crypto';
import { mintedId } from '@aar/core';
import { sql, type Transaction } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import { subjectRefForAudit } from '../../audit/subject-commitment.ts';
import type { Database } from '../../store/index.ts';
import { auditOf } from '../../store/write-queue.ts';

export const REVOKED_EVENT = 'ns.authority.revoked';

/** A subtree deeper than this means a corrupted store; the walk stops there rather than loop. */
const MAX_SUBTREE_DEPTH = 64;

export interface RevocationCascadeInput {
  /** the grant the revoke was called on */
  root: string;
  now: string;
  audit_ref: string;
  reason_code: string;
  /** who acted, as events name it */
  actor_entity_id: string | null;
}

/** Revokes every active grant of the subtree of `input.root`; returns how many. */
export async function writeRevocationCascade(
  trx: Transaction<Database>,
  ctx: AppContext,
  input: RevocationCascadeInput,
): Promise<number> {
  const postgres = ctx.store.dialect === 'postgres';
  await collectSubtree(trx, postgres, input.root);
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from aar_cascade`.execute(trx);
  const count = Number(rows[0]?.n ?? 0);
  if (count > 0) {
    const eventIds = Array.from({ length: count }, () => mintedId('event', ctx.newUuid()));
    await sql`insert into grant_revocations (grant_id, revoked_at, operation_ref, cascade_root)
      select grant_id, ${input.now}, ${input.audit_ref}, ${input.root} from aar_cascade order by grant_id`.execute(trx);
    await (postgres ? insertEventsPostgres : insertEventsSqlite)(trx, input, JSON.stringify(eventIds));
    await appendAuditEntry(trx, ctx, input, eventIds, await subjectsInOrder(trx, postgres));
  }
  await sql`delete from aar_cascade`.execute(trx);
  return count;
}

async function collectSubtree(trx: Transaction<Database>, postgres: boolean, root: string): Promise<void> {
  await sql`create temporary table if not exists aar_cascade (
    n integer primary key, grant_id text not null, principal_entity_id text not null, capability_id text not null
  )`.execute(trx);
  await sql`delete from aar_cascade`.execute(trx);
  // The grant and every descendant that is still active (a revoked grant's subtree was revoked with it).
  await sql`insert into aar_cascade (n, grant_id, principal_entity_id, capability_id)
    with recursive subtree(grant_id, principal_entity_id, capability_id, state, level) as (
      select grant_id, principal_entity_id, capability_id, state, 0 from grants where grant_id = ${root}
      union all
      select g.grant_id, g.principal_entity_id, g.capability_id, g.state, s.level + 1
      from grants g join subtree s on g.parent_grant_id = s.grant_id
      where s.level < ${MAX_SUBTREE_DEPTH}
    )
    select row_number() over (), s.grant_id, s.principal_entity_id, s.capability_id
    from subtree s
    where s.state = 'active' and not exists (select 1 from grant_revocations r where r.grant_id = s.grant_id)`.execute(
    trx,
  );
  if (postgres) await sql`analyze aar_cascade`.execute(trx);
}

async function insertEventsSqlite(trx: Transaction<Database>, c: RevocationCascadeInput, ids: string): Promise<void> {
  // RFC 8785 text assembled from constant pieces and json_quote()d values, members in canonical order
  const q = (value: string | null) => JSON.stringify(value);
  const head = `{"actor_entity_id":${q(c.actor_entity_id)},"audit_ref":${q(c.audit_ref)},"data":{"affected_capabilities":[`;
  const data = `],"new_state":"revoked","previous_state":"active","revocation_root":${q(c.root)}},"delivery":{"idempotency_key":`;
  const type = `,"replayable":true},"event_id":`;
  const middle = `,"event_type":${q(REVOKED_EVENT)},"evidence_refs":[],"occurred_at":${q(c.now)},"principal_entity_id":`;
  const tail = `,"reason_code":${q(c.reason_code)},"schema_version":"ns.webhook.v1","subject_ref":`;
  await sql`insert into events (event_id, event_type, occurred_at, subject_ref, envelope)
    select j.value, ${REVOKED_EVENT}, ${c.now}, a.grant_id,
      ${head} || json_quote(a.capability_id) || ${data} || json_quote(j.value) || ${type} || json_quote(j.value)
      || ${middle} || json_quote(a.principal_entity_id) || ${tail} || json_quote(a.grant_id) || '}'
    from json_each(${ids}) j join aar_cascade a on a.n = j.key + 1
    order by j.key`.execute(trx);
}

async function insertEventsPostgres(trx: Transaction<Database>, c: RevocationCascadeInput, ids: string): Promise<void> {
  await sql`insert into events (event_id, event_type, occurred_at, subject_ref, envelope)
    select j.value, ${REVOKED_EVENT}::text, ${c.now}::text, a.grant_id, json_build_object(
      'actor_entity_id', ${c.actor_entity_id}::text,
      'audit_ref', ${c.audit_ref}::text,
      'data', json_build_object(
        'affected_capabilities', json_build_array(a.capability_id),
        'new_state', 'revoked',
        'previous_state', 'active',
        'revocation_root', ${c.root}::text),
      'delivery', json_build_object('idempotency_key', j.value, 'replayable', true),
      'event_id', j.value,
      'event_type', ${REVOKED_EVENT}::text,
      'evidence_refs', json_build_array(),
      'occurred_at', ${c.now}::text,
      'principal_entity_id', a.principal_entity_id,
      'reason_code', ${c.reason_code}::text,
      'schema_version', 'ns.webhook.v1',
      'subject_ref', a.grant_id)::text
    from json_array_elements_text(${ids}::json) with ordinality as j(value, k) join aar_cascade a on a.n = j.k
    order by j.k`.execute(trx);
}

async function subjectsInOrder(trx: Transaction<Database>, postgres: boolean): Promise<string[]> {
  const { rows } = postgres
    ? await sql<{ ids: string }>`select string_agg(grant_id, E'\n' order by n) as ids from aar_cascade`.execute(trx)
    : await sql<{ ids: string }>`select group_concat(grant_id, char(10) order by n) as ids from aar_cascade`.execute(
        trx,
      );
  return (rows[0]?.ids ?? '').split('\n');
}

async function appendAuditEntry(
  trx: Transaction<Database>,
  ctx: AppContext,
  c: RevocationCascadeInput,
  eventIds: readonly string[],
  subjects: readonly string[],
): Promise<void> {
  if (subjects.length !== eventIds.length) throw new Error('the cascade lost track of its events');
  const hash = createHash('sha256');
  eventIds.forEach((id, i) => hash.update(`${id} ${subjects[i]}\n`, 'utf8'));
  await auditOf(trx).append({
    audit_id: c.audit_ref,
    kind: REVOKED_EVENT,
    subject_ref: await subjectRefForAudit(trx, c.root, c.now),
    record: {
      operation: 'revoke_grant',
      grant_id: c.root,
      event_type: REVOKED_EVENT,
      actor_entity_id: c.actor_entity_id,
      reason_code: c.reason_code,
      occurred_at: c.now,
      event_count: eventIds.length,
      first_event_id: eventIds[0] ?? null,
      last_event_id: eventIds[eventIds.length - 1] ?? null,
      events_sha256: hash.digest('base64url'),
    },
    occurred_at: c.now,
  });
}
