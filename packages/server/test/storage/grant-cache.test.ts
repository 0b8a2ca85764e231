/**
 * The grant cache of a second instance on the same store (SQLite file, PostgreSQL schema): it is used only at the
 * grant version it was filled at, so a revocation or a new grant made through another instance is seen by the very
 * next lookup, with or without a notification. On PostgreSQL the NOTIFY also reaches a listening cache.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openRuntime } from '../../src/runtime.ts';
import type { AppContext } from '../../src/app-context.ts';
import { GrantCache } from '../../src/services/authorize/grant-cache.ts';
import { loadGrantChain } from '../../src/services/authorize/grant-chain.ts';
import { testDialects } from '../support/dialects.ts';
import { buildDelegationWorld, type DelegationWorld } from '../support/delegation-world.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

for (const dialect of await testDialects()) {
  describe(`grant cache across instances (${dialect})`, () => {
    let a: TestRuntime;
    let b: AppContext;
    let bDir: string;
    let w: DelegationWorld;

    beforeAll(async () => {
      a = await startTestRuntime({ dialect });
      w = await buildDelegationWorld(await a.app.listen({ host: '127.0.0.1', port: 0 }), ADMIN_TOKEN);
      bDir = mkdtempSync(join(tmpdir(), 'aar-b-'));
      // instance B: its own data dir (keys); the same store as A
      const config = loadConfig(
        { AAR_DATA_DIR: dialect === 'sqlite' ? a.dataDir : bDir, AAR_ISSUER_URL: 'http://127.0.0.1:8081' },
        dialect === 'postgres' ? { databaseUrl: a.ctx.config.databaseUrl } : {},
      );
      b = await openRuntime(config, { migrate: false });
    });
    afterAll(async () => {
      await b?.store.close();
      await a?.close();
      rmSync(bDir, { recursive: true, force: true });
    });

    const lookup = (cache: GrantCache) =>
      loadGrantChain(
        b.store.db,
        cache,
        {
          actor_entity_id: 'ns:entity:agent:shopper-1',
          principal_entity_id: 'ns:entity:person:alice',
          action: 'execute',
          instrument_id: 'ns:card_token:tok-1',
        },
        new Date().toISOString(),
      );

    it('sees a revocation made elsewhere on the next lookup, without any notification', async () => {
      const cache = new GrantCache(b); // never started: no LISTEN
      expect((await lookup(cache)).lookup).toBe('authority_not_found');
      const middle = await w.delegate(w.root.grant_id, 'concierge', 'ns:entity:agent:planner', {});
      const leaf = await w.delegate(middle.body.grant_id, 'planner', 'ns:entity:agent:shopper-1', {});
      const found = await lookup(cache);
      expect(found.rows.map((r) => [r.grant_id, r.state])).toEqual([
        [w.root.grant_id, 'active'],
        [middle.body.grant_id, 'active'],
        [leaf.body.grant_id, 'active'],
      ]);
      const again = await lookup(cache);
      expect(again.rows.map((r) => r.state)).toEqual(['active', 'active', 'active']);
      const hits = cache.stats.hits;
      await lookup(cache);
      expect(cache.stats.hits).toBe(hits + 1); // served from the cache while nothing changed

      expect((await w.call('POST', `/v1/grants/${middle.body.grant_id}/revoke`)).status).toBe(200);
      const after = await lookup(cache);
      expect(after.rows.map((r) => r.state)).toEqual(['active', 'revoked', 'revoked']);
    });

    it.runIf(dialect === 'postgres')('empties a listening cache when another instance revokes', async () => {
      const cache = new GrantCache(b);
      await cache.start();
      try {
        expect(cache.stats.listening).toBe(true);
        const grant = await w.delegate(w.root.grant_id, 'concierge', 'ns:entity:agent:helper', {});
        const seen = cache.stats.notifications;
        await cache.currentVersion();
        expect((await w.call('POST', `/v1/grants/${grant.body.grant_id}/revoke`)).status).toBe(200);
        const deadline = Date.now() + 5000;
        while (cache.stats.notifications === seen && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
        expect(cache.stats.notifications).toBeGreaterThan(seen);
        expect(cache.stats.version).toBe(-1); // emptied: the next reader reloads
      } finally {
        await cache.stop();
      }
    });
  });
}
