/**
 * The writes of one revocation, done by the database whatever the subtree's size: the subtree's active grants (one
 * range of the covering index `grants_tree` for a whole tree, a recursive walk of `grants_subtree` otherwise) are
 * numbered in grant-id order, then one `grant_revocations` row and one `ns.authority.revoked` event are written per
 * grant (the envelope's common members once per operation in event_operations, the rest rebuilt from the grant row
 * when read: migration 0006), and one audit entry for the operation. On PostgreSQL all of it is ONE statement
 * (data-modifying CTEs over one materialised subtree); on SQLite, which has no such CTEs, a temporary table in memory
 * holds the numbered subtree. JavaScript only mints the operation's id prefix and hashes the digest lines the
 * database assembles: no per-grant value is bound as a parameter or built in JavaScript.
 * Where a 100k-grant cascade's time goes (bench/RESULTS.md): writing 200k rows and their index entries (events have
 * four indexes), the digest lines, and on SQLite the per-row write-once insert guards, which the cascade lifts around
 * its own inserts inside its transaction (withoutInsertGuards below).
 *
 * The envelope (CONTRACT section 9) of grant G, revoked by operation O: `schema_version` `ns.webhook.v1`, a minted
 * `event_id` (also `delivery.idempotency_key`, `replayable` true), `event_type` `ns.authority.revoked`,
 * `occurred_at`, `actor_entity_id`, `reason_code` and `audit_ref` of O, `principal_entity_id` G's principal,
 * `subject_ref` G, `evidence_refs` [], `data` `{ affected_capabilities: [G's capability_id], new_state: "revoked",
 * previous_state: "active", revocation_root: the grant the revoke was called on }`.
 * The audit entry's record holds O's common members and `events_sha256`: the base64url SHA-256 of the lines
 * `<event_id> <subject_ref>\n`, one per event in event order. With the grants' own (signed) capability and principal,
 * every envelope can be rebuilt from the record and checked against what GET /v1/events serves.
 * Every mandate or allowance whose grant the cascade revoked gets its `ns.mandate.revoked` in the same unit
 * (services/mandates/revocation-events.ts).
 * Must run inside a write-queue unit (the audit appender, the savepoint).
 */
import { createHash } from 'node:crypto';
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import { subjectRefForAudit } from '../../audit/subject-commitment.ts';
import type { Database } from '../../store/index.ts';
import { auditOf } from '../../store/write-queue.ts';
import { assertCatalogued } from '../events/catalogued-event.ts';
import type { OperationTemplate } from '../events/derived-envelope.ts';
import { appendMandateRevocations } from '../mandates/revocation-events.ts';

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
  // the rows below bypass appendEvent: the catalogue check is made here, once per operation
  assertCatalogued(REVOKED_EVENT, input.reason_code);
  const rootRow = await trx
    .selectFrom('grants')
    .select('parent_grant_id')
    .where('grant_id', '=', input.root)
    .executeTakeFirst();
  const source = activeSubtree(input.root, rootRow !== undefined && rootRow.parent_grant_id === null);
  const ids = eventIdScheme(ctx.newUuid(), postgres);
  const template = JSON.stringify(operationTemplate(input));
  const written = postgres
    ? await writeInOneStatement(trx, input, source, ids, template)
    : await writeThroughTemporaryTable(trx, input, source, ids, template);
  const { count } = written;
  if (count === 0) return 0;
  // the lines were concatenated in scan order, which is event order in practice but not promised by SQL: checked,
  // and read again in the order the index guarantees if they are not (never seen; then slower, never wrong)
  const lines = inEventOrder(written.lines, ids.prefix, count) ? written.lines : await linesFromEvents(trx, input);
  await appendAuditEntry(trx, ctx, input, ids, count, lines);
  // a mandate or allowance whose grant this revoked says so itself (issue 29): one indexed read, zero rows mostly
  await appendMandateRevocations(trx, ctx, input);
  return count;
}

/**
 * Whether `lines` are exactly `count` lines and line i names event i (the operation's prefix and counter i in 8 hex
 * digits, then a space), i = 1..count. Reads the counter digit by digit: no string per line. Exported for tests.
 * The prefix is compared on the first line only: every line is the same SQL expression, the bound prefix followed by
 * the counter, so what the scan order can change is which counter sits on which line, and that is read on every
 * line (a prefix compare per line cost four times the rest: ~8 of ~10 ms for 100,000 lines).
 */
export function inEventOrder(lines: string, prefix: string, count: number): boolean {
  const digitsAt = prefix.length;
  if (count > 0 && !lines.startsWith(prefix)) return false;
  let at = 0;
  for (let n = 1; n <= count; n++) {
    let counter = 0;
    for (let k = 0; k < 8; k++) {
      const c = lines.charCodeAt(at + digitsAt + k);
      const digit = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : -1;
      if (digit < 0) return false;
      counter = counter * 16 + digit;
    }
    if (counter !== n || lines.charCodeAt(at + digitsAt + 8) !== 0x20) return false;
    const end = lines.indexOf('\n', at + digitsAt + 9);
    if (end < 0) return false;
    at = end + 1;
  }
  return at === lines.length;
}

/** How many lines `text` holds (each ends with a newline), counted without a string per line. Exported for tests. */
export function countLines(text: string): number {
  let lines = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) lines += 1;
  return lines;
}

/**
 * The digest lines read back from the operation's events in event-id order (one range of events_operation);
 * exported for tests.
 */
export async function linesFromEvents(
  trx: Kysely<Database>,
  c: Pick<RevocationCascadeInput, 'audit_ref'>,
): Promise<string> {
  const rows = await trx
    .selectFrom('events')
    .select(['event_id', 'subject_ref'])
    .where('operation_ref', '=', c.audit_ref)
    .orderBy('event_id')
    .execute();
  return rows.map((r) => `${r.event_id} ${r.subject_ref}\n`).join('');
}

/**
 * The WITH members naming `cascade_src`: the active, not yet revoked grants of the subtree (grant_id,
 * principal_entity_id, capability_id), in any order.
 */
function activeSubtree(root: string, wholeTree: boolean): RawBuilder<unknown> {
  if (wholeTree) {
    // A root grant's subtree is its whole tree: every grant carries root_grant_id (index grants_tree, covering).
    return sql`cascade_src as (
      select g.grant_id, g.principal_entity_id, g.capability_id
      from grants g
      where g.root_grant_id = ${root} and g.state = 'active'
        and not exists (select 1 from grant_revocations r where r.grant_id = g.grant_id))`;
  }
  // The grant and every descendant that is still active (a revoked grant's subtree was revoked with it).
  return sql`subtree(grant_id, principal_entity_id, capability_id, state, level) as (
      select grant_id, principal_entity_id, capability_id, state, 0 from grants where grant_id = ${root}
      union all
      select g.grant_id, g.principal_entity_id, g.capability_id, g.state, s.level + 1
      from grants g join subtree s on g.parent_grant_id = s.grant_id
      where s.level < ${MAX_SUBTREE_DEPTH}
    ),
    cascade_src as (
      select s.grant_id, s.principal_entity_id, s.capability_id
      from subtree s
      where s.state = 'active' and not exists (select 1 from grant_revocations r where r.grant_id = s.grant_id))`;
}

interface CascadeWritten {
  count: number;
  /** the lines `<event_id> <subject_ref>\n` of every event, concatenated in scan order (see inEventOrder) */
  lines: string;
}

/**
 * PostgreSQL: the whole cascade is one statement. The subtree is read once into a materialised CTE (numbered in
 * grant_id order, which the index scan gives without a sort), and the revocation rows, the operation, the events
 * and the digest lines are all written or read from it: no temporary table (whose local buffers spill to disk past
 * temp_buffers), no ANALYZE, one round trip. The sub-statements share one snapshot, which is all they need: each
 * reads only `cascade`.
 */
async function writeInOneStatement(
  trx: Transaction<Database>,
  c: RevocationCascadeInput,
  source: RawBuilder<unknown>,
  ids: EventIdScheme,
  template: string,
): Promise<CascadeWritten> {
  // the statement sorts the subtree twice (numbering, event order): in memory, not in temporary files, for this
  // transaction only (64 MB holds a 100k-grant subtree's sort, ~30 MB, with room to spare)
  const { rows: settings } = await sql<{ previous: string }>`
    select current_setting('work_mem') as previous, set_config('work_mem', '64MB', true)`.execute(trx);
  const { rows } = await sql<{ n: number | string; lines: string | null }>`
    with recursive ${source},
    cascade as materialized (
      select row_number() over (order by grant_id) as n, grant_id from cascade_src
    ),
    revoked as (
      insert into grant_revocations (grant_id, revoked_at, operation_ref, cascade_root)
      select grant_id, ${c.now}, ${c.audit_ref}, ${c.root} from cascade
    ),
    operation as (
      insert into event_operations (operation_ref, template, created_at)
      select ${c.audit_ref}, ${template}, ${c.now} where exists (select 1 from cascade)
    ),
    written as (
      insert into events (event_id, event_type, occurred_at, subject_ref, envelope, operation_ref)
      select ${ids.sql}, cast(${REVOKED_EVENT} as text), cast(${c.now} as text), a.grant_id, '',
        cast(${c.audit_ref} as text)
      from cascade a order by a.n
    )
    select count(*) as n, string_agg(${ids.sql} || ' ' || a.grant_id || E'\n', '') as lines
    from cascade a`.execute(trx);
  await sql`select set_config('work_mem', ${settings[0]!.previous}, true)`.execute(trx);
  return { count: Number(rows[0]?.n ?? 0), lines: rows[0]?.lines ?? '' };
}

/**
 * SQLite (no data-modifying CTEs): the subtree is collected into a temporary table (in memory: temp_store) numbered
 * in grant_id order, then the revocation rows, the operation and the events are inserted from it, each in that
 * order (WITHOUT ROWID and index insertions in key order), and the digest lines read from it.
 */
async function writeThroughTemporaryTable(
  trx: Transaction<Database>,
  c: RevocationCascadeInput,
  source: RawBuilder<unknown>,
  ids: EventIdScheme,
  template: string,
): Promise<CascadeWritten> {
  await sql`create temporary table if not exists aar_cascade (n integer primary key, grant_id text not null)`.execute(
    trx,
  );
  await sql`delete from aar_cascade`.execute(trx);
  try {
    // n is the rowid: into an empty table, rows are numbered 1, 2, ... in the order inserted (SQLite documents the
    // rowid of an insert as one more than the largest, 1 in an empty table), here grant-id order; checked below
    await sql`insert into aar_cascade (grant_id)
      with recursive ${source}
      select grant_id from cascade_src order by grant_id`.execute(trx);
    const { rows } = await sql<{ n: number | string; top: number | string | null }>`
      select count(*) as n, max(n) as top from aar_cascade`.execute(trx);
    const count = Number(rows[0]?.n ?? 0);
    if (Number(rows[0]?.top ?? 0) !== count) throw new Error('the cascade numbered its grants with gaps');
    if (count === 0) return { count, lines: '' };
    await trx
      .insertInto('event_operations')
      .values({ operation_ref: c.audit_ref, template, created_at: c.now })
      .execute();
    await withoutInsertGuards(trx, ['grant_revocations', 'events'], async () => {
      await sql`insert into grant_revocations (grant_id, revoked_at, operation_ref, cascade_root)
        select grant_id, ${c.now}, ${c.audit_ref}, ${c.root} from aar_cascade order by n`.execute(trx);
      await sql`insert into events (event_id, event_type, occurred_at, subject_ref, envelope, operation_ref)
        select ${ids.sql}, cast(${REVOKED_EVENT} as text), cast(${c.now} as text), a.grant_id, '',
          cast(${c.audit_ref} as text)
        from aar_cascade a order by a.n`.execute(trx);
    });
    const lines = await sql<{ lines: string }>`
      select group_concat(line, '') as lines
      from (select ${ids.sql} || ' ' || a.grant_id || char(10) as line from aar_cascade a order by a.n)`.execute(trx);
    return { count, lines: lines.rows[0]?.lines ?? '' };
  } finally {
    await sql`delete from aar_cascade`.execute(trx);
  }
}

/**
 * SQLite only. The write-once insert guards (store/migrations/write-once-guards.ts) refuse REPLACE and upserts that
 * would overwrite a row; they cost a trigger program and an index probe per inserted row: a fifth of a 100k-grant
 * cascade. The cascade's own inserts are plain INSERTs (a key that exists aborts them, as the guard would) of keys it
 * has just checked (grant_revocations) or minted (events), so those two guards are lifted around them and put back,
 * verbatim (their SQL as sqlite_master holds it), in the same transaction.
 * INVARIANT: no other connection ever runs without the guards: SQLite's DDL is transactional, a reader sees the
 * schema of its snapshot, and no other writer can run while this transaction holds the write lock. If `fn` fails,
 * the guards are put back first, and the transaction (or the unit's savepoint) is rolled back anyway.
 */
async function withoutInsertGuards(
  trx: Transaction<Database>,
  tables: readonly string[],
  fn: () => Promise<void>,
): Promise<void> {
  const names = tables.map((t) => `${t}_guard_insert`);
  const { rows: guards } = await sql<{ name: string; sql: string }>`
    select name, sql from sqlite_master where type = 'trigger' and name in (${sql.join(names)})`.execute(trx);
  for (const guard of guards) await sql`drop trigger ${sql.id(guard.name)}`.execute(trx);
  try {
    await fn();
  } finally {
    for (const guard of guards) await sql.raw(guard.sql).execute(trx);
  }
}

/**
 * The operation's common envelope members, stored once (event_operations); each event row holds its id and subject
 * and no envelope text (migration 0006, services/events/derived-envelope.ts rebuilds the envelope).
 */
function operationTemplate(c: RevocationCascadeInput): OperationTemplate {
  return {
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

async function appendAuditEntry(
  trx: Transaction<Database>,
  ctx: AppContext,
  c: RevocationCascadeInput,
  ids: EventIdScheme,
  count: number,
  lines: string,
): Promise<void> {
  if (lines.length === 0 || !lines.endsWith('\n') || countLines(lines) !== count) {
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
