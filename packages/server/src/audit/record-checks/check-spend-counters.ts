/**
 * Every day's spend per grant against the decisions that make it: `spend_counters.reserved_minor` of (grant, day) is
 * the sum of the reservations (`reservation.amount.minor`) of that day's allowed purchases naming the grant
 * (`reservation.grant_ids`) whose outcome still counts (`reserved`, `executed`; `failed` and `refunded` released
 * it: services/outcomes/record-outcome.ts). Those columns are checked against the decision records and the chain's
 * outcome entries by check-decisions.ts, so a counter that agrees with them agrees with the chain. Attacker: a
 * counter lowered (or its row deleted) lets a grant spend past its daily limit.
 * Decisions are read a page at a time by `seq` (only those holding a reservation); the sums are kept per (grant, day):
 * memory O(grant-days), not O(decisions). Run by full runs only (an incremental run would read every decision
 * again). `currency` is the grant's, set when the row is created (docs/audit.md, "Outside the chain").
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';
import type { RecordFindings } from './record-findings.ts';

interface StoredReservation {
  amount?: { minor?: unknown };
  grant_ids?: unknown;
}

/** The kinds of the entries whose transactions move a counter: an allowed decision, an outcome report. */
const MOVES_SPEND = [
  'ns.purchase_authority.allowed',
  'ns.decision.requires_approval',
  'ns.purchase_authority.failed',
  'ns.purchase_authority.refunded',
  'ns.purchase_authority.executed',
];

export async function checkSpendCounters(
  db: Kysely<Database>,
  findings: RecordFindings,
  pageSize: number,
): Promise<void> {
  if (findings.scope.from !== 0) return;
  // Counters and decisions are read by separate statements while authorize may commit: every change of a counter is
  // in a transaction that appends an entry, so the (grant, day)s of entries appended since `since` are left out.
  const since = Number(
    (await db.selectFrom('audit_state').select('size').where('id', '=', 1).executeTakeFirst())?.size ?? 0,
  );
  const stored = await readCounters(db, pageSize);
  const expected = new Map<string, number>();
  let after = 0;
  for (;;) {
    const rows = await db
      .selectFrom('decisions')
      .select(['seq', 'reservation', 'spend_day'])
      .where('seq', '>', after)
      .where('reservation', 'is not', null)
      .where('outcome', 'in', ['reserved', 'executed'])
      .orderBy('seq')
      .limit(pageSize)
      .execute();
    if (rows.length === 0) break;
    after = Number(rows[rows.length - 1]!.seq);
    for (const row of rows) {
      const reservation = parseReservation(row.reservation);
      if (!reservation) continue; // the column restates the record: check-decisions.ts names one that does not
      for (const grantId of reservation.grantIds) {
        const key = `${grantId} ${row.spend_day}`;
        expected.set(key, (expected.get(key) ?? 0) + reservation.minor);
      }
    }
  }
  const moving = await keysMovedSince(db, since);
  for (const [key, minor] of stored) {
    if (moving.has(key)) continue;
    if (minor !== (expected.get(key) ?? 0)) {
      findings.fail({
        reason: 'record_mismatch',
        record: { table: 'spend_counters', id: key },
        detail: 'reserved_minor',
      });
      return;
    }
  }
  // a day's spend with no counter row: the row was deleted (authorize would count that day from zero again)
  for (const [key, minor] of expected) {
    if (minor === 0 || stored.has(key) || moving.has(key)) continue;
    findings.fail({ reason: 'record_missing', record: { table: 'spend_counters', id: key }, detail: 'reserved_minor' });
    return;
  }
}

async function readCounters(db: Kysely<Database>, pageSize: number): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  let cursor = { grant_id: '', day: '' };
  for (;;) {
    const counters = await db
      .selectFrom('spend_counters')
      .select(['grant_id', 'day', 'reserved_minor'])
      .where((eb) =>
        eb.or([
          eb('grant_id', '>', cursor.grant_id),
          eb.and([eb('grant_id', '=', cursor.grant_id), eb('day', '>', cursor.day)]),
        ]),
      )
      .orderBy('grant_id')
      .orderBy('day')
      .limit(pageSize)
      .execute();
    if (counters.length === 0) return out;
    const last = counters[counters.length - 1]!;
    cursor = { grant_id: last.grant_id, day: last.day };
    for (const c of counters) out.set(`${c.grant_id} ${c.day}`, Number(c.reserved_minor));
  }
}

/** The (grant, day)s of the decisions whose spend-moving entries are at `since` or later (committed during the run). */
async function keysMovedSince(db: Kysely<Database>, since: number): Promise<Set<string>> {
  const subjects = (
    await db
      .selectFrom('audit_entries')
      .select('subject_ref')
      .where('idx', '>=', since)
      .where('kind', 'in', MOVES_SPEND)
      .execute()
  ).map((r) => r.subject_ref);
  const out = new Set<string>();
  for (let i = 0; i < subjects.length; i += 2000) {
    const rows = await db
      .selectFrom('decisions')
      .select(['reservation', 'spend_day'])
      .where('policy_decision_id', 'in', subjects.slice(i, i + 2000))
      .execute();
    for (const row of rows) {
      for (const grantId of parseReservation(row.reservation)?.grantIds ?? []) out.add(`${grantId} ${row.spend_day}`);
    }
  }
  return out;
}

function parseReservation(text: string | null): { minor: number; grantIds: string[] } | undefined {
  if (text === null) return undefined;
  try {
    const value = JSON.parse(text) as StoredReservation;
    const minor = Number(value.amount?.minor);
    if (!Number.isSafeInteger(minor) || !Array.isArray(value.grant_ids)) return undefined;
    return { minor, grantIds: value.grant_ids.map(String) };
  } catch {
    return undefined;
  }
}
