/**
 * The slowly changing facts authorize reads before its transaction (entities with their agent keys, card tokens,
 * merchants, risk states), through the instance's GrantCache at the version the caller read first. Migration 0009
 * moves that version on every change of these tables, in the changing transaction, so a cached fact is never older
 * than the version it is used at: a suspension committed before this authorize began is always seen.
 * Rows come out as the query returned them and are shared between requests: callers copy what they keep.
 */
import { sql, type Kysely } from 'kysely';
import type { CardTokensTable, Database, EntitiesTable, MerchantsTable, RiskStateValue } from '../../store/index.ts';
import { prepareQuery } from '../../store/prepared-query.ts';
import { assertCardTokenChained, CARD_TOKEN_CREATED, CARD_TOKEN_STATE_EVENTS } from './chained-card-token.ts';
import { assertEntityChained, ENTITY_CREATED, ENTITY_STATE_EVENTS } from './chained-entity.ts';
import { assertMerchantChained, MERCHANT_CREATED, merchantSubject } from './chained-merchant.ts';
import { assertRiskChained, RISK_EVENT } from './chained-risk.ts';
import { chainedStateCacheOf } from './chained-state.ts';
import type { GrantCache } from './grant-cache.ts';

/**
 * The entity with its `ns.entity.created` and latest state event and its subject salt, in one statement: what chained-entity.ts checks the
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
      'n.time_zone',
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
      eb.selectFrom('subject_salts as s').select('s.salt').whereRef('s.subject_ref', '=', 'n.entity_id').as('salt'),
    ])
    .where('n.entity_id', '=', args.id),
);
/**
 * The card token with its `ns.card_token.created` and latest state event and its subject salt, in one statement: what
 * chained-card-token.ts checks the row against before it is used (the `events_subject` index, migration 0016).
 */
const INSTRUMENT = prepareQuery(['id'], (db, args: { id: string }) =>
  db
    .selectFrom('card_tokens as c')
    .select((eb) => [
      'c.card_token_id',
      'c.principal_entity_id',
      'c.state',
      eb
        .selectFrom('events as e')
        .select('e.envelope')
        .whereRef('e.subject_ref', '=', 'c.card_token_id')
        .where('e.event_type', '=', CARD_TOKEN_CREATED)
        .orderBy('e.seq', 'desc')
        .limit(1)
        .as('created_event'),
      eb
        .selectFrom('events as e')
        .select('e.envelope')
        .whereRef('e.subject_ref', '=', 'c.card_token_id')
        .where('e.event_type', 'in', Object.keys(CARD_TOKEN_STATE_EVENTS))
        .orderBy('e.seq', 'desc')
        .limit(1)
        .as('state_event'),
      eb.selectFrom('subject_salts as s').select('s.salt').whereRef('s.subject_ref', '=', 'c.card_token_id').as('salt'),
    ])
    .where('c.card_token_id', '=', args.id),
);
/**
 * The merchant with its `ns.merchant.created` event (subject `ns:merchant:<id>`), in one statement: what
 * chained-merchant.ts checks the row against before it is used (the `events_subject` index, migration 0016).
 */
const MERCHANT = prepareQuery(['id', 'subject'], (db, args: { id: string; subject: string }) =>
  db
    .selectFrom('merchants as m')
    .select((eb) => [
      'm.merchant_id',
      'm.category',
      'm.jurisdiction',
      'm.state',
      eb
        .selectFrom('events as e')
        .select('e.envelope')
        .where('e.subject_ref', '=', args.subject)
        .where('e.event_type', '=', MERCHANT_CREATED)
        .orderBy('e.seq', 'desc')
        .limit(1)
        .as('created_event'),
    ])
    .where('m.merchant_id', '=', args.id),
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

export type EntityFact = Pick<EntitiesTable, 'entity_id' | 'type' | 'state' | 'public_key_jwk' | 'time_zone'>;
export type InstrumentFact = Pick<CardTokensTable, 'card_token_id' | 'principal_entity_id' | 'state'>;
export type MerchantFact = Pick<MerchantsTable, 'merchant_id' | 'category' | 'jurisdiction' | 'state'>;
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
          time_zone: found.time_zone,
        };
      }
      this.#cache.storeFact('entity', id, this.version, row);
      return row;
    });
  }

  /** A card token only as far as the audit chain backs it (chained-card-token.ts); a forged one throws. */
  instrument(id: string): InstrumentFact | null | Promise<InstrumentFact | null> {
    const hit = this.#cache.fact<InstrumentFact>('instrument', id, this.version);
    if (hit) return hit.row;
    return INSTRUMENT.execute(this.#db, { id }).then(async ({ rows }) => {
      const found = rows[0];
      let row: InstrumentFact | null = null;
      if (found) {
        await assertCardTokenChained(this.#db, chainedStateCacheOf(this.#cache), found);
        row = {
          card_token_id: found.card_token_id,
          principal_entity_id: found.principal_entity_id,
          state: found.state,
        };
      }
      this.#cache.storeFact('instrument', id, this.version, row);
      return row;
    });
  }

  /** A merchant only as far as the audit chain backs it (chained-merchant.ts); a forged one throws. */
  merchant(id: string): MerchantFact | null | Promise<MerchantFact | null> {
    const hit = this.#cache.fact<MerchantFact>('merchant', id, this.version);
    if (hit) return hit.row;
    return MERCHANT.execute(this.#db, { id, subject: merchantSubject(id) }).then(async ({ rows }) => {
      const found = rows[0];
      let row: MerchantFact | null = null;
      if (found) {
        await assertMerchantChained(this.#db, chainedStateCacheOf(this.#cache), found);
        row = {
          merchant_id: found.merchant_id,
          category: found.category,
          jurisdiction: found.jurisdiction,
          state: found.state,
        };
      }
      this.#cache.storeFact('merchant', id, this.version, row);
      return row;
    });
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
}
