/**
 * A large delegation subtree for cascade tests and benchmarks, inserted directly (the API would need 100k signed
 * requests): under `root`, `middles` grants at depth 1 and the rest spread evenly below them at depth 2, until the
 * subtree (root included) holds `size` grants. Rows look like the API's: a scope, a link document of the same size
 * as a real delegated link (a copy of `template`'s with the ids replaced; its signature no longer verifies, which a
 * revocation never reads), actors from a pool of agent entities. The grant-version triggers fire as for any insert.
 */
import type { AppContext } from '../../src/app-context.ts';
import { insertRowsBulk } from './insert-rows-bulk.ts';

export interface GrantTreeOptions {
  /** the grant to hang the subtree under (depth 0) */
  root: { grant_id: string; principal_entity_id: string; resource_id: string; capability_id: string };
  /** grants in the subtree, the root included */
  size: number;
  /** a real delegated link document (JSON text) whose size the filler documents take */
  template: string;
  /** grants at depth 1 (default √size) */
  middles?: number;
}

const COLUMNS = [
  'grant_id',
  'parent_grant_id',
  'root_grant_id',
  'depth',
  'principal_entity_id',
  'actor_entity_id',
  'capability_id',
  'resource_id',
  'scope',
  'state',
  'document',
  'delegator_signature',
  'created_by',
  'created_at',
  'updated_at',
  'revoked_at',
] as const;

const ACTOR_POOL = 100;

/** Inserts the filler grants; returns their ids (depth-1 ids first). */
export async function insertGrantTree(ctx: AppContext, options: GrantTreeOptions): Promise<string[]> {
  const { root, size, template } = options;
  const middles = Math.min(size - 1, options.middles ?? Math.max(1, Math.round(Math.sqrt(size))));
  const now = ctx.clock.now().toISOString();
  const actors = Array.from({ length: ACTOR_POOL }, (_, i) => `ns:entity:agent:tree-${i}`);
  const scope = JSON.stringify({ max_amount_per_purchase: { minor: 1000, currency: 'EUR' } });
  const rootUuid = root.grant_id.slice(-12);
  const id = (n: number) =>
    `ns:authority:grant:0196ffff-${rootUuid.slice(0, 4)}-7${rootUuid.slice(4, 7)}-8${String(n).padStart(11, '0').slice(-3)}-${String(n).padStart(12, '0')}`;
  await ctx.store.db.transaction().execute(async (trx) => {
    const existing = new Set(
      (await trx.selectFrom('entities').select('entity_id').where('entity_id', 'in', actors).execute()).map(
        (e) => e.entity_id,
      ),
    );
    const missing = actors.filter((a) => !existing.has(a));
    await insertRowsBulk(
      trx,
      ctx.store.dialect,
      'entities',
      ['entity_id', 'type', 'display_name', 'public_key_jwk', 'key_thumbprint', 'state', 'created_at', 'updated_at'],
      missing.map((a) => [a, 'agent', null, null, null, 'active', now, now]),
    );
    const rows: unknown[][] = [];
    for (let n = 1; n < size; n++) {
      const middle = n <= middles;
      const grantId = id(n);
      const parent = middle ? root.grant_id : id(1 + ((n - middles - 1) % middles));
      const document = template.replaceAll(/ns:authority:grant:[0-9a-f-]{36}/g, grantId);
      rows.push([
        grantId,
        parent,
        root.grant_id,
        middle ? 1 : 2,
        root.principal_entity_id,
        actors[n % ACTOR_POOL],
        root.capability_id,
        root.resource_id,
        scope,
        'active',
        document,
        null,
        null,
        now,
        now,
        null,
      ]);
    }
    await insertRowsBulk(trx, ctx.store.dialect, 'grants', COLUMNS, rows);
  });
  return Array.from({ length: size - 1 }, (_, i) => id(i + 1));
}
