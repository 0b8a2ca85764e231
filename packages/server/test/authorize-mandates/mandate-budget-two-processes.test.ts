/**
 * The issue's budget claim across a scaled deployment: two `aar serve` processes on one PostgreSQL, 50 purchases at
 * once under one AP2 mandate (500.00 EUR a month), 30.00 EUR each, half to each process: exactly floor(500 / 30) = 16
 * are allowed and the rest are `budget_exceeded`; the store holds exactly 16 reservations against the mandate's
 * grant, 480.00 EUR in its counters. Only the budget can refuse (alice's grant allows 10 000.00 a day).
 * Then ten purchases race for one ACP allowance on both processes: exactly one is allowed, nine `allowance_used`.
 * PostgreSQL only (SQLite is one writer in one process); the mandate is made here with the SD-JWT library and fresh
 * keys, against the processes' real clocks.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createRequestSigner, type RequestSigner } from '@aar/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/index.ts';
import { testDialects } from '../support/dialects.ts';
import { startPgCluster, type PgCluster } from '../support/pg-cluster.ts';
import { buildPurchaseWorld, type CallResult } from '../support/purchase-world.ts';
import { deliverAuthorize, signAuthorize } from '../support/signed-authorize.ts';
import { ADMIN_TOKEN } from '../support/test-runtime.ts';
import {
  ISSUER,
  OPEN_PAYMENT_FRAME,
  issueHop,
  openPaymentContent,
  parties,
} from '../../../core/test/mandates/support/build-chain.ts';

const dialects = await testDialects();
const CONCURRENT = 50;
const AMOUNT = 30;
const BUDGET = 500;
const ALLOWED = Math.floor(BUDGET / AMOUNT);

describe.runIf(dialects.includes('postgres'))('a mandate budget across two processes on postgres', () => {
  let cluster: PgCluster | undefined;
  let store: Store | undefined;
  let world: Awaited<ReturnType<typeof buildPurchaseWorld>>;
  let mandateId: string;
  let mandateGrantId: string;
  /** the agent the mandate is given to (alice's grant is held by her platform agent, shopper-1) */
  let buyer: RequestSigner;

  beforeAll(async () => {
    cluster = await startPgCluster(2, ADMIN_TOKEN);
    store = openStore({ databaseUrl: cluster.databaseUrl, poolSize: 2 });
    world = await buildPurchaseWorld(cluster.servers[0]!.base, ADMIN_TOKEN, {
      scope: {
        max_amount_per_purchase: { amount: 300, currency: 'EUR' },
        max_daily_amount: { amount: 10_000, currency: 'EUR' },
        allowed_jurisdictions: ['DE'],
        may_delegate: true,
        max_delegation_depth: 1,
        valid_until: new Date(Date.now() + 365 * 86_400_000).toISOString(),
      },
    });
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const pub = publicKey.export({ format: 'jwk' });
    await world.must('POST', '/v1/entities', {
      type: 'agent',
      id: 'buyer-1',
      display_name: 'Buyer',
      public_key_jwk: { kty: pub.kty, crv: pub.crv, x: pub.x },
    });
    buyer = createRequestSigner({
      keyId: 'ns:entity:agent:buyer-1',
      privateJwk: privateKey.export({ format: 'jwk' }) as never,
    });
    const p = await parties();
    await world.must('POST', '/v1/mandate-issuers', {
      issuer: ISSUER,
      format: 'ap2',
      jwks: { keys: [p.issuer.publicJwk] },
    });
    const now = Math.floor(Date.now() / 1000);
    const open = await issueHop(
      p.issuer,
      { typ: 'dc+sd-jwt', kid: 'issuer-key-1' },
      {
        iss: ISSUER,
        iat: now - 100,
        delegate_payload: [openPaymentContent(p.agent.publicJwk, { iat: now - 100, exp: now + 3600 })],
      },
      OPEN_PAYMENT_FRAME,
    );
    const mandate = await world.must('POST', '/v1/mandates', {
      format: 'ap2',
      presentation: open,
      parent_grant_id: world.grant.grant_id,
      actor_entity_id: 'ns:entity:agent:buyer-1',
      payees: { merchant_1: 'grocer-1', merchant_2: 'grocer-1' },
    });
    mandateId = mandate.mandate_id;
    mandateGrantId = mandate.grant.grant_id;
  }, 90_000);
  afterAll(async () => {
    await store?.close();
    await cluster?.stop();
  }, 30_000);

  it(`allows exactly ${ALLOWED} of ${CONCURRENT} concurrent ${AMOUNT} EUR purchases against a ${BUDGET} EUR budget`, async () => {
    const servers = cluster!.servers;
    const results: CallResult[] = await Promise.all(
      Array.from({ length: CONCURRENT }, async (_, i) => {
        const to = servers[i % servers.length]!.base;
        const body = world.purchase(AMOUNT, {
          actor_entity_id: 'ns:entity:agent:buyer-1',
          mandate: { mandate_id: mandateId },
        });
        return deliverAuthorize(await signAuthorize(buyer, to, body), { to, runtimeToken: world.runtimeToken });
      }),
    );
    const summary: Record<string, number> = {};
    for (const r of results) {
      const key = r.status === 200 ? `${r.body.decision}/${r.body.reason}` : `http ${r.status}`;
      summary[key] = (summary[key] ?? 0) + 1;
    }
    expect(summary, cluster!.output()).toEqual({
      'allow_with_constraints/scope_within_attenuated_authority': ALLOWED,
      'deny/budget_exceeded': CONCURRENT - ALLOWED,
    });

    const db = store!.db;
    const ids = results.map((r) => r.body.policy_decision_id as string);
    const reserved = await db
      .selectFrom('decisions')
      .select(['leaf_grant_id'])
      .where('policy_decision_id', 'in', ids)
      .where('outcome', '=', 'reserved')
      .execute();
    expect(reserved).toHaveLength(ALLOWED);
    expect(reserved.every((d) => d.leaf_grant_id === mandateGrantId)).toBe(true);
    const counters = await db
      .selectFrom('spend_counters')
      .select(['reserved_minor'])
      .where('grant_id', '=', mandateGrantId)
      .execute();
    expect(counters.reduce((sum, c) => sum + Number(c.reserved_minor), 0)).toBe(ALLOWED * AMOUNT * 100);
  }, 90_000);
  it('spends a one-time ACP allowance once when ten purchases race for it on both processes', async () => {
    const allowance = await world.call(
      'POST',
      '/v1/allowances',
      {
        format: 'acp',
        allowance: {
          reason: 'one_time',
          max_amount: 2000,
          currency: 'eur',
          checkout_session_id: 'csn_race_1',
          merchant_id: 'grocer-1',
          expires_at: new Date(Date.now() + 1800_000).toISOString(),
        },
        vaulted_token_id: 'vt_race_1',
        parent_grant_id: world.grant.grant_id,
        actor_entity_id: 'ns:entity:agent:buyer-1',
      },
      ADMIN_TOKEN,
      { 'idempotency-key': 'race-1' },
    );
    expect(allowance.status, JSON.stringify(allowance.body)).toBe(201);
    const servers = cluster!.servers;
    const results = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const to = servers[i % servers.length]!.base;
        const body = world.purchase(15, {
          actor_entity_id: 'ns:entity:agent:buyer-1',
          mandate: { mandate_id: allowance.body.allowance_id },
        });
        return deliverAuthorize(await signAuthorize(buyer, to, body), { to, runtimeToken: world.runtimeToken });
      }),
    );
    const outcomes = results.map((r) =>
      r.status === 200 ? `${r.body.decision}/${r.body.reason}` : `http ${r.status}`,
    );
    expect(
      outcomes.filter((o) => o.startsWith('allow_with_constraints')),
      cluster!.output(),
    ).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'deny/allowance_used')).toHaveLength(9);
    const row = await store!.db
      .selectFrom('mandates')
      .select('used_by')
      .where('mandate_id', '=', allowance.body.allowance_id)
      .executeTakeFirstOrThrow();
    expect(row.used_by).toBe(
      results.find((r) => r.body.decision === 'allow_with_constraints')!.body.policy_decision_id,
    );
  }, 60_000);
});
