/**
 * The writes of one revocation, done by the database in a handful of statements whatever the subtree's size: the
 * subtree's active grants are collected into a temporary table (one walk of the covering index `grants_subtree`),
 * then one `grant_revocations` row and one `ns.authority.revoked` event are written per grant (the envelope's common
 * members once per operation in event_operations, the rest rebuilt from the grant row when read: migration 0006),
 * and one audit entry for the operation. JavaScript only mints the event ids. Written by hand because the obvious way (rows into
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
import { sql, type RawBuilder, type Transaction } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import { subjectRefForAudit } from '../../audit/subject-commitment.ts';
import type { Database } from '../../store/index.ts';
import { auditOf } from '../../store/write-queue.ts';
import { assertCatalogued } from '../events/catalogued-event.ts';
import type { OperationTemplate } from '../events/derived-envelope.ts';

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
    const ids = eventIdScheme(ctx.newUuid(), postgres);
    await sql`insert into grant_revocations (grant_id, revoked_at, operation_ref, cascade_root)
      select grant_id, ${input.now}, ${input.audit_ref}, ${input.root} from aar_cascade order by grant_id`.execute(trx);
    await insertEvents(trx, postgres, input, ids);
    await appendAuditEntry(trx, ctx, input, ids, count, await eventLines(trx, postgres, ids));
  }
  await sql`delete from aar_cascade`.execute(trx);
  return count;
}

async function collectSubtree(trx: Transaction<Database>, postgres: boolean, root: string): Promise<void> {
  await sql`create temporary table if not exists aar_cascade (
    n integer primary key, grant_id text not null, principal_entity_id text not null, capability_id text not null
  )`.execute(trx);
  await sql`delete from aar_cascade`.execute(trx);
  const rootRow = await trx
    .selectFrom('grants')
    .select('parent_grant_id')
    .where('grant_id', '=', root)
    .executeTakeFirst();
  if (rootRow && rootRow.parent_grant_id === null) {
    // A root grant's subtree is its whole tree: every grant carries root_grant_id (index grants_tree).
    await sql`insert into aar_cascade (n, grant_id, principal_entity_id, capability_id)
      select row_number() over (), g.grant_id, g.principal_entity_id, g.capability_id
      from grants g
      where g.root_grant_id = ${root} and g.state = 'active'
        and not exists (select 1 from grant_revocations r where r.grant_id = g.grant_id)`.execute(trx);
  } else {
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
  }
  if (postgres) await sql`analyze aar_cascade`.execute(trx);
}

/**
 * The operation's common envelope members are stored once (event_operations); each event row holds its id and
 * subject and no envelope text (migration 0006, services/events/derived-envelope.ts rebuilds the envelope).
 */
async function insertEvents(
  trx: Transaction<Database>,
  postgres: boolean,
  c: RevocationCascadeInput,
  ids: EventIdScheme,
): Promise<void> {
  // the rows below bypass appendEvent: the catalogue check is made here, once per operation
  assertCatalogued(REVOKED_EVENT, c.reason_code);
  const template: OperationTemplate = {
    schema_version: 'ns.webhook.v1',
    event_type: REVOKED_EVENT,
    occurred_at: c.now,
    actor_entity_id: c.actor_entity_id,
    reason_code: c.reason_code,
    audit_ref: c.audit_ref,
    evidence_refs: [],
    data: { new_state: 'revoked', previous_state: 'active', revocation_root: c.root },
    from_grant: { principal_entity_id: true, affected_capabilities: true },
  };
  await trx
    .insertInto('event_operations')
    .values({ operation_ref: c.audit_ref, template: JSON.stringify(template), created_at: c.now })
    .execute();
  await sql`insert into events (event_id, event_type, occurred_at, subject_ref, envelope, operation_ref)
    select ${ids.sql}, cast(${REVOKED_EVENT} as text), cast(${c.now} as text), a.grant_id, '', cast(${c.audit_ref} as text)
    from aar_cascade a order by a.n`.execute(trx);
}

/**
 * The event ids of one operation: UUIDv7s sharing the operation's timestamp and 42 random bits, with the event's
 * position as a 32-bit counter in the low bits of rand_b (RFC 9562 section 6.2, method 1: a fixed-length dedicated
 * counter). The database mints them itself from the row number, so no id of a 100k-grant cascade crosses into
 * JavaScript. Unique within the operation by the counter, across operations by timestamp and random bits.
 */
interface EventIdScheme {
  prefix: string;
  /** the event id of cascade row `a.n`, as SQL */
  sql: RawBuilder<string>;
  of(n: number): string;
}

function eventIdScheme(uuid: string, postgres: boolean): EventIdScheme {
  const prefix = `ns:event:${uuid.slice(0, 28)}`;
  return {
    prefix,
    sql: postgres
      ? sql<string>`cast(${prefix} as text) || lpad(to_hex(a.n), 8, '0')`
      : sql<string>`cast(${prefix} as text) || printf('%08x', a.n)`,
    of: (n) => `${prefix}${n.toString(16).padStart(8, '0')}`,
  };
}

/** The lines `<event_id> <subject_ref>\n` of every event in order, assembled by the database in one string. */
async function eventLines(trx: Transaction<Database>, postgres: boolean, ids: EventIdScheme): Promise<string> {
  const { rows } = postgres
    ? await sql<{ lines: string }>`select string_agg(${ids.sql} || ' ' || a.grant_id || E'\n', '' order by a.n) as lines
        from aar_cascade a`.execute(trx)
    : await sql<{
        lines: string;
      }>`select group_concat(${ids.sql} || ' ' || a.grant_id || char(10), '' order by a.n) as lines
        from aar_cascade a`.execute(trx);
  return rows[0]?.lines ?? '';
}

async function appendAuditEntry(
  trx: Transaction<Database>,
  ctx: AppContext,
  c: RevocationCascadeInput,
  ids: EventIdScheme,
  count: number,
  lines: string,
): Promise<void> {
  if (lines.length === 0 || lines.split('\n', count + 1).length !== count + 1) {
    throw new Error('the cascade lost track of its events');
  }
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
      event_count: count,
      first_event_id: ids.of(1),
      last_event_id: ids.of(count),
      events_sha256: createHash('sha256').update(lines, 'utf8').digest('base64url'),
    },
    occurred_at: c.now,
  });
}
