/**
 * Revocation cascades against their audit entries (services/grants/write-revocation-cascade.ts): one entry per
 * operation commits to `{ operation, grant_id, event_type, actor_entity_id, reason_code, occurred_at, event_count,
 * first_event_id, last_event_id, events_sha256 }`, `events_sha256` hashing the lines `<event_id> <subject_ref>\n`
 * of its events in order. Per operation, that record is rebuilt from `event_operations` and the operation's events
 * (streamed in event-id order: the ids share the operation's prefix, so one range of the unique index) and must
 * have the entry's digest; then every `grant_revocations` row must name an event of its operation, with its instant
 * and root, and each operation must have as many revocations as events. O(page + operations) memory.
 */
import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { OperationTemplate } from '../../services/events/derived-envelope.ts';
import type { Database } from '../../store/index.ts';
import { recordDigest } from '../audit-entry.ts';
import { entriesById, existsBeyond } from './entries-by-id.ts';
import type { RecordFindings } from './record-findings.ts';

const REVOKED = 'ns.authority.revoked';
/** `ns:event:` and the 28 characters of the operation's UUID the cascade's event ids share */
const PREFIX_LENGTH = 'ns:event:'.length + 28;

export async function checkRevocations(
  db: Kysely<Database>,
  findings: RecordFindings,
  pageSize: number,
): Promise<void> {
  const operations = new Map<string, { template: OperationTemplate; index: number | undefined }>();
  let after = '';
  for (;;) {
    const ops = await db
      .selectFrom('event_operations')
      .selectAll()
      .where('operation_ref', '>', after)
      .orderBy('operation_ref')
      .limit(pageSize)
      .execute();
    if (ops.length === 0) break;
    after = ops[ops.length - 1]!.operation_ref;
    const entries = await entriesById(
      db,
      ops.map((o) => o.operation_ref),
      findings.size,
    );
    for (const op of ops) {
      const record = { table: 'event_operations', id: op.operation_ref };
      const entry = entries.get(op.operation_ref);
      if (!entry) {
        if (!(await existsBeyond(db, op.operation_ref, findings.size))) {
          findings.fail({ reason: 'record_unanchored', record, detail: 'operation_ref' });
        }
        continue;
      }
      findings.eventAnchored.set(entry.index);
      let template: OperationTemplate;
      try {
        template = JSON.parse(op.template) as OperationTemplate;
      } catch {
        findings.fail({ reason: 'record_digest_mismatch', index: entry.index, record, detail: 'template' });
        continue;
      }
      operations.set(op.operation_ref, { template, index: entry.index });
      // an operation below the run's start was checked, with its events and revocations, by the run that marked it
      if (entry.index < findings.scope.from) continue;
      const problem = await operationProblem(db, op.operation_ref, template, entry.parsed?.record_digest, pageSize);
      if (problem) findings.fail({ reason: 'record_digest_mismatch', index: entry.index, ...problem });
    }
  }
  await checkRevocationRows(db, findings, operations, pageSize);
  const stray = await db
    .selectFrom('events as e')
    .select(['e.event_id'])
    .where('e.operation_ref', 'is not', null)
    .where('e.seq', '>', findings.scope.after.events)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('event_operations as o')
            .select('o.operation_ref')
            .whereRef('o.operation_ref', '=', 'e.operation_ref'),
        ),
      ),
    )
    .limit(1)
    .executeTakeFirst();
  if (stray)
    findings.fail({
      reason: 'record_unanchored',
      record: { table: 'events', id: stray.event_id },
      detail: 'operation_ref',
    });
}

async function operationProblem(
  db: Kysely<Database>,
  operationRef: string,
  t: OperationTemplate,
  committed: string | undefined,
  pageSize: number,
): Promise<{ record: { table: string; id: string }; detail: string } | undefined> {
  const opRecord = { table: 'event_operations', id: operationRef };
  if (
    t.schema_version !== 'ns.webhook.v1' ||
    t.event_type !== REVOKED ||
    t.audit_ref !== operationRef ||
    JSON.stringify(t.evidence_refs) !== '[]' ||
    t.data?.new_state !== 'revoked' ||
    t.data.previous_state !== 'active' ||
    Object.keys(t.data).length !== 3 ||
    t.from_grant?.principal_entity_id !== true ||
    t.from_grant.affected_capabilities !== true
  ) {
    return { record: opRecord, detail: 'template' };
  }
  const counted = await db
    .selectFrom('events')
    .select((eb) => [eb.fn.countAll<number | string>().as('n'), eb.fn.min('event_id').as('first')])
    .where('operation_ref', '=', operationRef)
    .executeTakeFirst();
  const total = Number(counted?.n ?? 0);
  const first = counted?.first ?? '';
  const prefix = first.slice(0, PREFIX_LENGTH);
  const lines = createHash('sha256');
  let seen = 0;
  let last = '';
  let cursor = '';
  for (;;) {
    const rows = await db
      .selectFrom('events')
      .select(['event_id', 'event_type', 'occurred_at', 'subject_ref', 'envelope', 'operation_ref'])
      .where('event_id', '>=', `${prefix}00000000`)
      .where('event_id', '<=', `${prefix}ffffffff`)
      .where('event_id', '>', cursor)
      .orderBy('event_id')
      .limit(pageSize)
      .execute();
    if (rows.length === 0) break;
    for (const row of rows) {
      if (
        row.operation_ref !== operationRef ||
        row.event_type !== REVOKED ||
        row.occurred_at !== t.occurred_at ||
        row.envelope !== ''
      ) {
        return { record: { table: 'events', id: row.event_id }, detail: 'operation event' };
      }
      lines.update(`${row.event_id} ${row.subject_ref}\n`, 'utf8');
      seen += 1;
      last = row.event_id;
    }
    cursor = rows[rows.length - 1]!.event_id;
  }
  if (seen !== total || total === 0) return { record: opRecord, detail: 'event_count' };
  const record = {
    operation: 'revoke_grant',
    grant_id: t.data.revocation_root,
    event_type: t.event_type,
    actor_entity_id: t.actor_entity_id,
    reason_code: t.reason_code,
    occurred_at: t.occurred_at,
    event_count: total,
    first_event_id: first,
    last_event_id: last,
    events_sha256: lines.digest('base64url'),
  };
  return recordDigest(record) === committed ? undefined : { record: opRecord, detail: 'operation record' };
}

async function checkRevocationRows(
  db: Kysely<Database>,
  findings: RecordFindings,
  operations: Map<string, { template: OperationTemplate; index: number | undefined }>,
  pageSize: number,
): Promise<void> {
  let after = '';
  for (;;) {
    const rows = await db
      .selectFrom('grant_revocations as r')
      .leftJoin('events as e', (join) =>
        join
          .onRef('e.operation_ref', '=', 'r.operation_ref')
          .onRef('e.subject_ref', '=', 'r.grant_id')
          .on('e.operation_ref', 'is not', null),
      )
      .select(['r.grant_id', 'r.revoked_at', 'r.operation_ref', 'r.cascade_root', 'e.event_id'])
      .where('r.grant_id', '>', after)
      .orderBy('r.grant_id')
      .limit(pageSize)
      .execute();
    if (rows.length === 0) break;
    after = rows[rows.length - 1]!.grant_id;
    for (const row of rows) {
      const op = operations.get(row.operation_ref);
      const record = { table: 'grant_revocations', id: row.grant_id };
      if (op && op.index !== undefined && op.index < findings.scope.from) continue;
      if (!op) {
        if (!(await existsBeyond(db, row.operation_ref, findings.size))) {
          findings.fail({ reason: 'record_unanchored', record, detail: 'operation_ref' });
        }
        continue;
      }
      const detail =
        row.event_id === null
          ? 'grant_id'
          : row.revoked_at !== op.template.occurred_at
            ? 'revoked_at'
            : row.cascade_root !== op.template.data.revocation_root
              ? 'cascade_root'
              : undefined;
      if (detail)
        findings.fail({
          reason: 'record_mismatch',
          ...(op.index === undefined ? {} : { index: op.index }),
          record,
          detail,
        });
    }
  }
  // as many revocations as events per operation: with one event per revocation above, none is missing
  const counts = await sql<{ operation_ref: string; n: number | string }>`
    select operation_ref, count(*) as n from grant_revocations group by operation_ref`.execute(db);
  const revocations = new Map(counts.rows.map((r) => [r.operation_ref, Number(r.n)]));
  for (const [ref, op] of operations) {
    if (op.index !== undefined && op.index < findings.scope.from) continue;
    const events = await db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('operation_ref', '=', ref)
      .executeTakeFirst();
    if (Number(events?.n ?? 0) !== (revocations.get(ref) ?? 0)) {
      findings.fail({
        reason: 'record_missing',
        ...(op.index === undefined ? {} : { index: op.index }),
        record: { table: 'grant_revocations', id: ref },
        detail: 'a revocation of the operation is missing',
      });
    }
  }
}
