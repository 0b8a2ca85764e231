/**
 * The writes of commit-decision.ts that take a different number of round trips per dialect: on PostgreSQL the nonce
 * with the spend lock, and the reservation with the decision and its event, are one statement each
 * (pg-decision-statements.ts); on SQLite each is its own statement, as before. Same rows, same order of locks, same
 * transaction either way (see the invariants of commit-decision.ts and pg-decision-statements.ts).
 */
import type { Insertable, Transaction } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { Database, DecisionsTable } from '../../store/index.ts';
import { appendEvent, prepareEvent, type EventInput } from '../events/append-event.ts';
import { INSERT_DECISION, RESERVE_SPEND } from './decision-statements.ts';
import {
  decisionAndEventArgs,
  DECIDE_AND_EVENT,
  NONCE_AND_SPEND,
  RESERVE_DECIDE_AND_EVENT,
} from './pg-decision-statements.ts';
import type { PayloadVerification } from './verify-payload.ts';

export type DecisionInsert = Required<Omit<Insertable<DecisionsTable>, 'seq'>>;

/** what a decision adds to the day's spend rows of its grants */
export interface Reservation {
  minor: number;
  day: string;
  grantIds: readonly string[];
}

export interface SpendRow {
  grant_id: string;
  reserved_minor: number | string;
  currency: string;
}

/** kept for twice the window after `created`: long enough that a replay is always either remembered or stale */
export function nonceExpiry(created: number, windowSeconds: number): string {
  return new Date((created + 2 * windowSeconds) * 1000).toISOString();
}

/**
 * PostgreSQL: inserts the nonce and reads the day's spend rows of `grantIds` under `FOR UPDATE`, in one round trip.
 * `fresh` is whether this transaction inserted the nonce; `rows` the spend rows found (fewer than the grants on the
 * day's first reservation).
 */
export async function lockNonceAndSpend(
  ctx: AppContext,
  trx: Transaction<Database>,
  n: NonNullable<PayloadVerification['nonce']>,
  day: string,
  grantIds: string[],
): Promise<{ fresh: boolean; rows: SpendRow[] }> {
  const result = await NONCE_AND_SPEND.execute(
    trx,
    {
      keyid: n.keyid,
      nonce: n.nonce,
      created: n.created,
      expires_at: nonceExpiry(n.created, ctx.config.signatureWindowSeconds),
      day,
    },
    grantIds,
  );
  const first = result.rows[0];
  if (!first) throw new Error('the nonce and spend statement returned no row');
  const rows: SpendRow[] = [];
  for (const row of result.rows) {
    if (row.grant_id !== null && row.reserved_minor !== null && row.currency !== null) {
      rows.push({ grant_id: row.grant_id, reserved_minor: row.reserved_minor, currency: row.currency });
    }
  }
  return { fresh: Number(first.nonce_fresh) === 1, rows };
}

/**
 * The reservation (when the decision makes one), the decision row and its event (with its audit entry). On SQLite
 * the reservation was already added by the caller, before the approval writes; on PostgreSQL it is added here, in
 * the statement that inserts the decision: the spend rows are locked either way since the caller read them.
 */
export async function writeDecision(
  ctx: AppContext,
  trx: Transaction<Database>,
  decision: DecisionInsert,
  reservation: Reservation | undefined,
  event: EventInput,
): Promise<void> {
  if (ctx.store.dialect !== 'postgres') {
    await INSERT_DECISION.execute(trx, decision);
    await appendEvent(trx, ctx, event);
    return;
  }
  const { row } = await prepareEvent(trx, ctx, event);
  const args = decisionAndEventArgs(decision, row);
  if (reservation) {
    await RESERVE_DECIDE_AND_EVENT.execute(
      trx,
      { ...args, reserve_minor: reservation.minor, reserve_day: reservation.day },
      reservation.grantIds,
    );
  } else {
    await DECIDE_AND_EVENT.execute(trx, args);
  }
}

/** SQLite: the reservation as its own statement (PostgreSQL adds it in writeDecision) */
export async function reserveSpend(
  ctx: AppContext,
  trx: Transaction<Database>,
  reservation: Reservation | undefined,
): Promise<void> {
  if (!reservation || ctx.store.dialect === 'postgres') return;
  await RESERVE_SPEND.execute(trx, { minor: reservation.minor, day: reservation.day }, [...reservation.grantIds]);
}
