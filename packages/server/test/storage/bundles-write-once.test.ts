/**
 * Stored proof bundles are write-once on each database (migration 0011, CONTRACT sections 8 and 12): after a bundle
 * is assembled the database itself refuses an UPDATE of its document, a DELETE, a REPLACE (SQLite) or an upsert of
 * its key, and TRUNCATE (PostgreSQL); the stored bytes stay what GET /v1/bundles/{id} serves.
 */
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { testDialects } from '../support/dialects.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const dialects = await testDialects();

describe.each(dialects)('bundles are write-once on %s', (dialect) => {
  let rt: TestRuntime;
  let bundleId: string;
  let stored: string;
  beforeEach(async () => {
    rt = await startTestRuntime({ dialect });
    const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    const world = await buildPurchaseWorld(base, ADMIN_TOKEN);
    const decision = (await world.authorize(world.purchase(30))).body;
    const res = await world.call('POST', '/v1/bundles/assemble', { policy_decision_id: decision.policy_decision_id });
    expect(res.status).toBe(201);
    bundleId = res.body.bundle_id;
    stored = (await rt.ctx.store.db.selectFrom('bundles').select('document').executeTakeFirstOrThrow()).document;
  });
  afterEach(async () => rt?.close());

  it('refuses update, delete, replace, upsert and truncate, and keeps the stored bytes', async () => {
    const db = rt.ctx.store.db;
    const attempts = [
      () => db.updateTable('bundles').set({ document: '{}' }).where('bundle_id', '=', bundleId).execute(),
      () => db.updateTable('bundles').set({ created_by: 'ns:token:mallory' }).execute(),
      () => db.deleteFrom('bundles').where('bundle_id', '=', bundleId).execute(),
      () =>
        db
          .insertInto('bundles')
          .values({ bundle_id: bundleId, policy_decision_id: 'x', document: '{}', created_by: null, created_at: 'x' })
          .onConflict((oc) => oc.column('bundle_id').doUpdateSet({ document: '{}' }))
          .execute(),
      dialect === 'sqlite'
        ? () =>
            sql`insert or replace into bundles (bundle_id, policy_decision_id, document, created_at)
              values (${bundleId}, 'x', '{}', 'x')`.execute(db)
        : () => sql`truncate bundles`.execute(db),
    ];
    for (const attempt of attempts) await expect(attempt()).rejects.toThrow(/write-once|refused/);
    const after = await db.selectFrom('bundles').select('document').where('bundle_id', '=', bundleId).execute();
    expect(after.map((r) => r.document)).toEqual([stored]);
  });
});
