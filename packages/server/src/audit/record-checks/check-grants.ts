/**
 * Every grant row against the record that commits to it: the `ns.authority.granted` (root) or
 * `ns.authority.delegated` (sub-delegation) event written in the grant's transaction, whose envelope check-events.ts
 * checks against its audit entry. Attacker assumption: someone with write access to the database (not the service
 * key) widens a grant (`scope`, `capability_id`, `resource_id`), hands it to another actor, or changes its state.
 * - Each column the event restates must be the row's: principal, actor (the grantee), capability, resource, the
 *   scope (compared in its wire form, the form the event and the link carry), and for a delegation its parent, root
 *   and depth; whether the delegator signed.
 * - `document` (the link the service signed at write: what GET /v1/grants serves and authorize trusts) is stored
 *   as written, names the row's facts, was issued at `created_at`, and its signature verifies with the service's keys;
 *   `delegator_signature` is the statement the link carries (or null when it carries none).
 * - State: the service never rewrites a grant row (a revocation is a `grant_revocations` row, check-revocations.ts),
 *   so a row is `active` with no `revoked_at` and `updated_at` = `created_at`, unless it was revoked before those rows
 *   existed (migration 0005): then `revoked` needs an `ns.authority.revoked` event naming it. Whether a grant is
 *   revoked NOW is its revocation rows' and events' to say, which their own checks cover.
 * `created_by` (the credential that created it) is in no chained record; nothing reads it (docs/audit.md).
 * A full run checks every grant, a page at a time (O(page) memory; a page's signatures verify in parallel on the thread
 * pool); an incremental run, the grants whose events are new since its mark (changed-subjects.ts).
 */
import { canonicalJson, verifyDocument, type Jwks } from '@aar/core';
import type { Kysely, Selectable } from 'kysely';
import { scopeToWire, type StoredScope } from '../../services/grants/grant-scope.ts';
import type { Database, GrantsTable } from '../../store/index.ts';
import { changedSubjects, chunksOf } from './changed-subjects.ts';
import { entriesById, existsBeyond } from './entries-by-id.ts';
import type { RecordFindings, RecordFailureReason } from './record-findings.ts';

type GrantRow = Selectable<GrantsTable>;
type Problem = { reason: RecordFailureReason; detail: string } | undefined;

const CREATED_EVENTS = ['ns.authority.granted', 'ns.authority.delegated'] as const;
const REVOKED_EVENT = 'ns.authority.revoked';

interface Creation {
  event_type: string;
  audit_ref: string;
  principal_entity_id: unknown;
  data: Record<string, unknown>;
}

export async function checkGrants(
  db: Kysely<Database>,
  findings: RecordFindings,
  jwks: Jwks,
  pageSize: number,
): Promise<void> {
  const page = (rows: GrantRow[]) => checkPage(db, findings, jwks, rows);
  // incremental: the grants created or revoked since the mark
  const changed = await changedSubjects(db, findings.scope, [...CREATED_EVENTS, REVOKED_EVENT]);
  if (changed) {
    for (const ids of chunksOf(changed, pageSize)) {
      await page(await db.selectFrom('grants').selectAll().where('grant_id', 'in', ids).execute());
    }
    return;
  }
  let after = 0;
  for (;;) {
    const rows: GrantRow[] = await db
      .selectFrom('grants')
      .selectAll()
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(pageSize)
      .execute();
    if (rows.length === 0) return;
    after = Number(rows[rows.length - 1]!.seq);
    await page(rows);
  }
}

async function checkPage(db: Kysely<Database>, findings: RecordFindings, jwks: Jwks, rows: GrantRow[]): Promise<void> {
  if (rows.length === 0) return;
  const { created, revokedByEvent } = await eventsOf(db, rows);
  const entries = await entriesById(
    db,
    [...created.values()].map((c) => c.audit_ref),
    findings.size,
  );
  await Promise.all(
    rows.map(async (row) => {
      const record = { table: 'grants', id: row.grant_id };
      const creation = created.get(row.grant_id);
      const entry = creation ? entries.get(creation.audit_ref) : undefined;
      if (!creation || !entry) {
        // created after the tip this run read: the next run's
        if (creation && (await existsBeyond(db, creation.audit_ref, findings.size))) return;
        findings.fail({ reason: 'record_unanchored', record, detail: 'grant_id' });
        return;
      }
      const problem = creationProblem(row, creation) ?? stateProblem(row, revokedByEvent.has(row.grant_id));
      const found = problem ?? (await documentProblem(row, jwks));
      if (found) findings.fail({ ...found, index: entry.index, record });
    }),
  );
}

/** The row against its creation event's envelope (digest-checked against its entry by check-events.ts). */
function creationProblem(row: GrantRow, creation: Creation): Problem {
  const data = creation.data;
  const delegated = creation.event_type === 'ns.authority.delegated';
  const expected: Array<[string, unknown, unknown]> = [
    ['principal_entity_id', row.principal_entity_id, creation.principal_entity_id],
    ['actor_entity_id', row.actor_entity_id, data.grantee_entity_id],
    ['capability_id', row.capability_id, data.capability_id],
    ['resource_id', row.resource_id, data.resource_id],
    ['parent_grant_id', row.parent_grant_id, delegated ? data.parent_grant_id : null],
    ['root_grant_id', row.root_grant_id, delegated ? data.root_grant_id : row.grant_id],
    ['depth', Number(row.depth), delegated ? data.depth : 0],
  ];
  if (delegated) {
    expected.push(['delegator_signature', row.delegator_signature !== null, data.delegator_signed]);
  }
  for (const [column, actual, committed] of expected) {
    if (actual !== committed) return { reason: 'record_mismatch', detail: column };
  }
  return wireScope(row.scope) === canonicalJson(data.scope ?? null)
    ? undefined
    : { reason: 'record_mismatch', detail: 'scope' };
}

/** The service writes a grant row once; only rows revoked before migration 0005 say `revoked`, with their event. */
function stateProblem(row: GrantRow, revokedByEvent: boolean): Problem {
  if (row.state === 'active') {
    if (row.revoked_at !== null) return { reason: 'record_mismatch', detail: 'revoked_at' };
    if (row.updated_at !== row.created_at) return { reason: 'record_mismatch', detail: 'updated_at' };
    return undefined;
  }
  if (row.state !== 'revoked' || !revokedByEvent) return { reason: 'record_mismatch', detail: 'state' };
  return row.revoked_at === null ? { reason: 'record_mismatch', detail: 'revoked_at' } : undefined;
}

/** The signed link: stored as written, naming the row's facts, and signed by the service. */
async function documentProblem(row: GrantRow, jwks: Jwks): Promise<Problem> {
  let link: Record<string, unknown>;
  try {
    link = JSON.parse(row.document) as Record<string, unknown>;
    // written with JSON.stringify (create-grant.ts, delegate-grant.ts): any other text is an edit
    if (typeof link !== 'object' || link === null || JSON.stringify(link) !== row.document) throw new Error();
  } catch {
    return { reason: 'record_digest_mismatch', detail: 'document' };
  }
  const facts: Array<[string, unknown, unknown]> = [
    ['grant_id', link.grant_id, row.grant_id],
    ['parent_grant_id', link.parent_grant_id, row.parent_grant_id],
    ['principal_entity_id', link.principal_entity_id, row.principal_entity_id],
    ['actor_entity_id', link.actor_entity_id, row.actor_entity_id],
    ['capability_id', link.capability_id, row.capability_id],
    ['resource_id', link.resource_id, row.resource_id],
    ['depth', link.depth, Number(row.depth)],
    ['created_at', link.issued_at, row.created_at],
  ];
  for (const [column, signed, actual] of facts) {
    if (signed !== actual) return { reason: 'record_mismatch', detail: column };
  }
  if (wireScope(row.scope) !== canonicalJson(link.scope ?? null)) return { reason: 'record_mismatch', detail: 'scope' };
  const statement = (link.delegation as { statement?: unknown } | undefined)?.statement;
  if (delegatorStatement(row.delegator_signature) !== (statement === undefined ? null : canonicalJson(statement))) {
    return { reason: 'record_mismatch', detail: 'delegator_signature' };
  }
  return (await verifyDocument(link, jwks)).valid
    ? undefined
    : { reason: 'record_signature_invalid', detail: 'document' };
}

function wireScope(stored: string): string | undefined {
  try {
    return canonicalJson(scopeToWire(JSON.parse(stored) as StoredScope));
  } catch {
    return undefined;
  }
}

function delegatorStatement(stored: string | null): string | null | undefined {
  if (stored === null) return null;
  try {
    const value = JSON.parse(stored) as unknown;
    // written with JSON.stringify (delegate-grant.ts)
    return JSON.stringify(value) === stored ? canonicalJson(value) : undefined;
  } catch {
    return undefined;
  }
}

/** The creation events of a page of grants, and which of them an `ns.authority.revoked` event names. */
async function eventsOf(
  db: Kysely<Database>,
  rows: readonly GrantRow[],
): Promise<{ created: Map<string, Creation>; revokedByEvent: Set<string> }> {
  const created = new Map<string, Creation>();
  const revokedByEvent = new Set<string>();
  const ids = rows.map((r) => r.grant_id);
  const events = await db
    .selectFrom('events')
    .select(['event_type', 'subject_ref', 'envelope'])
    .where('event_type', 'in', [...CREATED_EVENTS, REVOKED_EVENT])
    .where('subject_ref', 'in', ids)
    .execute();
  for (const event of events) {
    if (event.event_type === REVOKED_EVENT) {
      revokedByEvent.add(event.subject_ref);
      continue;
    }
    try {
      const envelope = JSON.parse(event.envelope) as Partial<Creation>;
      if (typeof envelope.audit_ref !== 'string' || typeof envelope.data !== 'object' || envelope.data === null) {
        continue; // unreadable: check-events.ts names the event, and the grant is then unanchored
      }
      created.set(event.subject_ref, {
        event_type: event.event_type,
        audit_ref: envelope.audit_ref,
        principal_entity_id: envelope.principal_entity_id,
        data: envelope.data,
      });
    } catch {
      continue;
    }
  }
  return { created, revokedByEvent };
}
