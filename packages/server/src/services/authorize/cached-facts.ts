/**
 * The slowly changing facts authorize reads before its transaction (entities with their agent keys, card tokens,
 * merchants, risk states), through the instance's GrantCache at the version the caller read first. Migration 0009
 * moves that version on every change of these tables, in the changing transaction, so a cached fact is never older
 * than the version it is used at: a suspension committed before this authorize began is always seen.
 * Rows come out as the query returned them and are shared between requests: callers copy what they keep.
 */
import { sql, type Kysely } from 'kysely';
import type { Database, EntitiesTable, RiskStateValue } from '../../store/index.ts';
import { prepareQuery, type PreparedQuery } from '../../store/prepared-query.ts';
import { assertEntityChained, ENTITY_CREATED, ENTITY_STATE_EVENTS } from './chained-entity.ts';
import { assertRiskChained, RISK_EVENT } from './chained-risk.ts';
import { chainedStateCacheOf } from './chained-state.ts';
import type { GrantCache } from './grant-cache.ts';

/**
 * The entity with its `ns.entity.created` and latest state event, in one statement: what chained-entity.ts checks the
 * row against before it is used (the `events_subject` index, migration 0016).
 */
const ENTITY = prepareQuery(['id'], (db, args: { id: string }) =>
  db
    .selectFrom('entities as n')
    .select((eb) => [
      'n.entity_id',
      'n.type',
      'n.state',
      'n.public_key_jwk',
      eb
        .selectFrom('events as e')
        .select('e.envelope')
        .whereRef('e.subject_ref', '=', 'n.entity_id')
        .where('e.event_type', '=', ENTITY_CREATED)
        .orderBy('e.seq', 'desc')
        .limit(1)
        .as('created_event'),
      eb
        .selectFrom('events as e')
        .select('e.envelope')
        .whereRef('e.subject_ref', '=', 'n.entity_id')
        .where('e.event_type', 'in', Object.keys(ENTITY_STATE_EVENTS))
        .orderBy('e.seq', 'desc')
        .limit(1)
        .as('state_event'),
    ])
    .where('n.entity_id', '=', args.id),
);
const INSTRUMENT = prepareQuery(['id'], (db, args: { id: string }) =>
  db
    .selectFrom('card_tokens')
    .select(['card_token_id', 'principal_entity_id', 'state'])
    .where('card_token_id', '=', args.id),
);
const MERCHANT = prepareQuery(['id'], (db, args: { id: string }) =>
  db
    .selectFrom('merchants')
    .select(['merchant_id', 'category', 'jurisdiction', 'state'])
    .where('merchant_id', '=', args.id),
);
/**
 * The risk row (or its absence) with the subject's latest `ns.risk.state_changed` envelope, in one statement: what
 * chained-risk.ts checks the row against before it is used (one row whether or not the subject has a risk row).
 */
const RISK_WITH_EVENT = prepareQuery(['id'], (db, args: { id: string }) =>
  db
    .selectFrom(db.selectNoFrom(sql<string>`cast(${args.id} as text)`.as('id')).as('s'))
    .leftJoin('risk_states as r', 'r.entity_id', 's.id')
    .select((eb) => [
      's.id as subject',
      'r.risk_state',
      'r.expires_at',
      eb
        .selectFrom('events as e')
        .select('e.envelope')
        .where('e.event_type', '=', RISK_EVENT)
        .whereRef('e.subject_ref', '=', 's.id')
        .orderBy('e.seq', 'desc')
        .limit(1)
        .as('last_event'),
    ]),
);

type RowOf<Q> = Q extends PreparedQuery<unknown, infer Row> ? Row : never;
export type EntityFact = Pick<EntitiesTable, 'entity_id' | 'type' | 'state' | 'public_key_jwk'>;
export type InstrumentFact = RowOf<typeof INSTRUMENT>;
export type MerchantFact = RowOf<typeof MERCHANT>;
export interface RiskFact {
  entity_id: string;
  risk_state: RiskStateValue;
  expires_at: string | null;
}

/** One reader of facts at one version: what a single authorize uses. */
export class FactReader {
  readonly #db: Kysely<Database>;
  readonly #cache: GrantCache;
  readonly version: number;

  constructor(db: Kysely<Database>, cache: GrantCache, version: number) {
    this.#db = db;
    this.#cache = cache;
    this.version = version;
  }

  /** An entity only as far as the audit chain backs it (chained-entity.ts); a forged one throws (fail closed). */
  entity(id: string): EntityFact | null | Promise<EntityFact | null> {
    const hit = this.#cache.fact<EntityFact>('entity', id, this.version);
    if (hit) return hit.row;
    return ENTITY.execute(this.#db, { id }).then(async ({ rows }) => {
      const found = rows[0];
      let row: EntityFact | null = null;
      if (found) {
        await assertEntityChained(this.#db, chainedStateCacheOf(this.#cache), found);
        row = {
          entity_id: found.entity_id,
          type: found.type,
          state: found.state,
          public_key_jwk: found.public_key_jwk,
        };
      }
      this.#cache.storeFact('entity', id, this.version, row);
      return row;
    });
  }

  instrument(id: string): InstrumentFact | null | Promise<InstrumentFact | null> {
    return this.#read('instrument', id, INSTRUMENT);
  }

  merchant(id: string): MerchantFact | null | Promise<MerchantFact | null> {
    return this.#read('merchant', id, MERCHANT);
  }

  /** A risk state only as far as the audit chain backs it (chained-risk.ts); a forged one throws (fail closed). */
  risk(id: string): RiskFact | null | Promise<RiskFact | null> {
    const hit = this.#cache.fact<RiskFact>('risk', id, this.version);
    if (hit) return hit.row;
    return RISK_WITH_EVENT.execute(this.#db, { id }).then(async ({ rows }) => {
      const found = rows[0];
      if (!found) throw new Error('the risk statement returned no row');
      await assertRiskChained(this.#db, chainedStateCacheOf(this.#cache), found);
      const row: RiskFact | null =
        found.risk_state === null
          ? null
          : { entity_id: id, risk_state: found.risk_state as RiskStateValue, expires_at: found.expires_at };
      this.#cache.storeFact('risk', id, this.version, row);
      return row;
    });
  }

  /** A hit answers synchronously (no promise, no microtask); a miss reads the store and keeps the row at the version. */
  #read<Row>(kind: string, id: string, query: PreparedQuery<{ id: string }, Row>): Row | null | Promise<Row | null> {
    const hit = this.#cache.fact<Row>(kind, id, this.version);
    if (hit) return hit.row;
    return query.execute(this.#db, { id }).then(({ rows }) => {
      const row = rows[0] ?? null;
      this.#cache.storeFact(kind, id, this.version, row);
      return row;
    });
  }
}
