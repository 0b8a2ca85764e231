/**
 * Loads the rows a graph query reads, by index only, never the whole store: the page of grants the query chose, then
 * their missing ancestors by id (primary key, one statement per level), and the entities, card tokens, mandates,
 * merchants and today's spend counters those grants name (each by key, `in` lists in chunks). Spend comes from
 * `spend_counters(grant_id, day)`, the very rows authorize reserves against (commit-decision.ts), for the UTC day of
 * `now`. Grant states are effective states (grant-rows.ts: a cascade's revocation row counts).
 */
import { type GraphGrant, type GraphRows, type MinorMoney, MAX_GRAPH_CHAIN } from '@aar/core';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../store/index.ts';
import { toDecideScope } from '../authorize/to-decide-scope.ts';
import { effectiveGrantRow, type GrantRow } from '../grants/grant-rows.ts';
import type { StoredScope } from '../grants/grant-scope.ts';

type Db = Kysely<Database> | Transaction<Database>;

/** Bound parameters per statement: well under SQLite's and PostgreSQL's limits. */
const CHUNK = 500;

/** The columns a graph reads: never the link `document` (the widest column), which no query needs. */
const GRAPH_COLUMNS = [
  'grants.seq',
  'grants.grant_id',
  'grants.parent_grant_id',
  'grants.root_grant_id',
  'grants.depth',
  'grants.principal_entity_id',
  'grants.actor_entity_id',
  'grants.capability_id',
  'grants.resource_id',
  'grants.scope',
  'grants.state',
  'grants.mandate_id',
  'grants.revoked_at',
  'grants.updated_at',
] as const;

export type GraphGrantRow = Pick<
  GrantRow,
  | 'seq'
  | 'grant_id'
  | 'parent_grant_id'
  | 'root_grant_id'
  | 'depth'
  | 'principal_entity_id'
  | 'actor_entity_id'
  | 'capability_id'
  | 'resource_id'
  | 'scope'
  | 'state'
  | 'mandate_id'
  | 'revoked_at'
  | 'updated_at'
>;

/**
 * Grant rows, left-joined with their revocation as every reader must (grant-rows.ts), narrowed by the caller through
 * an index; `effective` each row before use.
 */
export function grantQuery(db: Db) {
  return db
    .selectFrom('grants')
    .leftJoin('grant_revocations', 'grant_revocations.grant_id', 'grants.grant_id')
    .select(GRAPH_COLUMNS)
    .select(['grant_revocations.revoked_at as cascade_revoked_at']);
}

/** Each row with its effective state (grant-rows.ts effectiveGrantRow: a cascade's revocation row counts). */
export function effective(rows: (GraphGrantRow & { cascade_revoked_at: string | null })[]): GraphGrantRow[] {
  return rows.map((row) => effectiveGrantRow(row as GrantRow & { cascade_revoked_at: string | null }));
}

/** The grant rows of these ids (any order), effective states. */
export async function grantsById(db: Db, ids: readonly string[]): Promise<GraphGrantRow[]> {
  const out: GraphGrantRow[] = [];
  for (const part of chunks(ids)) {
    out.push(...effective(await grantQuery(db).where('grants.grant_id', 'in', part).execute()));
  }
  return out;
}

/**
 * Everything the graph functions need around `seeds`: their ancestors, entities, card tokens, mandates, merchants
 * and spend counters of `day`.
 */
export async function loadGraphRows(
  db: Db,
  seeds: readonly GraphGrantRow[],
  day: string,
  /**
   * `whole`: the seeds hold every descendant that matters (a subtree read in full, the blast radius), so neither the
   * spend counters (no limit is shown) nor the delegated-further probe (children are loaded) is read.
   */
  options: { whole?: boolean } = {},
): Promise<GraphRows> {
  const grants = new Map<string, GraphGrantRow>();
  for (const row of seeds) grants.set(row.grant_id, row);
  for (let level = 0; level < MAX_GRAPH_CHAIN; level++) {
    const missing = new Set<string>();
    for (const row of grants.values()) {
      if (row.parent_grant_id !== null && !grants.has(row.parent_grant_id)) missing.add(row.parent_grant_id);
    }
    if (missing.size === 0) break;
    const found = await grantsById(db, [...missing]);
    if (found.length === 0) break; // dangling links: the path reads `delegation_invalid`
    for (const row of found) grants.set(row.grant_id, row);
  }
  const rows = [...grants.values()];
  const graphGrants = rows.map(toGraphGrant);
  const entityIds = new Set<string>();
  const tokenIds = new Set<string>();
  const merchantIds = new Set<string>();
  for (const g of graphGrants) {
    entityIds.add(g.principal_entity_id);
    entityIds.add(g.actor_entity_id);
    tokenIds.add(g.card_token_id);
    for (const m of g.scope.allowed_merchants ?? []) merchantIds.add(m);
  }
  const mandated = graphGrants.filter((g) => g.mandate_id !== null).map((g) => g.grant_id);
  const ids = rows.map((r) => r.grant_id);
  // independent reads: concurrent on a pool (PostgreSQL: each round trip counts); one after another inside a
  // write unit, whose one connection they share
  const reads = [
    () =>
      inChunks([...entityIds], (part) =>
        db.selectFrom('entities').select(['entity_id', 'type', 'state']).where('entity_id', 'in', part).execute(),
      ),
    () =>
      inChunks([...tokenIds], (part) =>
        db
          .selectFrom('card_tokens')
          .select(['card_token_id', 'principal_entity_id', 'state'])
          .where('card_token_id', 'in', part)
          .execute(),
      ),
    () =>
      inChunks(mandated, (part) =>
        db
          .selectFrom('mandates')
          .select(['mandate_id', 'grant_id', 'format', 'single_use', 'used_by', 'expires_at'])
          .where('grant_id', 'in', part)
          .execute(),
      ),
    () =>
      inChunks([...merchantIds], (part) =>
        db
          .selectFrom('merchants')
          .select(['merchant_id', 'category', 'jurisdiction', 'state'])
          .where('merchant_id', 'in', part)
          .execute(),
      ),
    () =>
      inChunks(options.whole ? [] : ids, (part) =>
        db
          .selectFrom('spend_counters')
          .select(['grant_id', 'currency', 'reserved_minor'])
          .where('day', '=', day)
          .where('grant_id', 'in', part)
          .execute(),
      ),
    () =>
      inChunks(options.whole ? [] : ids, (part) =>
        // one index probe per grant (grants_parent), never every child of a busy parent
        db
          .selectFrom('grants as g')
          .select('g.grant_id as parent_grant_id')
          .where('g.grant_id', 'in', part)
          .where((eb) =>
            eb.exists(eb.selectFrom('grants as c').select('c.seq').whereRef('c.parent_grant_id', '=', 'g.grant_id')),
          )
          .execute(),
      ),
  ] as const;
  const [entities, cardTokens, mandates, merchants, spent, withChildren] = (
    db.isTransaction ? await sequentially(reads) : await Promise.all(reads.map((read) => read()))
  ) as [
    Awaited<ReturnType<(typeof reads)[0]>>,
    Awaited<ReturnType<(typeof reads)[1]>>,
    Awaited<ReturnType<(typeof reads)[2]>>,
    Awaited<ReturnType<(typeof reads)[3]>>,
    Awaited<ReturnType<(typeof reads)[4]>>,
    Awaited<ReturnType<(typeof reads)[5]>>,
  ];
  const spentToday: Record<string, MinorMoney> = {};
  for (const row of spent) spentToday[row.grant_id] = { minor: Number(row.reserved_minor), currency: row.currency };
  return {
    grants: graphGrants,
    entities,
    card_tokens: cardTokens,
    mandates: mandates.map((m) => ({
      mandate_id: m.mandate_id,
      grant_id: m.grant_id,
      format: m.format as 'ap2' | 'acp',
      single_use: Number(m.single_use) === 1,
      used: m.used_by !== null,
      expires_at: m.expires_at,
    })),
    merchants,
    spent_today: spentToday,
    grants_with_children: withChildren.map((row) => row.parent_grant_id!),
  };
}

/** The store's grant row in the graph's terms: decide-form scope, `ns:card_token:<id>`. */
export function toGraphGrant(row: GraphGrantRow): GraphGrant {
  return {
    grant_id: row.grant_id,
    parent_grant_id: row.parent_grant_id,
    root_grant_id: row.root_grant_id,
    depth: row.depth,
    principal_entity_id: row.principal_entity_id,
    actor_entity_id: row.actor_entity_id,
    capability_id: row.capability_id,
    card_token_id: cardTokenOf(row.resource_id),
    state: row.state,
    scope: toDecideScope(JSON.parse(row.scope) as StoredScope),
    mandate_id: row.mandate_id ?? null,
  };
}

/** `ns:credential:card-token:<id>` (the grant's resource) as `ns:card_token:<id>`. */
export function cardTokenOf(resourceId: string): string {
  return resourceId.replace(/^ns:credential:card-token:/, 'ns:card_token:');
}

/** `ns:card_token:<id>` as the grant's resource id. */
export function resourceOf(cardTokenId: string): string {
  return cardTokenId.replace(/^ns:card_token:/, 'ns:credential:card-token:');
}

async function sequentially(reads: readonly (() => Promise<unknown>)[]): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const read of reads) out.push(await read());
  return out;
}

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

async function inChunks<T, R>(items: readonly T[], read: (part: T[]) => Promise<R[]>): Promise<R[]> {
  const out: R[] = [];
  for (const part of chunks(items)) out.push(...(await read(part)));
  return out;
}
