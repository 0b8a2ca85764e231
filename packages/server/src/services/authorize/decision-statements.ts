/**
 * The statements of the decision's transaction (commit-decision.ts), prepared once (store/prepared-query.ts): they
 * run for every authorize. Lists are the grant ids of the covering chains (bounded by MAX_CHAIN_LENGTH and
 * MAX_ALTERNATIVE_CHAINS in grant-chain.ts; one chain in the common case).
 */
import type { Insertable } from 'kysely';
import type { DecisionsTable, RequestNoncesTable } from '../../store/index.ts';
import { prepareListQuery, prepareQuery } from '../../store/prepared-query.ts';

/** INSERT of a nonce, ignored when (keyid, nonce) is already there: numAffectedRows 1 means the nonce is fresh */
export const INSERT_NONCE = prepareQuery(
  ['keyid', 'nonce', 'created', 'expires_at'],
  (db, args: Insertable<RequestNoncesTable>) =>
    db
      .insertInto('request_nonces')
      .values(args)
      .onConflict((oc) => oc.columns(['keyid', 'nonce']).doNothing()),
);

/** the day's spend row of a grant, created empty when absent */
export const ENSURE_SPEND_ROW = prepareQuery(
  ['grant_id', 'day', 'currency'],
  (db, args: { grant_id: string; day: string; currency: string }) =>
    db
      .insertInto('spend_counters')
      .values({ ...args, reserved_minor: 0 })
      .onConflict((oc) => oc.columns(['grant_id', 'day']).doNothing()),
);

/** the day's spend rows of the chain, in grant-id order */
export const SPEND_ROWS = prepareListQuery(['day'], undefined, (db, args: { day: string }, grantIds: string[]) =>
  db
    .selectFrom('spend_counters')
    .selectAll()
    .where('grant_id', 'in', grantIds)
    .where('day', '=', args.day)
    .orderBy('grant_id'),
);

/** the same rows locked `FOR UPDATE` in grant-id order (PostgreSQL; SQLite has one writer) */
export const SPEND_ROWS_FOR_UPDATE = prepareListQuery(
  ['day'],
  undefined,
  (db, args: { day: string }, grantIds: string[]) =>
    db
      .selectFrom('spend_counters')
      .selectAll()
      .where('grant_id', 'in', grantIds)
      .where('day', '=', args.day)
      .orderBy('grant_id')
      .forUpdate(),
);

/** the spend rows of budgeted grants from a day on (budget-spend.ts): every day of their periods, today's included */
export const SPEND_ROWS_FROM = prepareListQuery(['from'], undefined, (db, args: { from: string }, grantIds: string[]) =>
  db
    .selectFrom('spend_counters')
    .selectAll()
    .where('grant_id', 'in', grantIds)
    .where('day', '>=', args.from)
    .orderBy('grant_id')
    .orderBy('day'),
);

/** adds a reservation to the day's spend rows of the grants it counts against */
export const RESERVE_SPEND = prepareListQuery(
  ['minor', 'day'],
  undefined,
  (db, args: { minor: number; day: string }, grantIds: string[]) =>
    db
      .updateTable('spend_counters')
      .set((eb) => ({ reserved_minor: eb('reserved_minor', '+', args.minor) }))
      .where('grant_id', 'in', grantIds)
      .where('day', '=', args.day),
);

type DecisionRow = Required<Omit<Insertable<DecisionsTable>, 'seq'>>;

/** every column but `seq`: `satisfies` fails the type-check when a column is added to the table and not here */
export const DECISION_COLUMNS = Object.keys({
  policy_decision_id: true,
  decision: true,
  reason: true,
  actor_entity_id: true,
  principal_entity_id: true,
  subject: true,
  action: true,
  leaf_grant_id: true,
  request: true,
  snapshot: true,
  result: true,
  decision_map_id: true,
  decision_map: true,
  audit_ref: true,
  evidence_refs: true,
  approval_id: true,
  reservation: true,
  spend_day: true,
  outcome: true,
  engine_version: true,
  now: true,
  created_at: true,
  updated_at: true,
  record: true,
  merchant_id: true,
  amount_minor: true,
  currency: true,
} satisfies Record<keyof DecisionRow, true>) as Array<keyof DecisionRow>;

export const INSERT_DECISION = prepareQuery(DECISION_COLUMNS, (db, args: DecisionRow) =>
  db.insertInto('decisions').values(args),
);
