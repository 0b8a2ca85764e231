/**
 * The payload trust lifecycle over real HTTP on both databases (CONTRACT section 22, docs/artefacts.md): a payload
 * presented by digest is verified against its allowed `execute` decision or rejected with each documented reason;
 * executing a verified one settles or releases the decision's reservation (as authorize then sees the day's spend);
 * executing anything else is 422 `artefact_not_executable` with an `execution_refused` event and nothing else
 * written; of concurrent executes exactly one wins. Every document is schema-valid and verifies against the JWKS,
 * every event against the catalogue's data schema, and the audit chain still verifies.
 */
import { randomUUID } from 'node:crypto';
import { computeBasketHash, EVENT_CATALOGUE, verifyDocument, type Jwks } from '@aar/core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXECUTION_REFUSALS, REJECTION_REASONS } from '../../src/services/payload-artefacts/artefact-reasons.ts';
import { testDialects } from '../support/dialects.ts';
import { expectSchemaValid } from '../support/schema-validation.ts';
import { inOneYear } from '../support/fixtures.ts';
import { SteppingClock } from '../support/stepping-clock.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';
import {
  AGENT,
  buildArtefactWorld,
  digestOf,
  KEYLESS,
  otherPrivateJwk,
  rowCounts,
  signStatement,
  unknownDecision,
  type ArtefactWorld,
} from './support/artefact-world.ts';

const dialects = await testDialects();
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv2020,
) => void;

describe.each(dialects)('payload artefacts over HTTP on %s', (dialect) => {
  let rt: TestRuntime;
  let w: ArtefactWorld;
  let jwks: Jwks;
  const clock = new SteppingClock();

  beforeAll(async () => {
    // signed requests optional, so the keyless agent can be allowed (its artefacts are the unsigned case)
    rt = await startTestRuntime({ dialect, clock, config: { requireSignedRequests: false } });
    const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    w = await buildArtefactWorld(base, ADMIN_TOKEN, () => Math.floor(clock.now().getTime() / 1000));
    jwks = (await w.call('GET', '/.well-known/jwks.json')).body as Jwks;
  }, 60_000);
  afterAll(async () => rt?.close());

  /** a served artefact: schema-valid, signed by the service's JWKS */
  const checkDocument = async (doc: Record<string, unknown>) => {
    expectSchemaValid(doc, 'ns.payload_artefact.v1');
    expect((await verifyDocument(doc, jwks)).valid).toBe(true);
  };
  const states = (doc: { transitions: Array<{ state: string }> }) => doc.transitions.map((t) => t.state);

  it('verifies a signed checkout payload of an allowed execute, then executes it once, settling the reservation', async () => {
    const decisionId = await w.allowed(12);
    const digest = digestOf('{"checkout":"session-1"}');
    const res = await w.present({ kind: 'checkout', digest, policy_decision_id: decisionId });
    expect(res.status).toBe(201);
    const doc = res.body;
    await checkDocument(doc);
    expect(doc).toMatchObject({
      state: 'verified',
      reason: null,
      kind: 'checkout',
      digest,
      policy_decision_id: decisionId,
      actor_entity_id: AGENT,
      principal_entity_id: 'ns:entity:person:alice',
      amount: { amount: 12, currency: 'EUR' },
      outcome: null,
      executed_at: null,
      mandate_id: null,
    });
    expect(doc.agent_key_thumbprint).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(states(doc)).toEqual(['received', 'verified']);

    const done = await w.execute(doc.payload_artefact_id, 'executed');
    expect(done.status).toBe(200);
    await checkDocument(done.body);
    expect(done.body).toMatchObject({ state: 'executed', outcome: 'executed' });
    expect(states(done.body)).toEqual(['received', 'verified', 'executed']);
    const decision = await rt.ctx.store.db
      .selectFrom('decisions')
      .select('outcome')
      .where('policy_decision_id', '=', decisionId)
      .executeTakeFirstOrThrow();
    expect(decision.outcome).toBe('executed');

    // GET answers the same document; the auditor may read it
    const read = await w.call('GET', `/v1/payload-artefacts/${doc.payload_artefact_id}`, undefined, w.auditorToken);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(done.body);
    const list = await w.call(
      'GET',
      `/v1/payload-artefacts?policy_decision_id=${decisionId}`,
      undefined,
      w.auditorToken,
    );
    expect(list.body.items.map((d: { payload_artefact_id: string }) => d.payload_artefact_id)).toEqual([
      doc.payload_artefact_id,
    ]);
  });

  it('binds an artefact to the ACP allowance its decision was made under (mandate_id), and no other', async () => {
    // the allowance hangs below a grant of a platform agent of its own (not shopper-1: its purchases stay as they are)
    await w.must('POST', '/v1/entities', { type: 'agent', id: 'platform-1', display_name: 'Platform' });
    const parent = await w.must('POST', '/v1/grants', {
      principal_entity_id: 'ns:entity:person:alice',
      actor_entity_id: 'ns:entity:agent:platform-1',
      capability_id: 'ns:capability:payment_action:card_purchase',
      resource_id: 'ns:credential:card-token:tok-1',
      scope: {
        max_amount_per_purchase: { amount: 50, currency: 'EUR' },
        max_daily_amount: { amount: 500, currency: 'EUR' },
        may_delegate: true,
        max_delegation_depth: 1,
        valid_until: inOneYear(),
      },
    });
    const made = await w.call(
      'POST',
      '/v1/allowances',
      {
        format: 'acp',
        allowance: {
          reason: 'one_time',
          max_amount: 2000,
          currency: 'eur',
          checkout_session_id: 'csn_artefacts_1',
          merchant_id: 'grocer-1',
          expires_at: new Date(clock.now().getTime() + 1_800_000).toISOString(),
        },
        vaulted_token_id: 'vt_artefacts_1',
        parent_grant_id: parent.grant_id,
        actor_entity_id: KEYLESS,
      },
      ADMIN_TOKEN,
      { 'idempotency-key': `artefacts-${dialect}` },
    );
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const allowance = made.body as { allowance_id: string };
    const decided = await w.call(
      'POST',
      '/v1/runtime/authorize',
      { ...w.purchase(15), actor_entity_id: KEYLESS, mandate: { mandate_id: allowance.allowance_id } },
      w.runtimeToken,
    );
    expect(decided.body.decision, JSON.stringify(decided.body)).toBe('allow_with_constraints');
    const decisionId = decided.body.policy_decision_id as string;
    const other = await w.present(
      { policy_decision_id: decisionId, mandate_id: `ns:allowance:${randomUUID()}` },
      'none',
    );
    expect(other.body).toMatchObject({ state: 'rejected', reason: 'mandate_mismatch' });
    const bound = await w.present({ policy_decision_id: decisionId, mandate_id: allowance.allowance_id }, 'none');
    expect(bound.body).toMatchObject({
      state: 'verified',
      mandate_id: allowance.allowance_id,
      actor_entity_id: KEYLESS,
    });
    await checkDocument(bound.body);
    // a decision made under no mandate binds none
    const unnamed = await w.allowed(3);
    expect((await w.present({ policy_decision_id: unnamed })).body.mandate_id).toBeNull();
  });

  it('refuses a second execute (422 artefact_not_executable, refusal artefact_executed), writing only its event', async () => {
    const decisionId = await w.allowed(5);
    const { body: doc } = await w.present({ policy_decision_id: decisionId });
    expect((await w.execute(doc.payload_artefact_id)).status).toBe(200);
    const before = await rowCounts(rt.ctx);
    const again = await w.execute(doc.payload_artefact_id, 'failed');
    expect(again.status).toBe(422);
    expect(again.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(again.body).toMatchObject({
      code: 'artefact_not_executable',
      refusal: 'artefact_executed',
      state: 'executed',
    });
    const after = await rowCounts(rt.ctx);
    expect(after).toEqual({ ...before, events: before.events + 1, audit: before.audit + 1 });
    const refused = await eventsOf(doc.payload_artefact_id, 'ns.payload_artefact.execution_refused');
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({
      reason_code: 'artefact_executed',
      data: { state: 'executed', outcome: 'failed' },
    });
  });

  it('refuses executing a rejected artefact, with its event and nothing else', async () => {
    const { body: doc } = await w.present({ policy_decision_id: unknownDecision() });
    expect(doc).toMatchObject({ state: 'rejected', reason: 'decision_unknown', actor_entity_id: null });
    await checkDocument(doc);
    expect(states(doc)).toEqual(['received', 'rejected']);
    const before = await rowCounts(rt.ctx);
    const res = await w.execute(doc.payload_artefact_id);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'artefact_not_executable', refusal: 'artefact_rejected' });
    expect(await rowCounts(rt.ctx)).toEqual({ ...before, events: before.events + 1, audit: before.audit + 1 });
    // still rejected, and its transitions did not move
    const read = await w.call('GET', `/v1/payload-artefacts/${doc.payload_artefact_id}`);
    expect(read.body).toEqual(doc);
  });

  it('refuses executing an artefact whose reservation was settled through /v1/runtime/outcomes meanwhile', async () => {
    const decisionId = await w.allowed(4);
    const { body: doc } = await w.present({ policy_decision_id: decisionId });
    expect(doc.state).toBe('verified');
    const settled = await w.call(
      'POST',
      '/v1/runtime/outcomes',
      { policy_decision_id: decisionId, outcome: 'failed' },
      w.runtimeToken,
    );
    expect(settled.status).toBe(200);
    const before = await rowCounts(rt.ctx);
    const res = await w.execute(doc.payload_artefact_id);
    expect(res.status).toBe(422);
    expect(res.body.refusal).toBe('decision_settled');
    expect(await rowCounts(rt.ctx)).toEqual({ ...before, events: before.events + 1, audit: before.audit + 1 });
  });

  it('lets exactly one of concurrent executes win; the others are refused artefact_executed', async () => {
    const decisionId = await w.allowed(6);
    const { body: doc } = await w.present({ policy_decision_id: decisionId });
    const answers = await Promise.all(Array.from({ length: 6 }, () => w.execute(doc.payload_artefact_id)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 422, 422, 422, 422, 422]);
    for (const a of answers.filter((x) => x.status === 422)) expect(a.body.refusal).toBe('artefact_executed');
    expect(await eventsOf(doc.payload_artefact_id, 'ns.payload_artefact.executed')).toHaveLength(1);
    expect(await eventsOf(decisionId, 'ns.purchase_authority.executed')).toHaveLength(1);
  });

  it('settles (`executed`) or releases (`failed`) the reservation as authorize then sees the day\u2019s spend', async () => {
    // a fresh day of the clock: 100.00 EUR a day, 30 per purchase
    clock.advance(86_400);
    const a = await w.allowed(30);
    const b = await w.allowed(30);
    const c = await w.allowed(30);
    expect((await w.authorize(w.purchase(30))).body.reason).toBe('daily_limit_exceeded');
    const artefactA = (await w.present({ policy_decision_id: a })).body;
    const artefactB = (await w.present({ policy_decision_id: b })).body;
    // a failed payment gives its 30 back: the next 30 fits again
    expect((await w.execute(artefactA.payload_artefact_id, 'failed')).body).toMatchObject({ outcome: 'failed' });
    const d = await w.allowed(30);
    // an executed one keeps counting: still 90 of 100 spent, so another 30 does not fit
    expect((await w.execute(artefactB.payload_artefact_id, 'executed')).status).toBe(200);
    expect((await w.authorize(w.purchase(30))).body.reason).toBe('daily_limit_exceeded');
    const outcomes = await rt.ctx.store.db
      .selectFrom('decisions')
      .select(['policy_decision_id', 'outcome'])
      .where('policy_decision_id', 'in', [a, b, c, d])
      .execute();
    expect(Object.fromEntries(outcomes.map((o) => [o.policy_decision_id, o.outcome]))).toEqual({
      [a]: 'failed',
      [b]: 'executed',
      [c]: 'reserved',
      [d]: 'reserved',
    });
    // the next tests start on a day of their own
    clock.advance(86_400);
  });

  describe('rejection reasons', () => {
    const expectRejected = async (
      res: { status: number; body: Record<string, unknown> },
      reason: string,
    ): Promise<void> => {
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toMatchObject({ state: 'rejected', reason });
      await checkDocument(res.body);
      const events = await eventsOf(res.body.payload_artefact_id as string, 'ns.payload_artefact.rejected');
      expect(events.map((e) => e.reason_code)).toEqual([reason]);
    };

    it('decision_unknown', async () => {
      await expectRejected(await w.present({ policy_decision_id: unknownDecision() }), 'decision_unknown');
    });

    it('decision_not_allowed: a deny, and a require_approval', async () => {
      const deny = await w.authorize(
        w.purchase(10, { resource: { merchant_id: 'casino-1', amount: 10, currency: 'EUR' } }),
      );
      expect(deny.body.decision).toBe('deny');
      await expectRejected(
        await w.present({ policy_decision_id: deny.body.policy_decision_id }),
        'decision_not_allowed',
      );
      const approval = await w.authorize(w.purchase(45));
      expect(approval.body.decision).toBe('require_approval');
      await expectRejected(
        await w.present({ policy_decision_id: approval.body.policy_decision_id }),
        'decision_not_allowed',
      );
    });

    it('decision_not_execute: an allowed prepare reserves nothing', async () => {
      const prepare = await w.authorize({
        actor_entity_id: AGENT,
        principal_entity_id: 'ns:entity:person:alice',
        subject: 'ns:capability:purchase:prepare',
        resource: { merchant_id: 'grocer-1' },
        scope: { instrument: 'ns:card_token:tok-1' },
      });
      expect(prepare.body.decision, JSON.stringify(prepare.body)).toBe('allow_with_constraints');
      await expectRejected(
        await w.present({ policy_decision_id: prepare.body.policy_decision_id }),
        'decision_not_execute',
      );
    });

    it('decision_settled: the reservation was reported already', async () => {
      const decisionId = await w.allowed(3);
      await w.must(
        'POST',
        '/v1/runtime/outcomes',
        { policy_decision_id: decisionId, outcome: 'executed' },
        w.runtimeToken,
      );
      await expectRejected(await w.present({ policy_decision_id: decisionId }), 'decision_settled');
    });

    it('signature_missing: the agent has a registered key', async () => {
      await expectRejected(await w.present({ policy_decision_id: await w.allowed(2) }, 'none'), 'signature_missing');
    });

    it('signature_key_unknown: the keyless agent cannot sign, and unsigned its artefact is verified', async () => {
      const decide = () =>
        w.call('POST', '/v1/runtime/authorize', { ...w.purchase(2), actor_entity_id: KEYLESS }, w.runtimeToken);
      const first = await decide();
      expect(first.body.decision, JSON.stringify(first.body)).toBe('allow_with_constraints');
      const forged = await signStatement(otherPrivateJwk(), KEYLESS, {
        kind: 'checkout',
        digest: digestOf('x'),
        policy_decision_id: first.body.policy_decision_id,
      });
      await expectRejected(
        await w.present({ digest: digestOf('x'), policy_decision_id: first.body.policy_decision_id }, forged),
        'signature_key_unknown',
      );
      const unsigned = await w.present({ policy_decision_id: first.body.policy_decision_id }, 'none');
      expect(unsigned.body).toMatchObject({ state: 'verified', agent_signature: null, agent_key_thumbprint: null });
      await checkDocument(unsigned.body);
    });

    it('signature_invalid: another key, another key_id, or a statement of another digest, kind or decision', async () => {
      const decisionId = await w.allowed(2);
      const digest = digestOf('the payload');
      const fields = { kind: 'checkout', digest, policy_decision_id: decisionId };
      const cases = [
        // a key the caller made, under the agent's id: not the key WE hold
        await signStatement(otherPrivateJwk(), AGENT, fields),
        // the agent's own key, claiming another entity's id
        await signStatement(w.privateJwk, 'ns:entity:agent:keyless-1', fields),
        // the agent's key over another digest, another kind, another decision
        await signStatement(w.privateJwk, AGENT, { ...fields, digest: digestOf('another payload') }),
        await signStatement(w.privateJwk, AGENT, { ...fields, kind: 'payment_instruction' }),
        await signStatement(w.privateJwk, AGENT, { ...fields, policy_decision_id: unknownDecision() }),
      ];
      for (const signature of cases) {
        await expectRejected(await w.present({ ...fields }, signature), 'signature_invalid');
      }
    });

    it('mandate_mismatch: a mandate the decision was not made under', async () => {
      await expectRejected(
        await w.present({ policy_decision_id: await w.allowed(2), mandate_id: `ns:mandate:${randomUUID()}` }),
        'mandate_mismatch',
      );
    });

    it('basket_not_bound and basket_mismatch; the basket the decision bound is verified', async () => {
      await expectRejected(
        await w.present({ kind: 'basket', policy_decision_id: await w.allowed(2) }),
        'basket_not_bound',
      );
      const basket = { items: [{ sku: 'apple', quantity: 3, amount: 2 }] };
      const bound = await w.allowed(2, { basket });
      const hash = computeBasketHash(basket);
      await expectRejected(
        await w.present({ kind: 'basket', digest: digestOf('another basket'), policy_decision_id: bound }),
        'basket_mismatch',
      );
      const ok = await w.present({ kind: 'basket', digest: hash.slice('sha-256:'.length), policy_decision_id: bound });
      expect(ok.body).toMatchObject({ state: 'verified', basket_hash: hash });
      await checkDocument(ok.body);
    });

    it('decision_has_artefact: one live artefact per decision', async () => {
      const decisionId = await w.allowed(2);
      expect((await w.present({ policy_decision_id: decisionId })).body.state).toBe('verified');
      await expectRejected(await w.present({ policy_decision_id: decisionId }), 'decision_has_artefact');
    });

    it('decision_expired: presented more than 15 minutes after the decision', async () => {
      const decisionId = await w.allowed(2);
      clock.advance(901);
      await expectRejected(await w.present({ policy_decision_id: decisionId }), 'decision_expired');
    });
  });

  it('refuses bad input with 400 naming the field, and a reader or principal with 403, writing nothing', async () => {
    const decisionId = await w.allowed(1);
    const before = await rowCounts(rt.ctx);
    const digest = digestOf('p');
    const cases: Array<[unknown, string]> = [
      [{ kind: 'cart', digest, policy_decision_id: decisionId }, '/kind'],
      [{ kind: 'checkout', digest: 'short', policy_decision_id: decisionId }, '/digest'],
      [{ kind: 'checkout', digest, policy_decision_id: 'ns:decision:nope' }, '/policy_decision_id'],
      [{ kind: 'checkout', digest, policy_decision_id: decisionId, mandate_id: 'ns:grant:x' }, '/mandate_id'],
      [{ kind: 'checkout', digest, policy_decision_id: decisionId, extra: 1 }, ''],
      [
        {
          kind: 'checkout',
          digest,
          policy_decision_id: decisionId,
          signature: { algorithm: 'rsa', key_id: AGENT, signature: 'x' },
        },
        '/signature',
      ],
    ];
    for (const [body, path] of cases) {
      const res = await w.call('POST', '/v1/payload-artefacts', body, w.runtimeToken);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.errors.map((e: { path: string }) => e.path).join(' '), JSON.stringify(res.body)).toContain(path);
    }
    const ok = { kind: 'checkout', digest, policy_decision_id: decisionId };
    expect((await w.call('POST', '/v1/payload-artefacts', ok, w.auditorToken)).status).toBe(403);
    expect((await w.call('POST', '/v1/payload-artefacts', ok, w.principalToken)).status).toBe(403);
    expect((await w.execute(`ns:payload_artefact:${randomUUID()}`)).status).toBe(404);
    expect((await w.execute('ns:payload_artefact:nope')).status).toBe(400);
    expect(await rowCounts(rt.ctx)).toEqual(before);
  });

  it('writes events whose data the catalogue\u2019s schemas accept, with reason codes the service and catalogue share', async () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats(ajv);
    const rows = await rt.ctx.store.db
      .selectFrom('events')
      .select(['event_type', 'envelope'])
      .where('event_type', 'like', 'ns.payload_artefact.%')
      .execute();
    const seen = new Set<string>();
    for (const row of rows) {
      const envelope = JSON.parse(row.envelope) as { reason_code: string; data: unknown; subject_ref: string };
      const definition = EVENT_CATALOGUE.find((d) => d.event_type === row.event_type)!;
      expect(definition, row.event_type).toBeDefined();
      const validate = ajv.compile(definition.data_schema);
      expect(validate(envelope.data), `${row.event_type}: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect(definition.reason_codes).toContain(envelope.reason_code);
      expect(envelope.subject_ref).toMatch(new RegExp(definition.subject_ref.pattern));
      seen.add(`${row.event_type} ${envelope.reason_code}`);
    }
    // every transition and refusal this suite made is among them
    for (const type of ['received', 'verified', 'rejected', 'executed', 'execution_refused']) {
      expect(
        [...seen].some((s) => s.startsWith(`ns.payload_artefact.${type} `)),
        type,
      ).toBe(true);
    }
    for (const reason of REJECTION_REASONS)
      expect(seen.has(`ns.payload_artefact.rejected ${reason}`), reason).toBe(true);
    const def = (t: string) => EVENT_CATALOGUE.find((d) => d.event_type === t)!;
    expect(def('ns.payload_artefact.rejected').reason_codes).toEqual(REJECTION_REASONS);
    expect(def('ns.payload_artefact.execution_refused').reason_codes).toEqual(EXECUTION_REFUSALS);
  });

  it('leaves an audit chain that verifies, each transition an entry of it', async () => {
    const res = await w.call('GET', '/v1/audit/verify', undefined, w.auditorToken);
    expect(res.status).toBe(200);
    expect(res.body.valid, JSON.stringify(res.body)).toBe(true);
    const artefact = await rt.ctx.store.db
      .selectFrom('payload_artefacts')
      .select('payload_artefact_id')
      .executeTakeFirstOrThrow();
    const doc = (await w.call('GET', `/v1/payload-artefacts/${artefact.payload_artefact_id}`)).body;
    for (const t of doc.transitions) {
      const entry = await w.call('GET', `/v1/audit/entries/${t.audit_ref}`, undefined, w.auditorToken);
      expect(entry.status, t.audit_ref).toBe(200);
    }
  });

  async function eventsOf(subject: string, type: string) {
    const rows = await rt.ctx.store.db
      .selectFrom('events')
      .select('envelope')
      .where('subject_ref', '=', subject)
      .where('event_type', '=', type)
      .orderBy('seq')
      .execute();
    return rows.map((r) => JSON.parse(r.envelope) as { reason_code: string; data: Record<string, unknown> });
  }
});
