/**
 * The purchase counters a velocity rule reads are counted under the principal's lock inside the decision's
 * transaction (services/authorize/purchase-counters.ts): concurrent requests, on TWO instances sharing one database,
 * never both pass a rule allowing three purchases an hour. Ten purchases at once, five through each instance: exactly
 * three allowed, seven denied with the rule's reason. On SQLite (one writer) and PostgreSQL (advisory locks).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/app-context.ts';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openRuntime } from '../../src/runtime.ts';
import { testDialects } from '../support/dialects.ts';
import { inOneYear } from '../support/fixtures.ts';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';
import { E2E_PACK } from './e2e-pack.ts';

const HOURLY_PACK = {
  ...E2E_PACK,
  pack_id: 'ns:rule_pack:hourly_only',
  reasons: E2E_PACK.reasons.filter((r) => r.code === 'hourly_count_exceeded'),
  rules: E2E_PACK.rules
    .filter((r) => r.rule_id === 'hourly')
    .map((r) => ({ ...r, reason: 'hourly_only.hourly_count_exceeded' })),
  tests: [
    {
      name: 'fourth purchase denied',
      context: { request: { action: 'execute' }, facts: { counters: { purchases_1h: 3 } } },
      expect: { effect: 'deny', reason: 'hourly_only.hourly_count_exceeded' },
    },
    {
      name: 'third purchase passes',
      context: { request: { action: 'execute' }, facts: { counters: { purchases_1h: 2 } } },
      expect: { effect: 'none' },
    },
  ],
};

for (const dialect of await testDialects()) {
  describe(`a velocity rule under concurrency, two instances (${dialect})`, () => {
    let a: TestRuntime;
    let b: AppContext;
    let bApp: FastifyInstance;
    let bDir: string;
    let runtimeToken: string;

    beforeAll(async () => {
      const config = { requireSignedRequests: false, rateLimit: 1_000_000 };
      a = await startTestRuntime({ dialect, config });
      const base = await a.app.listen({ host: '127.0.0.1', port: 0 });
      const world = await buildPurchaseWorld(base, ADMIN_TOKEN, {
        scope: {
          max_amount_per_purchase: { amount: 50, currency: 'EUR' },
          max_daily_amount: { amount: 1000, currency: 'EUR' },
          valid_until: inOneYear(),
        },
      });
      runtimeToken = world.runtimeToken;
      await world.must('POST', '/v1/rule-packs', HOURLY_PACK);
      await world.must('POST', '/v1/rule-packs/hourly_only/versions/1.0.0/publish');
      await world.must('POST', '/v1/rule-activations', {
        pack_id: 'hourly_only',
        version: '1.0.0',
        target: { principal_entity_id: 'ns:entity:person:alice' },
        mode: 'enforce',
      });
      bDir = mkdtempSync(join(tmpdir(), 'aar-velocity-b-'));
      b = await openRuntime(
        loadConfig(
          { AAR_DATA_DIR: dialect === 'sqlite' ? a.dataDir : bDir, AAR_ISSUER_URL: 'http://127.0.0.1:8082' },
          { ...config, ...(dialect === 'postgres' ? { databaseUrl: a.ctx.config.databaseUrl } : {}) },
        ),
        { migrate: false },
      );
      bApp = await buildApp(b);
    }, 120_000);

    afterAll(async () => {
      await bApp?.close();
      await b?.store.close();
      await a?.close();
      rmSync(bDir, { recursive: true, force: true });
    });

    it('lets exactly three of ten simultaneous purchases through', async () => {
      const body = {
        actor_entity_id: 'ns:entity:agent:shopper-1',
        principal_entity_id: 'ns:entity:person:alice',
        subject: 'ns:capability:payment_action:card_purchase',
        resource: { merchant_id: 'grocer-1', amount: 5, currency: 'EUR' },
        scope: { instrument: 'ns:card_token:tok-1' },
      };
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 === 0 ? a.app : bApp).inject({
            method: 'POST',
            url: '/v1/runtime/authorize',
            headers: { authorization: `Bearer ${runtimeToken}` },
            payload: body,
          }),
        ),
      );
      const outcomes = answers.map((r) => {
        expect(r.statusCode, r.body).toBe(200);
        const json = r.json() as { decision: string; reason: string };
        return `${json.decision} ${json.reason}`;
      });
      expect(outcomes.filter((o) => o.startsWith('allow_with_constraints'))).toHaveLength(3);
      expect(outcomes.filter((o) => o === 'deny hourly_only.hourly_count_exceeded')).toHaveLength(7);
    }, 60_000);
  });
}
