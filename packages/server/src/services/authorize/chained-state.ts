/**
 * States that change a decision (an approval's answer, a decision's outcome, a risk state, a grant's revocation)
 * are honoured only as far as the audit chain backs them. Attacker assumption: someone has the database but not the
 * service's signing key, and edits a state row with the write-once guards and triggers out of the way (so the facts
 * version of migration 0009 does not move either). The chain's entries cannot be edited without `GET
 * /v1/audit/verify` and the start-up tip check noticing, so a state is trusted only when an entry commits to it.
 *
 * Entries are read by their `subject_ref` column (indexed), and trusted by their TEXT (the bytes the leaf hash
 * covers): an entry whose columns were edited to point elsewhere is not believed.
 *
 * A row that does not agree with the chain is refused with 503 `audit_unavailable` (fail closed: nothing is
 * committed, the same answer as a chain that cannot be written), naming the table, the row and the column.
 */
import { AarError, parseAuditEntryText, type AuditEntryJson } from '@aar/core';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../store/index.ts';

/** What a refusal names: the state row and the column the chain does not back. */
export function integrityFailure(table: string, id: string, column: string): AarError {
  return new AarError(
    'audit_unavailable',
    `the stored \`${table}.${column}\` of \`${id}\` is not backed by the audit chain: refused (fail closed)`,
    { extra: { integrity: { table, id, column } } },
  );
}

/**
 * The entries of the chain about `subject` (a plain id: approvals, decisions, grants) of one of `kinds`, by index,
 * as their text says (entries whose text names another subject or kind are left out).
 */
export async function chainedEntriesOf(
  db: Kysely<Database> | Transaction<Database>,
  subject: string,
  kinds: readonly string[],
): Promise<AuditEntryJson[]> {
  const rows = await db
    .selectFrom('audit_entries')
    .select(['entry'])
    .where('subject_ref', '=', subject)
    .where('kind', 'in', [...kinds])
    .execute();
  const out: AuditEntryJson[] = [];
  for (const row of rows) {
    const entry = parseAuditEntryText(row.entry);
    if (entry && entry.subject_ref === subject && kinds.includes(entry.kind)) out.push(entry);
  }
  return out.sort((a, b) => a.index - b.index);
}

/**
 * The instance's memory of states it has checked against the chain (or written itself), keyed by the state's
 * content: a row edited afterwards has another key and is checked afresh. Bounded; past the bound it starts over.
 * Only facts that can never be undone by the service are kept here (an entry committing to a given envelope, a
 * decision record's digest); states that the service itself moves on (approved -> consumed) are rechecked where
 * that matters (chained-approval.ts).
 */
export class ChainedStateCache {
  static readonly LIMIT = 50_000;
  readonly #verified = new Set<string>();

  has(key: string): boolean {
    return this.#verified.has(key);
  }

  add(key: string): void {
    if (this.#verified.size >= ChainedStateCache.LIMIT) this.#verified.clear();
    this.#verified.add(key);
  }
}

const caches = new WeakMap<object, ChainedStateCache>();

/** The cache of one service instance (one AppContext). */
export function chainedStateCacheOf(ctx: object): ChainedStateCache {
  let cache = caches.get(ctx);
  if (!cache) {
    cache = new ChainedStateCache();
    caches.set(ctx, cache);
  }
  return cache;
}
