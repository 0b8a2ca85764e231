/**
 * The audit entries named by a page of records, in one SELECT over the unique `audit_id` index. Entries at or beyond
 * `size` (the tip read when verification started) are left out: their records committed after it, with them.
 */
import { parseAuditEntryText, type AuditEntryJson } from '@aar/core';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';

export interface AnchorEntry {
  index: number;
  text: string;
  /** undefined when the bytes are not an entry (the chain walk reports that one) */
  parsed: AuditEntryJson | undefined;
}

export async function entriesById(
  db: Kysely<Database>,
  auditIds: readonly string[],
  size: number,
): Promise<Map<string, AnchorEntry>> {
  const out = new Map<string, AnchorEntry>();
  const unique = [...new Set(auditIds)];
  for (let i = 0; i < unique.length; i += 5000) {
    const rows = await db
      .selectFrom('audit_entries')
      .select(['idx', 'audit_id', 'entry'])
      .where('audit_id', 'in', unique.slice(i, i + 5000))
      .execute();
    for (const row of rows) {
      if (Number(row.idx) >= size) continue;
      out.set(row.audit_id, { index: Number(row.idx), text: row.entry, parsed: parseAuditEntryText(row.entry) });
    }
  }
  return out;
}

/** Entries the caller saw named but not found below `size`: present at or beyond it (a concurrent append)? */
export async function existsBeyond(db: Kysely<Database>, auditId: string, size: number): Promise<boolean> {
  const row = await db
    .selectFrom('audit_entries')
    .select('idx')
    .where('audit_id', '=', auditId)
    .where('idx', '>=', size)
    .executeTakeFirst();
  return row !== undefined;
}
