/**
 * PostgreSQL only: the decision's statements (decision-statements.ts) joined into two round trips per decision, with
 * data-modifying CTEs. On PostgreSQL every statement is a round trip through the pool (node-postgres does not
 * pipeline), and the spend rows they lock stay locked until the batch commits: every round trip after the lock
 * lengthens the time other transactions (of every instance) wait on a shared grant's row. SQLite runs the separate
 * statements (in-process, no round trip to save).
 *
 * INVARIANTS (those of commit-decision.ts, unchanged by the joining)
 * - NONCE_AND_SPEND inserts the nonce (primary key: a replay, even a concurrent one on another instance, finds the
 *   row or waits for its transaction, then inserts nothing) and reads the day's spend rows `FOR UPDATE` in grant-id
 *   order (the lock is taken in the CTE, whose rows are sorted before they are locked), in one statement and one
 *   snapshot. It always returns one row: `nonce_fresh` 1 when this statement inserted the nonce, and one row per
 *   spend row found (spend columns null when none was: the day's first reservation, which creates them apart).
 * - RESERVE_DECIDE_AND_EVENT / DECIDE_AND_EVENT: the reservation, the decision row and the event row in one
 *   statement: all of them or none (a failing part fails the statement, and the unit's savepoint takes it back).
 */
import type { Insertable } from 'kysely';
import type { DecisionsTable, RequestNoncesTable } from '../../store/index.ts';
import { prepareListQuery, prepareQuery } from '../../store/prepared-query.ts';
import type { EventRow } from '../events/append-event.ts';
import { DECISION_COLUMNS } from './decision-statements.ts';

type NonceAndDay = Insertable<RequestNoncesTable> & { day: string };

export const NONCE_AND_SPEND = prepareListQuery(
  ['keyid', 'nonce', 'created', 'expires_at', 'day'],
  undefined,
  (db, args: NonceAndDay, grantIds: string[]) =>
    db
      .with('fresh', (qc) =>
        qc
          .insertInto('request_nonces')
          .values({ keyid: args.keyid, nonce: args.nonce, created: args.created, expires_at: args.expires_at })
          .onConflict((oc) => oc.columns(['keyid', 'nonce']).doNothing())
          .returning('nonce'),
      )
      .with('spend', (qc) =>
        qc
          .selectFrom('spend_counters')
          .selectAll()
          .where('grant_id', 'in', grantIds)
          .where('day', '=', args.day)
          .orderBy('grant_id')
          .forUpdate(),
      )
      .selectFrom((qc) =>
        qc
          .selectFrom('fresh')
          .select((eb) => eb.fn.countAll<string>().as('nonce_fresh'))
          .as('f'),
      )
      .leftJoin('spend', (join) => join.onTrue())
      .select(['f.nonce_fresh', 'spend.grant_id', 'spend.reserved_minor', 'spend.currency']),
);

const EVENT_COLUMNS = ['event_id', 'event_type', 'occurred_at', 'subject_ref', 'envelope'] as const;
const EVENT_ARGS = EVENT_COLUMNS.map((c) => `event_${c}`);
type DecisionRow = Required<Omit<Insertable<DecisionsTable>, 'seq'>>;
type DecisionAndEvent = DecisionRow & Record<`event_${keyof EventRow}`, string>;

/** the args of the joined statements: the decision row's columns, and the event row's prefixed `event_` */
export function decisionAndEventArgs(decision: DecisionRow, event: EventRow): DecisionAndEvent {
  return {
    ...decision,
    event_event_id: event.event_id,
    event_event_type: event.event_type,
    event_occurred_at: event.occurred_at,
    event_subject_ref: event.subject_ref,
    event_envelope: event.envelope,
  };
}

function eventValues(args: DecisionAndEvent): EventRow {
  return {
    event_id: args.event_event_id,
    event_type: args.event_event_type,
    occurred_at: args.event_occurred_at,
    subject_ref: args.event_subject_ref,
    envelope: args.event_envelope,
  };
}

function decisionValues(args: DecisionAndEvent): DecisionRow {
  return Object.fromEntries(DECISION_COLUMNS.map((c) => [c, args[c]])) as DecisionRow;
}

/** the decision row and its event, in one statement (a decision without a reservation) */
export const DECIDE_AND_EVENT = prepareQuery(
  [...DECISION_COLUMNS, ...EVENT_ARGS] as Array<keyof DecisionAndEvent & string>,
  (db, args: DecisionAndEvent) =>
    db
      .with('decided', (qc) => qc.insertInto('decisions').values(decisionValues(args)).returning('seq'))
      .insertInto('events')
      .values(eventValues(args)),
);

/** the reservation added to the day's spend rows of its grants, the decision row and its event, in one statement */
export const RESERVE_DECIDE_AND_EVENT = prepareListQuery(
  [...DECISION_COLUMNS, ...EVENT_ARGS, 'reserve_minor', 'reserve_day'] as Array<
    keyof (DecisionAndEvent & { reserve_minor: number; reserve_day: string }) & string
  >,
  undefined,
  (db, args: DecisionAndEvent & { reserve_minor: number; reserve_day: string }, grantIds: string[]) =>
    db
      .with('reserved', (qc) =>
        qc
          .updateTable('spend_counters')
          .set((eb) => ({ reserved_minor: eb('reserved_minor', '+', args.reserve_minor) }))
          .where('grant_id', 'in', grantIds)
          .where('day', '=', args.reserve_day)
          .returning('grant_id'),
      )
      .with('decided', (qc) => qc.insertInto('decisions').values(decisionValues(args)).returning('seq'))
      .insertInto('events')
      .values(eventValues(args)),
);
