/**
 * A day's spend counter is honoured only as far as the decisions that make it back it (chained-state.ts). Attacker:
 * the database but not the key, lowering `spend_counters.reserved_minor` (or deleting the row, which the day's next
 * purchase recreates at 0) so that an agent spends past `max_daily_amount`.
 *
 * The rule is that of `GET /v1/audit/verify` (audit/record-checks/check-spend-counters.ts): the counter of (grant,
 * day) is the sum of `reservation.amount.minor` over that day's decisions whose `reservation.grant_ids` name the
 * grant and whose outcome still counts (`reserved`, `executed`). Those decision columns are what check-decisions.ts
 * holds against the decision records the chain commits to, and an edited `outcome` is refused where it is built on
 * (chained-outcome.ts).
 *
 * COST: each instance remembers, per (grant, day), the last value it verified or wrote itself (SpendMemory). A
 * counter read under lock that equals it costs nothing more; any other value (the instance's first request of the
 * day on the grant, a value another instance moved, an outcome that released money, a forged one) is recomputed from
 * the day's decisions (one statement, `decisions_spend_day` index, migration 0016) and refused when it differs.
 *
 * CONCURRENCY: the counter rows are read under lock (PostgreSQL `FOR UPDATE`; SQLite has one writer), and every
 * transaction that moves a counter (a reservation, a released outcome) holds that lock and writes its decision row in
 * the same transaction. So once the lock is held, every move of the counter is either committed (and its decision row
 * visible to the recompute, a later statement under READ COMMITTED) or made earlier in this same transaction (a unit
 * before this one in the write queue's batch): the recompute and the counter always agree on a genuine store, on any
 * number of instances. Rows that were not found are not locked (a request that reserves nothing reads no row it does
 * not create), so only found rows are judged; a purchase always creates and locks its rows first, so a deleted row is
 * judged (at 0) before any money is reserved on it.
 *
 * RESIDUAL (named in docs/audit.md): a counter set back to exactly the value this instance last verified, after
 * other instances moved it on, is not recomputed here; verify's full run names it. Forging the decisions themselves
 * (deleting a decision row, editing its reservation) is named by verify (check-decisions.ts), not by authorize.
 */
import type { Transaction } from 'kysely';
import type { Database } from '../../store/index.ts';
import { integrityFailure } from './chained-state.ts';

/** The last chain-backed value of each (grant, day) counter this instance knows. Bounded; past it, starts over. */
export class SpendMemory {
  static readonly LIMIT = 50_000;
  readonly #values = new Map<string, number>();

  get(grantId: string, day: string): number | undefined {
    return this.#values.get(`${grantId} ${day}`);
  }

  set(grantId: string, day: string, minor: number): void {
    if (this.#values.size >= SpendMemory.LIMIT) this.#values.clear();
    this.#values.set(`${grantId} ${day}`, minor);
  }
}

const memories = new WeakMap<object, SpendMemory>();

/** The memory of one service instance (one AppContext). */
export function spendMemoryOf(ctx: object): SpendMemory {
  let memory = memories.get(ctx);
  if (!memory) {
    memory = new SpendMemory();
    memories.set(ctx, memory);
  }
  return memory;
}

export interface CounterRow {
  grant_id: string;
  reserved_minor: number | string;
}

/**
 * Refuses (integrityFailure `spend_counters.reserved_minor`, id `<grant> <day>`) a counter read under lock that the
 * day's decisions do not back. Reads the store only for counters whose value the memory does not hold.
 */
export async function assertSpendChained(
  trx: Transaction<Database>,
  memory: SpendMemory,
  day: string,
  rows: readonly CounterRow[],
): Promise<void> {
  const unknown = rows.filter((row) => memory.get(row.grant_id, day) !== Number(row.reserved_minor));
  if (unknown.length === 0) return;
  const sums = await reservedOn(trx, day, new Set(unknown.map((row) => row.grant_id)));
  for (const row of unknown) {
    const minor = Number(row.reserved_minor);
    if (minor !== (sums.get(row.grant_id) ?? 0)) {
      throw integrityFailure('spend_counters', `${row.grant_id} ${day}`, 'reserved_minor');
    }
    memory.set(row.grant_id, day, minor);
  }
}

/**
 * What this transaction leaves the counters at, once its decision is written: the values read under lock plus its
 * own reservation. Remembered before the commit: if the batch then fails, the next read differs and is recomputed
 * (a cost, never a false refusal).
 */
export function rememberSpend(
  memory: SpendMemory,
  day: string,
  rows: readonly CounterRow[],
  reservation: { minor: number; grantIds: readonly string[] } | undefined,
): void {
  for (const row of rows) {
    const added = reservation?.grantIds.includes(row.grant_id) ? reservation.minor : 0;
    memory.set(row.grant_id, day, Number(row.reserved_minor) + added);
  }
}

/**
 * The same rule for counters of several days at once (budget-spend.ts: a budget sums every day of its period). Each
 * row whose value the memory does not hold is recounted from its own day's decisions, every such day in one statement.
 */
export async function assertSpendDaysChained(
  trx: Transaction<Database>,
  memory: SpendMemory,
  rows: readonly (CounterRow & { day: string })[],
): Promise<void> {
  const unknown = rows.filter((row) => memory.get(row.grant_id, row.day) !== Number(row.reserved_minor));
  if (unknown.length === 0) return;
  const sums = await reservedOnDays(
    trx,
    [...new Set(unknown.map((row) => row.day))],
    new Set(unknown.map((row) => row.grant_id)),
  );
  for (const row of unknown) {
    const minor = Number(row.reserved_minor);
    if (minor !== (sums.get(`${row.grant_id} ${row.day}`) ?? 0)) {
      throw integrityFailure('spend_counters', `${row.grant_id} ${row.day}`, 'reserved_minor');
    }
    memory.set(row.grant_id, row.day, minor);
  }
}

/** The day's reservations that still count, summed per grant of `grantIds` (check-spend-counters.ts's rule). */
async function reservedOn(
  trx: Transaction<Database>,
  day: string,
  grantIds: Set<string>,
): Promise<Map<string, number>> {
  const sums = await reservedOnDays(trx, [day], grantIds);
  return new Map([...sums].map(([key, minor]) => [key.slice(0, key.lastIndexOf(' ')), minor]));
}

/** The reservations of `days` that still count, summed per `<grant> <day>` for the grants of `grantIds`. */
async function reservedOnDays(
  trx: Transaction<Database>,
  days: readonly string[],
  grantIds: Set<string>,
): Promise<Map<string, number>> {
  const rows = await trx
    .selectFrom('decisions')
    .select(['reservation', 'spend_day'])
    .where('spend_day', 'in', days)
    .where('reservation', 'is not', null)
    .where('outcome', 'in', ['reserved', 'executed'])
    .execute();
  const sums = new Map<string, number>();
  for (const row of rows) {
    const reservation = parseReservation(row.reservation);
    if (!reservation) continue; // a reservation that does not parse is named by verify (check-decisions.ts)
    for (const grantId of reservation.grantIds) {
      if (!grantIds.has(grantId)) continue;
      const key = `${grantId} ${row.spend_day}`;
      sums.set(key, (sums.get(key) ?? 0) + reservation.minor);
    }
  }
  return sums;
}

function parseReservation(text: string | null): { minor: number; grantIds: string[] } | undefined {
  if (text === null) return undefined;
  try {
    const value = JSON.parse(text) as { amount?: { minor?: unknown }; grant_ids?: unknown };
    const minor = Number(value.amount?.minor);
    if (!Number.isSafeInteger(minor) || !Array.isArray(value.grant_ids)) return undefined;
    return { minor, grantIds: value.grant_ids.map(String) };
  } catch {
    return undefined;
  }
}
