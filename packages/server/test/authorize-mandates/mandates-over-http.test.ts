/**
 * Mandates at authorize, over real HTTP on SQLite and PostgreSQL (CONTRACT section 21, DESIGN-29): an AP2 open payment
 * mandate (a full chain made here with the SD-JWT library and test keys) registered through POST /v1/mandates becomes a
 * grant under alice's grant, used only when a purchase names it, by id or by presenting it closed for exactly that
 * purchase. Within it: allowed; above its per-purchase maximum `amount_above_agent_threshold`; past its monthly budget
 * `budget_exceeded`; at a merchant outside its payees `merchant_not_allowed`; after its revocation `mandate_revoked`;
 * past its `exp` `mandate_expired`; with alice's grant revoked `authority_revoked`. A presented closed mandate that is
 * not the purchase, or presented twice, is 422 `mandate_invalid` and nothing is recorded. An ACP allowance is one
 * purchase (`allowance_used` the second time). The decision map's delegation node names the mandate, and the evidence
 * pack carries the mandate with the presented closed presentation and verifies offline: the TS SDK, `aar verify-pack`
 * in a process with no store, and the server.
 */
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequestSigner, verifyEvidencePack, type RequestSigner } from '@aar/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/clock.ts';
import { bypassingGuards } from '../support/bypassing-guards.ts';
import { AAR_BIN } from '../support/spawn-server.ts';
import { testDialects } from '../support/dialects.ts';
import { expectSchemaValid } from '../support/schema-validation.ts';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';
import {
  AUDIENCE,
  ISSUER,
  NOW,
  OPEN_PAYMENT_FRAME,
  chain,
  closedPaymentContent,
  issueHop,
  kbHop,
  openPaymentContent,
  parties,
  userCredentialChain,
  type Parties,
} from '../../../core/test/mandates/support/build-chain.ts';

class SetClock implements Clock {
  at = NOW * 1000;
  now(): Date {
    return new Date(this.at);
  }
}

type World = Awaited<ReturnType<typeof buildPurchaseWorld>>;
type Decision = {
  decision: string;
  reason: string;
  policy_decision_id: string;
  evidence_refs: string[];
  decision_map: { nodes: Array<Record<string, unknown>> };
};

/** the agent the mandates are given to: alice's grant is held by her agent platform (shopper-1), not by it */
const BUYER = 'ns:entity:agent:buyer-1';

for (const dialect of await testDialects()) {
  describe(`mandates at authorize (${dialect})`, () => {
    const clock = new SetClock();
    let rt: TestRuntime;
    let world: World;
    let p: Parties;
    let base: string;
    let buyer: RequestSigner;

    beforeAll(async () => {
      rt = await startTestRuntime({ dialect, clock, config: { mandateAudiences: [AUDIENCE] } });
      base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
      world = await buildPurchaseWorld(base, ADMIN_TOKEN, {
        signerNow: () => Math.floor(clock.at / 1000),
        scope: {
          max_amount_per_purchase: { amount: 300, currency: 'EUR' },
          max_daily_amount: { amount: 5000, currency: 'EUR' },
          allowed_jurisdictions: ['DE', 'US'],
          may_delegate: true,
          max_delegation_depth: 1,
          valid_until: '2028-01-01T00:00:00Z',
        },
      });
      await world.must('POST', '/v1/merchants', {
        id: 'grocer-2',
        display_name: 'Grocer 2',
        category: '5411',
        jurisdiction: 'DE',
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
        keyId: BUYER,
        privateJwk: privateKey.export({ format: 'jwk' }) as never,
        now: () => Math.floor(clock.at / 1000),
      });
      p = await parties();
      await world.must('POST', '/v1/mandate-issuers', {
        issuer: ISSUER,
        format: 'ap2',
        jwks: { keys: [p.issuer.publicJwk] },
      });
    }, 60_000);
    afterAll(async () => rt?.close());

    /** A fresh open payment mandate (200.00 a purchase, 500.00 a month, payees merchant_1 and merchant_2). */
    const openMandate = () =>
      issueHop(
        p.issuer,
        { typ: 'dc+sd-jwt', kid: 'issuer-key-1' },
        { iss: ISSUER, iat: NOW - 100, delegate_payload: [openPaymentContent(p.agent.publicJwk)] },
        OPEN_PAYMENT_FRAME,
      );
    const register = async (open: string) =>
      (await world.must('POST', '/v1/mandates', {
        format: 'ap2',
        presentation: open,
        parent_grant_id: world.grant.grant_id,
        actor_entity_id: BUYER,
        payees: { merchant_1: 'grocer-1', merchant_2: 'grocer-2' },
      })) as { mandate_id: string; digest: string; grant: { grant_id: string } };
    /** `open` closed by the agent for one purchase of `minor` cents at merchant_1 with alice's card token */
    const close = async (open: string, minor: number, closed: Record<string, unknown> = {}) =>
      chain(
        open,
        await kbHop(p.agent, open, [
          closedPaymentContent({
            payment_amount: { amount: minor, currency: 'EUR' },
            payment_instrument: { id: 'ns:card_token:tok-1', type: 'card' },
            ...closed,
          }),
        ]),
      );
    /** a purchase signed by `agent` (default the mandates' agent), naming `mandate` when given */
    const buy = async (
      amount: number,
      mandate?: Record<string, string>,
      merchant = 'grocer-1',
      agent: 'buyer' | 'shopper' = 'buyer',
    ) => {
      const resource = { merchant_id: merchant, amount, currency: 'EUR' };
      const body = world.purchase(amount, {
        resource,
        ...(agent === 'buyer' ? { actor_entity_id: BUYER } : {}),
        ...(mandate ? { mandate } : {}),
      });
      if (agent === 'shopper') return world.authorize(body);
      const text = JSON.stringify(body);
      const url = `${base}/v1/runtime/authorize`;
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${world.runtimeToken}`,
          'content-type': 'application/json',
          ...(await buyer.sign({ method: 'POST', url, body: text })),
        },
        body: text,
      });
      return { status: res.status, body: await res.json() };
    };
    const decided = async (
      amount: number,
      mandate?: Record<string, string>,
      merchant?: string,
      agent?: 'buyer' | 'shopper',
    ) => {
      const res = await buy(amount, mandate, merchant, agent);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body as Decision;
    };
    const decisionCount = async () =>
      Number(
        (
          await rt.ctx.store.db
            .selectFrom('decisions')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    let allowanceId: string;
    let open: string;
    let mandate: { mandate_id: string; digest: string; grant: { grant_id: string } };
    let presented: Decision;

    it('uses a mandate grant only when the purchase names it, within its terms', async () => {
      open = await openMandate();
      mandate = await register(open);
      // not named: the mandate grant is no candidate (the agent holds no other grant), and alice's platform agent is
      // decided by her own grant as before
      const unnamed = await decided(20);
      expect([unnamed.decision, unnamed.reason]).toEqual(['deny', 'authority_not_found']);
      const platform = await decided(250, undefined, 'grocer-1', 'shopper');
      expect(platform.decision).toBe('allow_with_constraints');
      expect(platform.decision_map.nodes.find((n) => n.type === 'delegation')?.mandate_ref).toBeUndefined();

      const named = await decided(150, { mandate_id: mandate.mandate_id });
      expect([named.decision, named.reason]).toEqual(['allow_with_constraints', 'scope_within_attenuated_authority']);
      const node = named.decision_map.nodes.find((n) => n.type === 'delegation');
      expect(node?.mandate_ref).toBe(mandate.mandate_id);
      expect(String(node?.short)).toContain('AP2 mandate');

      const above = await decided(250, { mandate_id: mandate.mandate_id });
      expect([above.decision, above.reason]).toEqual(['deny', 'amount_above_agent_threshold']);
      const elsewhere = await decided(20, { mandate_id: mandate.mandate_id }, 'shop-us');
      expect([elsewhere.decision, elsewhere.reason]).toEqual(['deny', 'merchant_not_allowed']);
    });

    it('decides a presented closed mandate, refuses one that is not the purchase or is presented again', async () => {
      presented = await decided(199, { presentation: await close(open, 19900) });
      expect(presented.decision).toBe('allow_with_constraints'); // 349.00 of 500.00 this month
      expect((await decided(151, { presentation: await close(open, 15100) })).decision).toBe('allow_with_constraints');
      const over = await close(open, 100);
      const overBudget = await decided(1, { presentation: over });
      expect([overBudget.decision, overBudget.reason]).toEqual(['deny', 'budget_exceeded']);

      const before = await decisionCount();
      const replay = await buy(1, { presentation: over });
      expect(replay.status, JSON.stringify(replay.body)).toBe(422);
      expect(replay.body.code).toBe('mandate_invalid');
      expect(replay.body.errors.map((e: { code: string }) => e.code)).toEqual(['nonce_reused']);

      const notThis = await buy(60, { presentation: await close(open, 5000) });
      expect(notThis.status).toBe(422);
      expect(notThis.body.errors).toEqual([
        expect.objectContaining({ code: 'not_subset', path: '/mandate/presentation/hops/1/mandates/0/payment_amount' }),
      ]);
      const otherPayee = await buy(20, {
        presentation: await close(open, 2000, { payee: { id: 'merchant_2', name: 'x' } }),
      });
      expect(otherPayee.status).toBe(422);
      expect(otherPayee.body.errors[0].path).toMatch(/\/payee$/);
      const wrongAudience = await buy(20, {
        presentation: chain(
          open,
          await kbHop(p.agent, open, [closedPaymentContent({ payment_amount: { amount: 2000, currency: 'EUR' } })], {
            aud: 'https://someone-else.example',
          }),
        ),
      });
      expect(wrongAudience.status).toBe(422);
      expect(wrongAudience.body.errors.map((e: { code: string }) => e.code)).toContain('audience_mismatch');
      expect(await decisionCount()).toBe(before); // nothing recorded for any refusal
    });

    it('carries the mandate and the presented closed presentation in the evidence pack, verified offline', async () => {
      const pack = await world.must('GET', `/v1/evidence-packs/${presented.evidence_refs[0]}`);
      expect(pack.request.mandate.presentation.startsWith(`${open}~`)).toBe(true);
      expect(pack.snapshot.grants.at(-1).mandate).toEqual({
        mandate_id: mandate.mandate_id,
        format: 'ap2',
        digest: mandate.digest,
        single_use: false,
        used: false,
      });
      expect(pack.mandates).toEqual([
        {
          mandate_id: mandate.mandate_id,
          format: 'ap2',
          digest: mandate.digest,
          document: open,
          issuer: ISSUER,
          issuer_jwks: { keys: [p.issuer.publicJwk] },
          presented: pack.request.mandate.presentation,
        },
      ]);
      expectSchemaValid(pack);
      const jwks = await world.must('GET', '/.well-known/jwks.json');
      const offline = await verifyEvidencePack(pack, jwks);
      expect(offline.valid, JSON.stringify(offline.checks)).toBe(true);
      expect(offline.checks.find((c) => c.check === 'mandates')).toEqual({ check: 'mandates', valid: true });
      expect(offline.replay_decision?.matches).toBe(true);
      const served = await world.must('POST', '/v1/evidence-packs/verify', pack);
      expect(served.valid).toBe(true);
      // the CLI, in a process with no store and no keys: only the pack and the JWKS
      const dir = mkdtempSync(join(tmpdir(), 'aar-mandate-pack-'));
      try {
        writeFileSync(join(dir, 'pack.json'), JSON.stringify(pack));
        writeFileSync(join(dir, 'jwks.json'), JSON.stringify(jwks));
        const cli = await new Promise<{ code: number; stdout: string }>((resolve) => {
          execFile(
            process.execPath,
            [AAR_BIN, 'verify-pack', join(dir, 'pack.json'), '--jwks', join(dir, 'jwks.json'), '--json'],
            { env: { PATH: process.env.PATH ?? '', HOME: dir, AAR_DATA_DIR: join(dir, 'none'), AAR_FROM_SOURCE: '1' } },
            (error, stdout) => resolve({ code: error ? Number(error.code ?? -1) : 0, stdout }),
          );
        });
        expect(cli.code, cli.stdout).toBe(0);
        const result = JSON.parse(cli.stdout.trim()) as {
          valid: boolean;
          checks: Array<{ check: string; valid: boolean }>;
        };
        expect(result.valid).toBe(true);
        expect(result.checks.find((c) => c.check === 'mandates')?.valid).toBe(true);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }

      // the member is what the signed record's binding names: another document fails the named check
      const forged = structuredClone(pack);
      forged.mandates[0].document = `${open.slice(0, -2)}X~`;
      const refused = await verifyEvidencePack(forged, jwks);
      expect(refused.checks.find((c) => c.check === 'mandates')).toMatchObject({
        valid: false,
        failure: 'mandate_digest_mismatch',
      });
    });

    it("decides a user-credential chain: the device's key-binding hop registered, the agent's closing hop presented", async () => {
      // issuer -> user device (open payment mandate, its own key-binding nonce) -> agent (closed, presented here)
      const { hops } = await userCredentialChain(p);
      const registered = chain(hops[0]!, hops[1]!);
      const m = await register(registered);
      const closing = await kbHop(p.agent, hops[1]!, [
        closedPaymentContent({
          payment_amount: { amount: 4200, currency: 'EUR' },
          payment_instrument: { id: 'ns:card_token:tok-1', type: 'card' },
        }),
      ]);
      const allowed = await decided(42, { presentation: chain(registered, closing) });
      expect([allowed.decision, allowed.reason]).toEqual([
        'allow_with_constraints',
        'scope_within_attenuated_authority',
      ]);
      expect(allowed.decision_map.nodes.find((n) => n.type === 'delegation')?.mandate_ref).toBe(m.mandate_id);
      const pack = await world.must('GET', `/v1/evidence-packs/${allowed.evidence_refs[0]}`);
      expect(pack.mandates[0]).toMatchObject({ document: registered, presented: chain(registered, closing) });
      const offline = await verifyEvidencePack(pack, await world.must('GET', '/.well-known/jwks.json'));
      expect(offline.valid, JSON.stringify(offline.checks)).toBe(true);
      // the closing hop alone is new: presented again, its nonce is refused
      expect((await buy(42, { presentation: chain(registered, closing) })).status).toBe(422);
    });

    it('denies mandate_revoked once the mandate is revoked, mandate_expired past its exp', async () => {
      await world.must('POST', `/v1/mandates/${mandate.mandate_id}/revoke`, {});
      const revoked = await decided(10, { mandate_id: mandate.mandate_id });
      expect([revoked.decision, revoked.reason]).toEqual(['deny', 'mandate_revoked']);

      const second = await register(await openMandate());
      expect((await decided(10, { mandate_id: second.mandate_id })).decision).toBe('allow_with_constraints');
      clock.at = (NOW + 3601) * 1000;
      const expired = await decided(10, { mandate_id: second.mandate_id });
      expect([expired.decision, expired.reason]).toEqual(['deny', 'mandate_expired']);
      clock.at = NOW * 1000;
    });

    it('allows one purchase under an ACP allowance, then allowance_used; its pack verifies', async () => {
      const allowance = (
        await world.call(
          'POST',
          '/v1/allowances',
          {
            format: 'acp',
            allowance: {
              reason: 'one_time',
              max_amount: 2000,
              currency: 'eur',
              checkout_session_id: 'csn_01HV3P3XYZ9ABC',
              merchant_id: 'grocer-1',
              expires_at: new Date((NOW + 1800) * 1000).toISOString(),
            },
            vaulted_token_id: 'vt_01J8Z3WXYZ9ABC',
            parent_grant_id: world.grant.grant_id,
            actor_entity_id: BUYER,
          },
          ADMIN_TOKEN,
          { 'idempotency-key': `idem-${dialect}` },
        )
      ).body as { allowance_id: string };
      expect(allowance.allowance_id).toMatch(/^ns:allowance:/);
      allowanceId = allowance.allowance_id;
      const first = await decided(20, { mandate_id: allowance.allowance_id });
      expect(first.decision).toBe('allow_with_constraints');
      expect(String(first.decision_map.nodes.find((n) => n.type === 'delegation')?.short)).toContain('ACP allowance');
      const second = await decided(5, { mandate_id: allowance.allowance_id });
      expect([second.decision, second.reason]).toEqual(['deny', 'allowance_used']);
      const row = await rt.ctx.store.db
        .selectFrom('mandates')
        .select('used_by')
        .where('mandate_id', '=', allowance.allowance_id)
        .executeTakeFirstOrThrow();
      expect(row.used_by).toBe(first.policy_decision_id);

      const pack = await world.must('GET', `/v1/evidence-packs/${first.evidence_refs[0]}`);
      expect(pack.mandates).toHaveLength(1);
      expect(pack.mandates[0]).toMatchObject({ mandate_id: allowance.allowance_id, format: 'acp' });
      expectSchemaValid(pack);
      const offline = await verifyEvidencePack(pack, await world.must('GET', '/.well-known/jwks.json'));
      expect(offline.valid, JSON.stringify(offline.checks)).toBe(true);
    });

    it("denies authority_revoked once alice's grant above the mandate is revoked", async () => {
      const third = await register(await openMandate());
      expect((await decided(10, { mandate_id: third.mandate_id })).decision).toBe('allow_with_constraints');
      await world.must('POST', `/v1/grants/${world.grant.grant_id}/revoke`, {});
      const denied = await decided(10, { mandate_id: third.mandate_id });
      expect([denied.decision, denied.reason]).toEqual(['deny', 'authority_revoked']);
    });

    it("finds no authority for a mandate id that is not this principal's and agent's", async () => {
      const unknown = await decided(10, { mandate_id: 'ns:mandate:00000000-0000-7000-8000-000000000000' });
      expect([unknown.decision, unknown.reason]).toEqual(['deny', 'authority_not_found']);
    });

    it('leaves an audit log that verifies whole', async () => {
      const auditor = (await world.must('POST', '/v1/tokens', { role: 'auditor' })).token as string;
      const verified = await world.call('GET', '/v1/audit/verify', undefined, auditor);
      expect(verified.status).toBe(200);
      expect(verified.body.valid, JSON.stringify(verified.body)).toBe(true);
    });

    it('refuses (fail closed) an allowance whose used_by an attacker cleared after its purchase', async () => {
      await bypassingGuards(rt.ctx.store.db, dialect, async (db) => {
        await db.updateTable('mandates').set({ used_by: null }).where('mandate_id', '=', allowanceId).execute();
      });
      const refused = await buy(5, { mandate_id: allowanceId });
      expect(refused.status).toBe(503);
      expect(refused.body.integrity).toEqual({ table: 'mandates', id: allowanceId, column: 'used_by' });
    });
  });
}
