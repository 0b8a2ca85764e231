/**
 * The chain's entries that change the state of a page of subjects (approvals answered, decisions' outcomes), by
 * subject, in index order, in one SELECT per page over the `audit_entries_subject` index. Only subjects that are
 * plain ids (approvals, decisions, grants), never personal ones (their entries hold a salted commitment). An entry
 * is believed by its text (what the leaf hash covers), not by its columns.
 */
import { parseAuditEntryText, type AuditEntryJson } from '@aar/core';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';

export interface StateEntries {
  /** entries below `size`, by subject, index order */
  below: Map<string, AuditEntryJson[]>;
  /** subjects with such an entry at or beyond `size` (appended during the run: the next run checks them) */
  beyond: Set<string>;
}

export async function stateEntriesOf(
  db: Kysely<Database>,
  subjects: readonly string[],
  kinds: readonly string[],
  size: number,
): Promise<StateEntries> {
  const below = new Map<string, AuditEntryJson[]>();
  const beyond = new Set<string>();
  const unique = [...new Set(subjects)];
  for (let i = 0; i < unique.length; i += 2000) {
    const rows = await db
      .selectFrom('audit_entries')
      .select(['idx', 'entry'])
      .where('subject_ref', 'in', unique.slice(i, i + 2000))
      .where('kind', 'in', [...kinds])
      .execute();
    for (const row of rows) {
      const entry = parseAuditEntryText(row.entry);
      if (!entry || !kinds.includes(entry.kind)) continue;
      if (Number(row.idx) >= size) {
        beyond.add(entry.subject_ref);
        continue;
      }
      const list = below.get(entry.subject_ref) ?? [];
      list.push(entry);
      below.set(entry.subject_ref, list);
    }
  }
  for (const list of below.values()) list.sort((a, b) => a.index - b.index);
  return { below, beyond };
}
