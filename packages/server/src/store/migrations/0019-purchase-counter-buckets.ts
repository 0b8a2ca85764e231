import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.ts';

/**
 * The purchase counters' buckets (issue 27): `facts.counters` maintained, not recounted at every decision
 * (services/authorize/counter-buckets.ts). Per subject (`principal` or `agent`, `subject_id` the entity), per UTC
 * minute, hour and day (`span`, `bucket_start` the ISO text of `decisions.now` cut to it, so it compares with `now` as
 * text), per `currency` ('' for a purchase without an amount): the live purchases (allowed `execute`, outcome not
 * `failed` or `refunded`) and their amount in minor units. Derived state: authorize honours a bucket only as far as
 * the decisions back it (maintained-counters.ts) and `GET /v1/audit/verify` checks every row against them
 * (audit/record-checks/check-purchase-counters.ts).
 * Filled here from the decisions already stored, so an upgraded store's counters are right at once. The primary key
 * serves every read (one subject, one span, a range of starts) and every upsert.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const big = dialect === 'postgres' ? 'bigint' : 'integer';
  await db.schema
    .createTable('purchase_counter_buckets')
    .addColumn('subject_kind', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'text', (c) => c.notNull())
    .addColumn('span', 'text', (c) => c.notNull())
    .addColumn('bucket_start', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('purchases', big, (c) => c.notNull())
    .addColumn('spend_minor', big, (c) => c.notNull())
    .addPrimaryKeyConstraint('purchase_counter_buckets_pk', [
      'subject_kind',
      'subject_id',
      'span',
      'bucket_start',
      'currency',
    ])
    .execute();
  await fillPurchaseCounterBuckets(db);
}

/** Every live purchase already stored, into its six buckets: one grouped insert per subject kind and span. */
export async function fillPurchaseCounterBuckets(db: Kysely<unknown>): Promise<void> {
  const live = sql`decision = 'allow_with_constraints' and action = 'execute' and outcome not in ('failed', 'refunded')`;
  // the bucket's start: `now` cut to the minute, hour or day (counter-buckets.ts bucketStart)
  const starts = [
    ['minute', sql`substr(now, 1, 16) || ':00.000Z'`],
    ['hour', sql`substr(now, 1, 13) || ':00:00.000Z'`],
    ['day', sql`substr(now, 1, 10) || 'T00:00:00.000Z'`],
  ] as const;
  for (const [kind, column] of [
    ['principal', 'principal_entity_id'],
    ['agent', 'actor_entity_id'],
  ] as const) {
    for (const [span, start] of starts) {
      await sql`insert into purchase_counter_buckets
          (subject_kind, subject_id, span, bucket_start, currency, purchases, spend_minor)
        select cast(${kind} as text), ${sql.ref(column)}, cast(${span} as text), ${start}, coalesce(currency, ''), count(*),
          sum(coalesce(amount_minor, 0))
        from decisions where ${live}
        group by ${sql.ref(column)}, ${start}, coalesce(currency, '')`.execute(db);
    }
  }
}
