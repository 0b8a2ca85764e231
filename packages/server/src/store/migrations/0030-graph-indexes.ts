import type { Kysely } from 'kysely';

/**
 * Indexes for the authority graph
 * queries (services/graph/*), each a page of one owner's grants in store order, so a query reads its page and never
 * the whole `grants` table:
 * - `grants_principal` (principal_entity_id, seq): a principal's graph (`GET /v1/graph/principals/{id}`);
 * - `grants_resource` (resource_id, seq): who can spend on a card token (`.../card-tokens/{id}/spenders`);
 * - `grants_actor_seq` (actor_entity_id, seq): what an agent may do (`.../agents/{id}/capabilities`) without sorting
 *   every grant the agent holds (grants_actor_principal serves the principal-restricted form and the paths query).
 * Without them each of the first two scans every grant: ~0.6 s over 100,000 grants (bench/graph.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('grants_principal').on('grants').columns(['principal_entity_id', 'seq']).execute();
  await db.schema.createIndex('grants_resource').on('grants').columns(['resource_id', 'seq']).execute();
  await db.schema.createIndex('grants_actor_seq').on('grants').columns(['actor_entity_id', 'seq']).execute();
}
