/**
 * The facts authorize caches beside its grant chains (entities and agent keys, card tokens, merchants, risk states;
 * services/authorize/cached-facts.ts) follow the grant version, which migration 0009 moves on every change of those
 * tables. A second instance on the same store (SQLite file, PostgreSQL schema), whose cache never hears a
 * notification, must see a suspension, a new merchant or a risk signal made through the first on its next read; and
 * one instance must deny at once after a suspension, however warm its cache.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/app-context.ts';
import { loadConfig } from '../../src/config.ts';
import { openRuntime } from '../../src/runtime.ts';
import { FactReader } from '../../src/services/authorize/cached-facts.ts';
import { GrantCache } from '../../src/services/authorize/grant-cache.ts';
import { buildDelegationWorld, type DelegationWorld } from '../support/delegation-world.ts';
import { testDialects } from '../support/dialects.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const PLANNER = 'ns:entity:agent:planner';
const NEW_MERCHANT = 'bakery-9';

for (const dialect of await testDialects()) {
  describe(`fact cache across instances (${dialect})`, () => {
    let a: TestRuntime;
    let b: AppContext;
    let bDir: string;
    let w: DelegationWorld;

    beforeAll(async () => {
      a = await startTestRuntime({ dialect });
      w = await buildDelegationWorld(await a.app.listen({ host: '127.0.0.1', port: 0 }), ADMIN_TOKEN);
      bDir = mkdtempSync(join(tmpdir(), 'aar-facts-b-'));
      const config = loadConfig(
        { AAR_DATA_DIR: dialect === 'sqlite' ? a.dataDir : bDir, AAR_ISSUER_URL: 'http://127.0.0.1:8082' },
        dialect === 'postgres' ? { databaseUrl: a.ctx.config.databaseUrl } : {},
      );
      b = await openRuntime(config, { migrate: false });
    });
    afterAll(async () => {
      await b?.store.close();
      await a?.close();
      rmSync(bDir, { recursive: true, force: true });
    });

    it('serves a fact from the cache while nothing changed, and reads it again after a change elsewhere', async () => {
      const cache = new GrantCache(b); // never started: no LISTEN, the version alone decides
      const first = new FactReader(b.store.db, cache, await cache.currentVersion());
      expect(await first.entity(PLANNER)).toMatchObject({ entity_id: PLANNER, state: 'active' });
      expect(await first.merchant(NEW_MERCHANT)).toBeNull();
      expect(await first.risk(PLANNER)).toBeNull();

      // same version: every fact answers synchronously from the cache, absences included
      const second = new FactReader(b.store.db, cache, await cache.currentVersion());
      expect(second.version).toBe(first.version);
      const cached = second.entity(PLANNER);
      expect(cached).not.toBeInstanceOf(Promise);
      expect(cached).toMatchObject({ state: 'active' });
      expect(second.merchant(NEW_MERCHANT)).toBeNull();

      // changes through instance A: B's cache hears nothing, yet its next reader sees all of them
      expect((await w.call('POST', `/v1/entities/${PLANNER}/suspend`)).status).toBe(200);
      const third = new FactReader(b.store.db, cache, await cache.currentVersion());
      expect(third.version).toBeGreaterThan(first.version);
      expect(await third.entity(PLANNER)).toMatchObject({ state: 'suspended' });

      const merchant = { id: 'bakery-9', display_name: 'Bakery', category: '5462', jurisdiction: 'DE' };
      expect((await w.call('POST', '/v1/merchants', merchant)).status).toBe(201);
      const fourth = new FactReader(b.store.db, cache, await cache.currentVersion());
      expect(await fourth.merchant(NEW_MERCHANT)).toMatchObject({ category: '5462', state: 'active' });

      const signal = await w.call('POST', '/v1/risk-signals', { entity_id: PLANNER, risk_state: 'elevated' });
      expect(signal.status).toBe(200);
      const fifth = new FactReader(b.store.db, cache, await cache.currentVersion());
      expect(await fifth.risk(PLANNER)).toMatchObject({ risk_state: 'elevated' });

      // a reader still holding the old version never stores its rows over the newer cache
      await third.entity('ns:entity:agent:helper');
      const sixth = new FactReader(b.store.db, cache, await cache.currentVersion());
      expect(sixth.entity('ns:entity:agent:helper')).toBeInstanceOf(Promise);
      expect((await w.call('POST', `/v1/entities/${PLANNER}/activate`)).status).toBe(200);
    });

    it('denies the next authorize after the agent is suspended, with the cache warm', async () => {
      const leaf = await w.delegate(w.root.grant_id, 'concierge', 'ns:entity:agent:shopper-1', {});
      expect(leaf.status).toBe(201);
      for (let i = 0; i < 3; i++) {
        const allowed = await w.authorize('shopper-1', w.purchase('shopper-1', 5));
        expect(allowed.body).toMatchObject({ decision: 'allow_with_constraints' });
      }
      const shopper = 'ns:entity:agent:shopper-1';
      expect((await w.call('POST', `/v1/entities/${shopper}/suspend`)).status).toBe(200);
      const denied = await w.authorize('shopper-1', w.purchase('shopper-1', 5));
      expect(denied.body).toMatchObject({ decision: 'deny', reason: 'actor_inactive' });
      expect((await w.call('POST', `/v1/entities/${shopper}/activate`)).status).toBe(200);
      const again = await w.authorize('shopper-1', w.purchase('shopper-1', 5));
      expect(again.body).toMatchObject({ decision: 'allow_with_constraints' });
    });
  });
}
