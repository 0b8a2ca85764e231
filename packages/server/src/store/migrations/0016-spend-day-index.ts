import type { Kysely } from 'kysely';

/**
 * `decisions_spend_day`: the reservations of one day, read when authorize checks a day's spend counter against the
 * decisions that make it (services/authorize/chained-spend.ts), on an instance that does not know the counter's value
 * yet (its first request of the day on that grant, or a counter another instance moved). Without it that read scans
 * every decision; with it, one day's decisions holding a reservation.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('decisions_spend_day').on('decisions').columns(['spend_day', 'seq']).execute();
}
