/**
 * Reading the log's leaves (`GET /v1/audit/entries/{index}`) and appending a record from outside the service
 * (`POST /v1/audit/append`, the audit-chain service's `POST /append`).
 * An outside append commits to its record by digest only (the caller keeps the record): personal data never enters
 * the write-once chain through it. Its kind may not start with `ns.`, which names the service's own entries, so no
 * caller can pass an entry off as a decision or a state change of the service.
 */
import { AarError, fieldError } from '@aar/core';
import type { Kysely } from 'kysely';
import type { AppContext } from '../app-context.ts';
import type { Database } from '../store/index.ts';
import { auditOf } from '../store/write-queue.ts';
import { subjectRefForAudit } from './subject-commitment.ts';

export interface AuditEntryView {
  index: number;
  audit_id: string;
  /** SHA-256(0x00 ‖ entry bytes), standard base64 */
  leaf_hash: string;
  /** the exact leaf bytes: RFC 8785 JSON of the `ns.audit_entry.v1` */
  entry: string;
}

export interface ExternalAppendInput {
  kind: string;
  subject_ref: string;
  /** any JSON value; only its digest enters the chain */
  record: unknown;
}

export const EXTERNAL_KIND_PATTERN = /^[a-z][a-z0-9_.:-]{0,127}$/;

export async function readAuditEntry(db: Kysely<Database>, index: number): Promise<AuditEntryView> {
  const row = await db
    .selectFrom('audit_entries')
    .select(['idx', 'audit_id', 'leaf_hash', 'entry'])
    .where('idx', '=', index)
    .executeTakeFirst();
  if (!row) throw new AarError('not_found', `the audit log has no entry \`${index}\``);
  return { index: Number(row.idx), audit_id: row.audit_id, leaf_hash: row.leaf_hash, entry: row.entry };
}

/** The entry an `audit_ref` names (`ns:audit:<uuid>`); `audit_id` is unique, so this is one index lookup. */
export async function readAuditEntryById(db: Kysely<Database>, auditId: string): Promise<AuditEntryView> {
  const row = await db
    .selectFrom('audit_entries')
    .select(['idx', 'audit_id', 'leaf_hash', 'entry'])
    .where('audit_id', '=', auditId)
    .executeTakeFirst();
  if (!row) throw new AarError('not_found', `the audit log has no entry \`${auditId}\``);
  return { index: Number(row.idx), audit_id: row.audit_id, leaf_hash: row.leaf_hash, entry: row.entry };
}

export async function appendExternalEntry(ctx: AppContext, input: ExternalAppendInput): Promise<AuditEntryView> {
  if (!EXTERNAL_KIND_PATTERN.test(input.kind)) {
    throw fieldError('invalid_request', '/kind', 'must match `[a-z][a-z0-9_.:-]{0,127}`');
  }
  if (input.kind.startsWith('ns.')) {
    throw fieldError('invalid_request', '/kind', 'the `ns.` prefix is reserved for the service own entries');
  }
  if (input.record === undefined) throw fieldError('invalid_request', '/record', 'is required');
  return ctx.writer.run(async (trx) => {
    const occurredAt = ctx.clock.now().toISOString();
    const appender = auditOf(trx);
    const appended = await appender.append({
      kind: input.kind,
      subject_ref: await subjectRefForAudit(trx, input.subject_ref, occurredAt),
      record: input.record,
      occurred_at: occurredAt,
    });
    // written (and so given its index) by settling: the answer reads the entry back as stored
    await appender.settle();
    return readAuditEntry(trx, appended.index);
  });
}
