/**
 * Agent metadata attestations (migration 0029, services/agent-metadata) against their chained events and their own
 * signature. Attacker assumption: SQL write access without the service key or the agent's key, the guards dropped:
 * edit a row's fields, document, digest or key, insert a row, or delete one.
 * Each row (a page at a time, every run):
 * - its `ns.entity.metadata_attested` event (subject the agent, `data.attestation_id` the row's; check-events.ts holds
 *   envelopes to their entries) names the row's `audit_id` as `audit_ref`, its `digest` and `issued_at`, and its
 *   `occurred_at` is `created_at` (no event: `record_unanchored`);
 * - `document` is RFC 8785 text whose digest is `digest` (`record_digest_mismatch`), whose members are the row's
 *   `agent_entity_id`, `model`, `software_version`, `operator`, `issued_at` (`record_mismatch`), and whose signature
 *   verifies with `public_key_jwk` (`record_signature_invalid`).
 * Every such event has its row (a deleted attestation is found: `record_missing`).
 */
import { agentMetadataDigest, canonicalJson, verifyAgentMetadataAttestation, type Ed25519PublicJwk } from '@aar/core';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';
import type { AttestationRow } from '../../services/agent-metadata/attestation-row.ts';
import { METADATA_ATTESTED } from '../../services/agent-metadata/attest-metadata.ts';
import { entriesById, existsBeyond } from './entries-by-id.ts';
import type { RecordFailureReason, RecordFindings } from './record-findings.ts';

interface Envelope {
  audit_ref?: unknown;
  occurred_at?: unknown;
  subject_ref?: unknown;
  data?: Record<string, unknown>;
}

type Problem = { reason: RecordFailureReason; detail: string } | undefined;

export async function checkAgentMetadata(
  db: Kysely<Database>,
  findings: RecordFindings,
  pageSize: number,
): Promise<void> {
  const events = await attestedEvents(db);
  await checkRows(db, findings, pageSize, events);
  await checkEventsHaveRows(db, findings, events);
}

/** Every `ns.entity.metadata_attested` envelope by the attestation it names (few: one per attestation). */
async function attestedEvents(db: Kysely<Database>): Promise<Map<string, Envelope>> {
  const out = new Map<string, Envelope>();
  const rows = await db.selectFrom('events').select(['envelope']).where('event_type', '=', METADATA_ATTESTED).execute();
  for (const row of rows) {
    try {
      const envelope = JSON.parse(row.envelope) as Envelope;
      const id = envelope.data?.attestation_id;
      if (typeof id === 'string') out.set(id, envelope);
    } catch {
      // unreadable: check-events.ts names it; its row is then unanchored below
    }
  }
  return out;
}

async function checkRows(
  db: Kysely<Database>,
  findings: RecordFindings,
  pageSize: number,
  events: Map<string, Envelope>,
): Promise<void> {
  let after = '';
  for (;;) {
    const rows = await db
      .selectFrom('agent_metadata_attestations')
      .selectAll()
      .where('attestation_id', '>', after)
      .orderBy('attestation_id')
      .limit(pageSize)
      .execute();
    if (rows.length === 0) return;
    after = rows[rows.length - 1]!.attestation_id;
    const entries = await entriesById(
      db,
      rows.map((r) => r.audit_id),
      findings.size,
    );
    for (const row of rows) {
      const record = { table: 'agent_metadata_attestations', id: row.attestation_id };
      const entry = entries.get(row.audit_id);
      const event = events.get(row.attestation_id);
      if (!entry || !event) {
        if (event && (await existsBeyond(db, row.audit_id, findings.size))) continue;
        findings.fail({ reason: 'record_unanchored', record, detail: 'audit_id' });
        continue;
      }
      const problem = eventProblem(row, event) ?? (await documentProblem(row));
      if (problem) findings.fail({ ...problem, index: entry.index, record });
    }
  }
}

function eventProblem(row: AttestationRow, event: Envelope): Problem {
  if (event.audit_ref !== row.audit_id) return { reason: 'record_mismatch', detail: 'audit_id' };
  if (event.subject_ref !== row.agent_entity_id) return { reason: 'record_mismatch', detail: 'agent_entity_id' };
  if (event.occurred_at !== row.created_at) return { reason: 'record_mismatch', detail: 'created_at' };
  if (event.data?.digest !== row.digest) return { reason: 'record_digest_mismatch', detail: 'digest' };
  if (event.data?.issued_at !== new Date(Date.parse(row.issued_at)).toISOString()) {
    return { reason: 'record_mismatch', detail: 'issued_at' };
  }
  return undefined;
}

async function documentProblem(row: AttestationRow): Promise<Problem> {
  let doc: Record<string, unknown>;
  let key: Ed25519PublicJwk;
  try {
    doc = JSON.parse(row.document) as Record<string, unknown>;
    if (canonicalJson(doc) !== row.document) return { reason: 'record_mismatch', detail: 'document' };
    if (agentMetadataDigest(doc) !== row.digest) return { reason: 'record_digest_mismatch', detail: 'document' };
  } catch {
    return { reason: 'record_mismatch', detail: 'document' };
  }
  for (const column of ['agent_entity_id', 'model', 'software_version', 'operator', 'issued_at'] as const) {
    if (doc[column] !== row[column]) return { reason: 'record_mismatch', detail: column };
  }
  try {
    key = JSON.parse(row.public_key_jwk) as Ed25519PublicJwk;
  } catch {
    return { reason: 'record_signature_invalid', detail: 'public_key_jwk' };
  }
  const verified = await verifyAgentMetadataAttestation(doc, row.agent_entity_id, key);
  return verified.valid ? undefined : { reason: 'record_signature_invalid', detail: 'public_key_jwk' };
}

/** Every attested event has its row (a deleted attestation is found). */
async function checkEventsHaveRows(
  db: Kysely<Database>,
  findings: RecordFindings,
  events: Map<string, Envelope>,
): Promise<void> {
  if (events.size === 0) return;
  const present = new Set(
    (await db.selectFrom('agent_metadata_attestations').select('attestation_id').execute()).map(
      (r) => r.attestation_id,
    ),
  );
  for (const [id, event] of events) {
    if (present.has(id)) continue;
    const auditRef = String(event.audit_ref ?? '');
    const entry = (await entriesById(db, [auditRef], findings.size)).get(auditRef);
    if (!entry) continue; // beyond this run's tip, or not an entry: check-events.ts's finding
    findings.fail({
      reason: 'record_missing',
      index: entry.index,
      record: { table: 'agent_metadata_attestations', id },
      detail: 'attestation_id',
    });
  }
}
