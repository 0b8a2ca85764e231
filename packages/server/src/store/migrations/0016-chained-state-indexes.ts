import type { Kysely } from 'kysely';

/**
 * Indexes for the states authorize checks against the chain when it reads them (services/authorize/chained-*.ts).
 *
 * `decisions_spend_day`: the reservations of one day, read when authorize checks a day's spend counter against the
 * decisions that make it (services/authorize/chained-spend.ts), on an instance that does not know the counter's value
 * yet (its first request of the day on that grant, or a counter another instance moved). Without it that read scans
 * every decision; with it, one day's decisions holding a reservation.
 *
 * `events_subject`: a subject's latest event of some types (an entity's creation and latest state change), read in
 * the statement that reads the entity on a fact miss (chained-entity.ts); `events_type` alone reads every event of
 * the type.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('decisions_spend_day').on('decisions').columns(['spend_day', 'seq']).execute();
  await db.schema.createIndex('events_subject').on('events').columns(['subject_ref', 'event_type', 'seq']).execute();
}
