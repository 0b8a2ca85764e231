/**
 * What chained-entity.ts, chained-card-token.ts and chained-merchant.ts share: a subject's stored events are believed
 * only when the audit entry each names (its `audit_ref`) commits to it, kind and SHA-256 record digest (no signature
 * check: the attacker has the database, not the key, and cannot write an entry the chain's verification accepts).
 * An entry is trusted by its TEXT (the bytes the leaf hash covers), never by its columns.
 */
import { createHash } from 'node:crypto';
import { parseAuditEntryText, type AuditEntryJson } from '@aar/core';
import type { Kysely } from 'kysely';
import { recordDigest } from '../../audit/audit-entry.ts';
import type { Database } from '../../store/index.ts';
import type { UnsignedEventEnvelope } from '../events/append-event.ts';

/** An envelope to check, and the column a refusal names when its entry does not commit to it. */
export interface EnvelopeCheck {
  envelope: UnsignedEventEnvelope;
  column: string;
  /** true for an envelope erasure rewrote (its entry committed to the original): only its kind is compared */
  erased?: boolean;
}

/** Throws `fail(column)` for the first envelope whose audit entry does not commit to it. One SELECT. */
export async function assertEnvelopesCommitted(
  db: Kysely<Database>,
  checks: readonly EnvelopeCheck[],
  fail: (column: string) => Error,
): Promise<void> {
  if (checks.length === 0) return;
  const entries = await db
    .selectFrom('audit_entries')
    .select('entry')
    .where(
      'audit_id',
      'in',
      checks.map((c) => String(c.envelope.audit_ref)),
    )
    .execute();
  const byId = new Map<string, ReturnType<typeof parseAuditEntryText>>();
  for (const e of entries) {
    const parsed = parseAuditEntryText(e.entry);
    if (parsed) byId.set(parsed.audit_id, parsed);
  }
  for (const { envelope, column, erased } of checks) {
    const entry = byId.get(String(envelope.audit_ref));
    if (!entry || entry.kind !== envelope.event_type) throw fail(column);
    if (!erased && entry.record_digest !== recordDigest(envelope)) throw fail(column);
  }
}

/** A stored envelope's text parsed, null for anything that is not an object. */
export function envelopeOf(text: string): UnsignedEventEnvelope | null {
  try {
    const value = JSON.parse(text) as UnsignedEventEnvelope;
    return typeof value === 'object' && value !== null ? value : null;
  } catch {
    return null;
  }
}

/** The digest of a stored text for a cache key (`-` for none): a changed event changes the key. */
export function digestOf(text: string | null): string {
  return text === null ? '-' : createHash('sha256').update(text, 'utf8').digest('base64url');
}

/** A personal subject's commitment in the chain (`ns:entity:...`, `ns:card_token:...`), as audit/subject-commitment.ts makes it. */
export function commitmentOf(salt: string, subject: string): string {
  const digest = createHash('sha256').update(Buffer.from(salt, 'base64url')).update(subject, 'utf8').digest();
  return `ns:commitment:${digest.toString('base64url')}`;
}

/**
 * The entries of `kinds` about a committed subject, by index (`audit_entries_subject`), as their text says (an entry
 * whose text names another subject or kind is left out), oldest first.
 */
export async function entriesAbout(
  db: Kysely<Database>,
  commitment: string,
  kinds: readonly string[],
): Promise<AuditEntryJson[]> {
  const rows = await db
    .selectFrom('audit_entries')
    .select('entry')
    .where('subject_ref', '=', commitment)
    .where('kind', 'in', [...kinds])
    .execute();
  const out: AuditEntryJson[] = [];
  for (const row of rows) {
    const entry = parseAuditEntryText(row.entry);
    if (entry && entry.subject_ref === commitment && kinds.includes(entry.kind)) out.push(entry);
  }
  return out.sort((a, b) => a.index - b.index);
}
