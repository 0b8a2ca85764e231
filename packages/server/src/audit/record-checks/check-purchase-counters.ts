/**
 * Every bucket of the purchase counters against the decisions that make it (migration 0019,
 * services/authorize/counter-buckets.ts): `purchase_counter_buckets` of (subject, span, start, currency) holds the
 * number and the summed `amount_minor` of the live purchases (allowed `execute`, outcome not `failed` or `refunded`)
 * of that principal (`principal_entity_id`) or agent (`actor_entity_id`) whose `now` falls in the bucket. Those
 * decision columns are checked against the decision records and the chain's outcome entries by check-decisions.ts,
 * so a bucket that agrees with them agrees with the chain. Attacker: a bucket lowered (or deleted, or moved to
 * another key) lets a velocity or spend rule pass more purchases than it allows.
 * The database compares, in one statement: the buckets full-outer-joined with the decisions grouped the same way
 * (memory O(1) here), and any row of a kind or span no writer writes. A bucket of zero
 * purchases and zero spend is the same as none (an outcome takes a purchase out without deleting its row). Full runs
 * only (an incremental run would read every decision again).
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';
import {
  LIVE_PURCHASE,
  SPANS,
  bucketStart,
  subjectColumn,
  type Span,
  type SubjectKind,
} from '../../services/authorize/counter-buckets.ts';
import type { RecordFindings } from './record-findings.ts';

/** The kinds of the entries whose transactions move a bucket: an allowed purchase, a released one. */
const MOVES_COUNTERS = [
  'ns.purchase_authority.allowed',
  'ns.purchase_authority.failed',
  'ns.purchase_authority.refunded',
];

/** `now` cut to the bucket's start, in SQL (bucketStart's rule) */
const START_SQL = {
  minute: sql`substr(now, 1, 16) || ':00.000Z'`,
  hour: sql`substr(now, 1, 13) || ':00:00.000Z'`,
  day: sql`substr(now, 1, 10) || 'T00:00:00.000Z'`,
} as const;

interface Difference {
  bkind: string | null;
  bid: string | null;
  bspan: string | null;
  bstart: string | null;
  bcur: string | null;
  bn: number | string | null;
  ekind: string | null;
  eid: string | null;
  espan: string | null;
  estart: string | null;
  ecur: string | null;
  en: number | string | null;
}

export async function checkPurchaseCounters(db: Kysely<Database>, findings: RecordFindings): Promise<void> {
  if (findings.scope.from !== 0) return;
  // Buckets and decisions may move while this runs (the statement sees one snapshot, but the chain size is read
  // before): every move is in a transaction that appends an entry, so the buckets of entries from `since` are left out.
  const since = Number(
    (await db.selectFrom('audit_state').select('size').where('id', '=', 1).executeTakeFirst())?.size ?? 0,
  );
  const differences = await differencesOf(db);
  if (differences.length === 0) return;
  const moving = await keysMovedSince(db, since);
  for (const d of differences) {
    const stored = d.bkind !== null;
    const key = stored
      ? `${d.bkind} ${d.bid} ${d.bspan} ${d.bstart} ${d.bcur}`
      : `${d.ekind} ${d.eid} ${d.espan} ${d.estart} ${d.ecur}`;
    if (moving.has(key)) continue;
    findings.fail({
      reason: stored ? 'record_mismatch' : 'record_missing',
      record: { table: 'purchase_counter_buckets', id: key },
      detail: !KINDS.includes(d.bkind ?? 'principal')
        ? 'subject_kind'
        : !SPANS.includes((d.bspan ?? 'day') as Span)
          ? 'span'
          : Number(d.bn ?? 0) !== Number(d.en ?? 0)
            ? 'purchases'
            : 'spend_minor',
    });
    return;
  }
}

const KINDS: readonly string[] = ['principal', 'agent'];

/**
 * The buckets that differ from the decisions grouped the same way (stored side null: a bucket missing), and the rows
 * of a kind or span no writer writes: one statement, the database groups and joins.
 */
async function differencesOf(db: Kysely<Database>): Promise<Difference[]> {
  const grouped = KINDS.flatMap((kind) =>
    SPANS.map(
      (
        span,
      ) => sql`select cast(${kind} as text) as subject_kind, ${sql.ref(subjectColumn(kind as SubjectKind))} as subject_id,
        cast(${span} as text) as span, ${START_SQL[span]} as bucket_start, coalesce(currency, '') as currency, amount_minor
        from decisions where ${LIVE_PURCHASE}`,
    ),
  );
  return (
    await sql<Difference>`with e as (select subject_kind, subject_id, span, bucket_start, currency, count(*) as purchases,
        sum(coalesce(amount_minor, 0)) as spend_minor
      from (${sql.join(grouped, sql` union all `)}) x group by subject_kind, subject_id, span, bucket_start, currency)
      select b.subject_kind as bkind, b.subject_id as bid, b.span as bspan, b.bucket_start as bstart, b.currency as bcur,
        b.purchases as bn, e.subject_kind as ekind, e.subject_id as eid, e.span as espan, e.bucket_start as estart,
        e.currency as ecur, e.purchases as en
      from purchase_counter_buckets b full outer join e
        on b.subject_kind = e.subject_kind and b.subject_id = e.subject_id and b.span = e.span
        and b.bucket_start = e.bucket_start and b.currency = e.currency
      where coalesce(b.purchases, 0) <> coalesce(e.purchases, 0) or coalesce(b.spend_minor, 0) <> coalesce(e.spend_minor, 0)
        or b.subject_kind not in ('principal', 'agent') or b.span not in ('minute', 'hour', 'day')
      limit 100`.execute(db)
  ).rows;
}

/** The buckets of the decisions whose counter-moving entries are at `since` or later (committed during the run). */
async function keysMovedSince(db: Kysely<Database>, since: number): Promise<Set<string>> {
  const subjects = (
    await db
      .selectFrom('audit_entries')
      .select('subject_ref')
      .where('idx', '>=', since)
      .where('kind', 'in', MOVES_COUNTERS)
      .execute()
  ).map((r) => r.subject_ref);
  const out = new Set<string>();
  for (let i = 0; i < subjects.length; i += 2000) {
    const rows = await db
      .selectFrom('decisions')
      .select(['principal_entity_id', 'actor_entity_id', 'now', 'currency'])
      .where('policy_decision_id', 'in', subjects.slice(i, i + 2000))
      .execute();
    for (const row of rows) {
      for (const span of SPANS) {
        const at = `${span} ${bucketStart(span, row.now)} ${row.currency ?? ''}`;
        out.add(`principal ${row.principal_entity_id} ${at}`);
        out.add(`agent ${row.actor_entity_id} ${at}`);
      }
    }
  }
  return out;
}
