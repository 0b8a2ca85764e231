/**
 * Migration 0017 on each database: the policy tables hold only the service's transitions (write-once but for their
 * state columns), and changes of activations and packs move the grant version every instance's caches check.
 */
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/store/index.ts';
import { testDialects } from '../support/dialects.ts';
import { startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const dialects = await testDialects();
const AT = '2026-01-01T00:00:00.000Z';
const DIGEST = `sha-256:${'A'.repeat(43)}`;

describe.each(dialects)('policy tables on %s', (dialect) => {
  let rt: TestRuntime;
  const db = (): Kysely<Database> => rt.ctx.store.db;
  const version = async () =>
    Number((await db().selectFrom('grant_version').select('version').executeTakeFirstOrThrow()).version);
  const refused = async (run: () => Promise<unknown>) => {
    await expect(run()).rejects.toThrow(/write-once|refused|constraint|violates|unique/i);
  };

  beforeAll(async () => {
    rt = await startTestRuntime({ dialect });
  });
  afterAll(async () => rt?.close());

  it('moves a draft to published to retired, and nothing else', async () => {
    const row = {
      name: 'store-test',
      version: '1.0.0',
      pack_id: 'ns:rule_pack:store-test',
      domain: 'purchase' as const,
      state: 'draft' as const,
      document: '{}',
      digest: null,
      origin: 'operator' as const,
      created_at: AT,
      updated_at: AT,
    };
    const before = await version();
    await db().insertInto('rule_packs').values(row).execute();
    expect(await version()).toBeGreaterThan(before);
    const where = () => db().updateTable('rule_packs').where('name', '=', 'store-test');
    // a new draft document: allowed; a draft with a digest, or retired straight away: refused
    await where().set({ document: '{"a":1}' }).execute();
    await refused(() => where().set({ digest: DIGEST }).execute());
    await refused(() => where().set({ state: 'retired' }).execute());
    await where().set({ state: 'published', digest: DIGEST, document: '{"signed":1}' }).execute();
    // published: the document, digest, domain and identity never change again; back to draft neither
    await refused(() => where().set({ document: '{"signed":2}' }).execute());
    await refused(() => where().set({ domain: 'generic' }).execute());
    await refused(() => where().set({ name: 'other' }).execute());
    await refused(() => where().set({ state: 'draft', digest: null }).execute());
    await where().set({ state: 'retired' }).execute();
    await refused(() => where().set({ state: 'published' }).execute());
    await refused(() => db().deleteFrom('rule_packs').where('name', '=', 'store-test').execute());
    await refused(() => db().insertInto('rule_packs').values(row).execute());
  });

  it('deactivates an activation once, and moves the grant version', async () => {
    const before = await version();
    await db()
      .insertInto('rule_activations')
      .values({
        activation_id: 'ns:rule_activation:00000000-0000-7000-8000-000000000001',
        pack_name: 'store-test',
        version: '1.0.0',
        digest: DIGEST,
        target_kind: 'deployment',
        target_id: null,
        mode: 'enforce',
        state: 'active',
        sector_pack: null,
        created_at: AT,
        updated_at: AT,
      })
      .execute();
    expect(await version()).toBeGreaterThan(before);
    const where = () => db().updateTable('rule_activations').where('pack_name', '=', 'store-test');
    await refused(() => where().set({ mode: 'shadow' }).execute());
    await refused(() => where().set({ target_kind: 'principal', target_id: 'ns:entity:person:x' }).execute());
    const mid = await version();
    await where().set({ state: 'deactivated', updated_at: AT }).execute();
    expect(await version()).toBeGreaterThan(mid);
    await refused(() => where().set({ state: 'active' }).execute());
    await refused(() => db().deleteFrom('rule_activations').execute());
    // a deployment activation names no target id; a principal one must
    await refused(() =>
      db()
        .insertInto('rule_activations')
        .values({
          activation_id: 'ns:rule_activation:00000000-0000-7000-8000-000000000002',
          pack_name: 'store-test',
          version: '1.0.0',
          digest: DIGEST,
          target_kind: 'principal',
          target_id: null,
          mode: 'enforce',
          state: 'active',
          sector_pack: null,
          created_at: AT,
          updated_at: AT,
        })
        .execute(),
    );
  });

  it('keeps a finished backtest as it ended', async () => {
    await db()
      .insertInto('backtests')
      .values({
        backtest_id: 'ns:backtest:00000000-0000-7000-8000-000000000003',
        pack_name: 'store-test',
        version: '1.0.0',
        params: '{}',
        state: 'running',
        created_at: AT,
        updated_at: AT,
      })
      .execute();
    const where = () => db().updateTable('backtests').where('pack_name', '=', 'store-test');
    await where().set({ done_count: 5, total_count: 10 }).execute();
    await where().set({ state: 'done', done_count: 10, result: '{}' }).execute();
    await refused(() => where().set({ result: '{"x":1}' }).execute());
    await refused(() => db().deleteFrom('backtests').execute());
    expect(dialect === 'sqlite' || dialect === 'postgres').toBe(true);
    void sql;
  });
});
