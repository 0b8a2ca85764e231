/**
 * Mandates, allowances and their trusted issuers (migration 0023) against what vouches for them. Attacker
 * assumption: SQL write access without the service key: swap an issuer's keys (then any mandate "verifies"), widen
 * or rebind a mandate, move it to another grant or agent, or unbind a grant from its mandate.
 * - `mandate_issuers`: each row is the record its audit entry (kind `mandate_issuer`, named by `audit_id`) commits
 *   to, column for column (register-issuer.ts issuerRecord).
 * - `mandates`: each row against its `ns.mandate.accepted` / `ns.allowance.accepted` event (whose envelope
 *   check-events.ts holds to its entry): id, format, digest, issuer, principal, agent, parent, grant, single use,
 *   checkout session, expiry, creation instant, and the SHA-256 of its constraints; `digest` is the SHA-256 of
 *   `document`; `root_grant_id` is its grant's root; a set `used_by` names an allowed decision of its grant.
 *   Every accepted event has its row (a deleted mandate is found).
 * - `grants.mandate_id`: the grant of each mandate names it, and so does its signed link (`mandate`); a grant that
 *   names a mandate is that mandate's grant.
 * Outside (audit/record-checks/outside-the-chain.ts): `mandate_nonces` (replay protection), a mandate's
 * `vaulted_token_id` and `idempotency_key`. Every run checks every row (few), a page at a time.
 */
import { canonicalJson, mandateDigest } from '@aar/core';
import type { Kysely, Selectable } from 'kysely';
import type { Database, MandatesTable } from '../../store/index.ts';
import { recordDigest } from '../audit-entry.ts';
import { issuerRecord, MANDATE_ISSUER_AUDIT_KIND } from '../../services/mandates/register-issuer.ts';
import { entriesById, existsBeyond } from './entries-by-id.ts';
import { failMissingRow } from './missing-row.ts';
import type { RecordFailureReason, RecordFindings } from './record-findings.ts';

type Problem = { reason: RecordFailureReason; detail: string; table?: string; id?: string } | undefined;
type MandateRow = Selectable<MandatesTable>;

const ACCEPTED = { ap2: 'ns.mandate.accepted', acp: 'ns.allowance.accepted' } as const;

interface Envelope {
  audit_ref?: unknown;
  occurred_at?: unknown;
  principal_entity_id?: unknown;
  data?: Record<string, unknown>;
}

export async function checkMandates(db: Kysely<Database>, findings: RecordFindings, pageSize: number): Promise<void> {
  await checkIssuers(db, findings, pageSize);
  await checkMandateRows(db, findings, pageSize);
  await checkAcceptedEvents(db, findings, pageSize);
  await checkBoundGrants(db, findings, pageSize);
}

async function checkIssuers(db: Kysely<Database>, findings: RecordFindings, pageSize: number): Promise<void> {
  let after = '';
  for (;;) {
    const rows = await db
      .selectFrom('mandate_issuers')
      .selectAll()
      .where('issuer', '>', after)
      .orderBy('issuer')
      .limit(pageSize)
      .execute();
    if (rows.length === 0) return;
    after = rows[rows.length - 1]!.issuer;
    const entries = await entriesById(
      db,
      rows.map((r) => r.audit_id),
      findings.size,
    );
    for (const row of rows) {
      const record = { table: 'mandate_issuers', id: row.issuer };
      const entry = entries.get(row.audit_id);
      if (!entry) {
        if (!(await existsBeyond(db, row.audit_id, findings.size))) {
          findings.fail({ reason: 'record_unanchored', record, detail: 'audit_id' });
        }
        continue;
      }
      const parsed = entry.parsed;
      let problem: Problem;
      if (!parsed || parsed.kind !== MANDATE_ISSUER_AUDIT_KIND)
        problem = { reason: 'record_mismatch', detail: 'audit_id' };
      else if (parsed.subject_ref !== row.issuer) problem = { reason: 'record_mismatch', detail: 'issuer' };
      else if (parsed.record_digest !== recordDigest(issuerRecord(row))) {
        problem = { reason: 'record_digest_mismatch', detail: 'jwks' };
      }
      if (problem) findings.fail({ ...problem, index: entry.index, record });
    }
  }
}

async function checkMandateRows(db: Kysely<Database>, findings: RecordFindings, pageSize: number): Promise<void> {
  let after = '';
  for (;;) {
    const rows = await db
      .selectFrom('mandates')
      .selectAll()
      .where('mandate_id', '>', after)
      .orderBy('mandate_id')
      .limit(pageSize)
      .execute();
    if (rows.length === 0) return;
    after = rows[rows.length - 1]!.mandate_id;
    const events = await db
      .selectFrom('events')
      .select(['subject_ref', 'event_type', 'envelope'])
      .where('event_type', 'in', Object.values(ACCEPTED))
      .where(
        'subject_ref',
        'in',
        rows.map((r) => r.mandate_id),
      )
      .execute();
    const grants = await db
      .selectFrom('grants')
      .select(['grant_id', 'root_grant_id', 'mandate_id', 'document'])
      .where(
        'grant_id',
        'in',
        rows.map((r) => r.grant_id),
      )
      .execute();
    const envelopes = new Map<string, Envelope>();
    for (const event of events) {
      try {
        envelopes.set(`${event.event_type} ${event.subject_ref}`, JSON.parse(event.envelope) as Envelope);
      } catch {
        // unreadable: check-events.ts names it; the mandate is then unanchored below
      }
    }
    const auditIds = [...envelopes.values()].map((e) => String(e.audit_ref));
    const entries = await entriesById(db, auditIds, findings.size);
    for (const row of rows) {
      const record = { table: 'mandates', id: row.mandate_id };
      const format = row.format === 'acp' ? 'acp' : 'ap2';
      const envelope = envelopes.get(`${ACCEPTED[format]} ${row.mandate_id}`);
      const auditRef = typeof envelope?.audit_ref === 'string' ? envelope.audit_ref : '';
      const entry = entries.get(auditRef);
      if (!envelope || !entry) {
        if (envelope && (await existsBeyond(db, auditRef, findings.size))) continue;
        findings.fail({ reason: 'record_unanchored', record, detail: 'mandate_id' });
        continue;
      }
      const grant = grants.find((g) => g.grant_id === row.grant_id);
      const problem = rowProblem(row, envelope) ?? bindingProblem(row, grant) ?? (await usedByProblem(db, row));
      if (problem) {
        const { table, id, ...found } = problem;
        findings.fail({ ...found, index: entry.index, record: table && id ? { table, id } : record });
      }
    }
  }
}

/** The row against its accepted event's envelope. */
function rowProblem(row: MandateRow, envelope: Envelope): Problem {
  const data = envelope.data ?? {};
  const acp = row.format === 'acp';
  const expected: Array<[string, unknown, unknown]> = [
    ['mandate_id', row.mandate_id, acp ? data.allowance_id : data.mandate_id],
    ['format', row.format, data.format],
    ['digest', row.digest, data.digest],
    ['issuer', row.issuer, acp ? null : data.issuer],
    ['principal_entity_id', row.principal_entity_id, envelope.principal_entity_id],
    ['actor_entity_id', row.actor_entity_id, data.grantee_entity_id],
    ['parent_grant_id', row.parent_grant_id, data.parent_grant_id],
    ['grant_id', row.grant_id, data.grant_id],
    ['single_use', Number(row.single_use), acp ? 1 : data.single_use === true ? 1 : 0],
    ['checkout_session_id', row.checkout_session_id, data.checkout_session_id ?? null],
    ['expires_at', row.expires_at, data.expires_at ?? null],
    ['created_at', row.created_at, envelope.occurred_at],
  ];
  for (const [column, actual, committed] of expected) {
    if (actual !== committed) return { reason: 'record_mismatch', detail: column };
  }
  if (mandateDigest(row.constraints) !== data.constraints_digest) {
    return { reason: 'record_digest_mismatch', detail: 'constraints' };
  }
  if (mandateDigest(row.document) !== row.digest) return { reason: 'record_digest_mismatch', detail: 'document' };
  return undefined;
}

type Located = Problem;

/** The grant made from the mandate: its root, its `mandate_id` and its signed link's `mandate` member. */
function bindingProblem(
  row: MandateRow,
  grant: { grant_id: string; root_grant_id: string; mandate_id: string | null; document: string } | undefined,
): Located {
  if (!grant) return { reason: 'record_mismatch', detail: 'grant_id' };
  if (grant.root_grant_id !== row.root_grant_id) return { reason: 'record_mismatch', detail: 'root_grant_id' };
  if (grant.mandate_id !== row.mandate_id) {
    return { reason: 'record_mismatch', detail: 'mandate_id', table: 'grants', id: grant.grant_id };
  }
  let bound: unknown;
  try {
    bound = (JSON.parse(grant.document) as { mandate?: unknown }).mandate;
  } catch {
    bound = undefined;
  }
  // the link's signature and facts are check-grants.ts's; here, that it binds this very mandate
  if (
    canonicalJson(bound ?? null) !==
    canonicalJson({ mandate_id: row.mandate_id, format: row.format, digest: row.digest })
  ) {
    return { reason: 'record_mismatch', detail: 'mandate', table: 'grants', id: grant.grant_id };
  }
  return undefined;
}

/** A spent single-use mandate names an allowed decision of its own grant. */
async function usedByProblem(db: Kysely<Database>, row: MandateRow): Promise<Located> {
  if (row.used_by === null) return undefined;
  const decision = await db
    .selectFrom('decisions')
    .select(['decision', 'leaf_grant_id'])
    .where('policy_decision_id', '=', row.used_by)
    .executeTakeFirst();
  if (decision?.decision !== 'allow_with_constraints' || decision.leaf_grant_id !== row.grant_id) {
    return { reason: 'record_mismatch', detail: 'used_by' };
  }
  return undefined;
}

/** Every accepted event has its mandate row (a deleted row is found). */
async function checkAcceptedEvents(db: Kysely<Database>, findings: RecordFindings, pageSize: number): Promise<void> {
  let after = 0;
  for (;;) {
    const events = await db
      .selectFrom('events')
      .select(['seq', 'subject_ref', 'envelope'])
      .where('event_type', 'in', Object.values(ACCEPTED))
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(pageSize)
      .execute();
    if (events.length === 0) return;
    after = Number(events[events.length - 1]!.seq);
    const present = new Set(
      (
        await db
          .selectFrom('mandates')
          .select('mandate_id')
          .where(
            'mandate_id',
            'in',
            events.map((e) => e.subject_ref),
          )
          .execute()
      ).map((r) => r.mandate_id),
    );
    for (const event of events) {
      if (present.has(event.subject_ref)) continue;
      await failMissingRow(db, findings, event.envelope, { table: 'mandates', id: event.subject_ref }, 'mandate_id');
    }
  }
}

/** A grant naming a mandate is the grant of that mandate (grants_mandate: the few such grants). */
async function checkBoundGrants(db: Kysely<Database>, findings: RecordFindings, pageSize: number): Promise<void> {
  let after = '';
  for (;;) {
    const grants = await db
      .selectFrom('grants')
      .leftJoin('mandates', 'mandates.mandate_id', 'grants.mandate_id')
      .select(['grants.grant_id', 'grants.mandate_id', 'mandates.grant_id as bound_grant'])
      .where('grants.mandate_id', 'is not', null)
      .where('grants.mandate_id', '>', after)
      .orderBy('grants.mandate_id')
      .limit(pageSize)
      .execute();
    if (grants.length === 0) return;
    after = grants[grants.length - 1]!.mandate_id!;
    for (const g of grants) {
      if (g.bound_grant !== g.grant_id) {
        findings.fail({ reason: 'record_mismatch', record: { table: 'grants', id: g.grant_id }, detail: 'mandate_id' });
      }
    }
  }
}
