/**
 * Policy content (migration 0017) against what commits to it. Every change of these rows is an event whose envelope
 * check-events.ts checks against its audit entry, and whose data restate the row:
 * - a rule pack or dictionary version is what its LATEST `ns.<kind>.drafted` / `.published` / `.retired` event says:
 *   its state, the SHA-256 of its stored bytes (`document_digest`, of the drafted or published event), its `digest`
 *   and origin; a published or retired document must verify with the service's keys and restate its row (id,
 *   version, domain). Shipped content is seeded without an event (data of the release, seed-policy-content.ts): a
 *   `shipped` row is anchored by the service's signature alone until an act (a retirement) adds an event;
 * - an activation is what its `ns.rule_activation.created` event says (chained-activation.ts, the same rule authorize
 *   applies), `deactivated` exactly when it has an `ns.rule_activation.deactivated` event, and every created event has
 *   its row (a deleted activation, which authorize cannot see, is found here).
 * `seq`, `created_at` and `updated_at` are outside the chain (outside-the-chain.ts). Every run checks every row: these
 * tables are small (no `seq` mark), a page at a time.
 */
import type { Jwks } from '@aar/core';
import type { Kysely } from 'kysely';
import {
  ACTIVATION_CREATED,
  ACTIVATION_DEACTIVATED,
  activationColumnProblem,
} from '../../services/policy/chained-activation.ts';
import { parseDocument, storedDocumentProblem } from '../../services/policy/document-integrity.ts';
import { policyId, refOf } from '../../services/policy/policy-ids.ts';
import { TABLE_OF, type DocumentKind } from '../../services/policy/stored-documents.ts';
import type { Database } from '../../store/index.ts';
import { digestOfCanonical } from '../audit-entry.ts';
import { entriesById, existsBeyond } from './entries-by-id.ts';
import type { RecordFailureReason, RecordFindings } from './record-findings.ts';

interface StoredEvent {
  seq: number;
  event_type: string;
  audit_ref: string;
  data: Record<string, unknown>;
}

type Problem = { reason: RecordFailureReason; detail: string };

export async function checkPolicyContent(
  db: Kysely<Database>,
  findings: RecordFindings,
  jwks: Jwks,
  pageSize: number,
): Promise<void> {
  for (const kind of ['rule_pack', 'dictionary'] as const) await checkDocuments(db, findings, jwks, pageSize, kind);
  await checkActivations(db, findings, pageSize);
}

async function checkDocuments(
  db: Kysely<Database>,
  findings: RecordFindings,
  jwks: Jwks,
  pageSize: number,
  kind: DocumentKind,
): Promise<void> {
  const table = TABLE_OF[kind];
  let after = 0;
  for (;;) {
    const rows = await db
      .selectFrom(table as 'rule_packs')
      .selectAll()
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(pageSize)
      .execute();
    if (rows.length === 0) return;
    after = Number(rows[rows.length - 1]!.seq);
    const events = await eventsOf(
      db,
      rows.map((r) => refOf(kind, r.name, r.version)),
      [`ns.${kind}.drafted`, `ns.${kind}.published`, `ns.${kind}.retired`],
    );
    const latest = [...events.values()].flatMap((list) => list.slice(-1));
    const entries = await entriesById(
      db,
      latest.map((e) => e.audit_ref),
      findings.size,
    );
    for (const row of rows) {
      const ref = refOf(kind, row.name, row.version);
      const record = { table, id: ref };
      const list = events.get(ref) ?? [];
      const last = list[list.length - 1];
      if (!last && row.origin === 'shipped') {
        const problem = await documentProblem(kind, row, [], jwks);
        if (problem) findings.fail({ ...problem, record });
        continue;
      }
      const entry = last && entries.get(last.audit_ref);
      if (!last || !entry) {
        if (!last || !(await existsBeyond(db, last.audit_ref, findings.size))) {
          findings.fail({ reason: 'record_unanchored', record, detail: 'name' });
        }
        continue;
      }
      const problem = await documentProblem(kind, row, list, jwks);
      if (problem) findings.fail({ ...problem, index: entry.index, record });
    }
  }
}

async function documentProblem(
  kind: DocumentKind,
  row: Record<string, unknown> & {
    name: string;
    version: string;
    state: string;
    document: string;
    digest: string | null;
    origin: string;
  },
  events: readonly StoredEvent[],
  jwks: Jwks,
): Promise<Problem | undefined> {
  const last = events[events.length - 1];
  const state = last ? last.event_type.slice(last.event_type.lastIndexOf('.') + 1) : 'published';
  const expectedState = state === 'drafted' ? 'draft' : state;
  if (row.state !== expectedState) return { reason: 'record_mismatch', detail: 'state' };
  // the bytes: of the draft (its drafted event) or of the published document (its published event); shipped content
  // has neither (seeded without an event): its signature below is what vouches for it
  const written = [...events].reverse().find((e) => !e.event_type.endsWith('.retired'));
  if (written) {
    if (written.data.document_digest !== digestOfCanonical(row.document)) {
      return { reason: 'record_digest_mismatch', detail: 'document' };
    }
    if (row.origin !== written.data.origin) return { reason: 'record_mismatch', detail: 'origin' };
  } else if (row.origin !== 'shipped' || row.state === 'draft') {
    return { reason: 'record_unanchored', detail: 'origin' };
  }
  const doc = parseDocument(row.document);
  if (!doc) return { reason: 'record_digest_mismatch', detail: 'document' };
  const idColumn = kind === 'rule_pack' ? 'pack_id' : 'dictionary_id';
  if (row[idColumn] !== policyId(kind, row.name) || doc[idColumn] !== row[idColumn]) {
    return { reason: 'record_mismatch', detail: row[idColumn] !== policyId(kind, row.name) ? idColumn : 'name' };
  }
  if (doc.version !== row.version) return { reason: 'record_mismatch', detail: 'version' };
  if (kind === 'rule_pack' && (row.domain !== doc.domain || (written && row.domain !== written.data.domain))) {
    return { reason: 'record_mismatch', detail: 'domain' };
  }
  if (row.state === 'draft') return row.digest === null ? undefined : { reason: 'record_mismatch', detail: 'digest' };
  if (last && row.digest !== last.data.digest) return { reason: 'record_mismatch', detail: 'digest' };
  const stored = await storedDocumentProblem(kind, row, jwks);
  if (stored === 'document') return { reason: 'record_signature_invalid', detail: 'document' };
  if (stored) return { reason: 'record_mismatch', detail: stored };
  return undefined;
}

async function checkActivations(db: Kysely<Database>, findings: RecordFindings, pageSize: number): Promise<void> {
  let after = 0;
  const seen = new Set<string>();
  for (;;) {
    const rows = await db
      .selectFrom('rule_activations')
      .selectAll()
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(pageSize)
      .execute();
    if (rows.length === 0) break;
    after = Number(rows[rows.length - 1]!.seq);
    const events = await eventsOf(
      db,
      rows.map((r) => r.activation_id),
      [ACTIVATION_CREATED, ACTIVATION_DEACTIVATED],
    );
    const created = [...events.values()].flatMap((list) => list.filter((e) => e.event_type === ACTIVATION_CREATED));
    const entries = await entriesById(
      db,
      created.map((e) => e.audit_ref),
      findings.size,
    );
    for (const row of rows) {
      seen.add(row.activation_id);
      const record = { table: 'rule_activations', id: row.activation_id };
      const list = events.get(row.activation_id) ?? [];
      const creation = list.find((e) => e.event_type === ACTIVATION_CREATED);
      const entry = creation && entries.get(creation.audit_ref);
      if (!creation || !entry) {
        if (!creation || !(await existsBeyond(db, creation.audit_ref, findings.size))) {
          findings.fail({ reason: 'record_unanchored', record, detail: 'activation_id' });
        }
        continue;
      }
      const column = activationColumnProblem(row, creation.data);
      const deactivated = list.some((e) => e.event_type === ACTIVATION_DEACTIVATED);
      if (column) findings.fail({ reason: 'record_mismatch', index: entry.index, record, detail: column });
      else if ((row.state === 'deactivated') !== deactivated) {
        findings.fail({ reason: 'record_mismatch', index: entry.index, record, detail: 'state' });
      }
    }
  }
  // every activation the chain created has its row (a deleted row loosens no check authorize can make)
  let afterEvent = 0;
  for (;;) {
    const created = await db
      .selectFrom('events')
      .select(['seq', 'subject_ref'])
      .where('event_type', '=', ACTIVATION_CREATED)
      .where('seq', '>', afterEvent)
      .orderBy('seq')
      .limit(pageSize)
      .execute();
    if (created.length === 0) return;
    afterEvent = Number(created[created.length - 1]!.seq);
    const missing = created.filter((e) => !seen.has(e.subject_ref));
    if (missing.length === 0) continue;
    const present = new Set(
      (
        await db
          .selectFrom('rule_activations')
          .select('activation_id')
          .where(
            'activation_id',
            'in',
            missing.map((e) => e.subject_ref),
          )
          .execute()
      ).map((r) => r.activation_id),
    );
    for (const e of missing) {
      if (!present.has(e.subject_ref)) {
        findings.fail({
          reason: 'record_missing',
          record: { table: 'rule_activations', id: e.subject_ref },
          detail: 'activation_id',
        });
      }
    }
  }
}

/** The events of `types` about each subject, oldest first (envelopes check-events.ts checks against their entries). */
async function eventsOf(
  db: Kysely<Database>,
  subjects: readonly string[],
  types: readonly string[],
): Promise<Map<string, StoredEvent[]>> {
  const out = new Map<string, StoredEvent[]>();
  if (subjects.length === 0) return out;
  const rows = await db
    .selectFrom('events')
    .select(['seq', 'subject_ref', 'event_type', 'envelope'])
    .where('subject_ref', 'in', [...new Set(subjects)])
    .where('event_type', 'in', [...types])
    .orderBy('seq')
    .execute();
  for (const row of rows) {
    try {
      const envelope = JSON.parse(row.envelope) as { audit_ref?: unknown; data?: unknown };
      if (typeof envelope.audit_ref !== 'string' || typeof envelope.data !== 'object' || envelope.data === null)
        continue;
      const list = out.get(row.subject_ref) ?? [];
      list.push({
        seq: Number(row.seq),
        event_type: row.event_type,
        audit_ref: envelope.audit_ref,
        data: envelope.data as Record<string, unknown>,
      });
      out.set(row.subject_ref, list);
    } catch {
      continue; // an unreadable envelope is check-events.ts's finding; the row then counts as unanchored
    }
  }
  return out;
}
