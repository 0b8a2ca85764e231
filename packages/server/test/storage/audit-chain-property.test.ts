/**
 * The audit chain never cries wolf: random sequences of real API calls (through app.inject), on each database,
 * leave a store that `GET /v1/audit/verify` calls valid after every step. The calls cover every route family that
 * writes: entities (create, suspend, activate, tombstone: erasure), card tokens (create, suspend, activate),
 * merchants, grants (create, delegate with the delegator's statement, revoke), authorize with every purchase
 * sub-capability and the purchase capability (allowed, denied, require_approval, retries naming an approval),
 * outcomes (executed, failed, refunded), approvals (approved, rejected, expired by the test clock and the sweep),
 * risk signals, webhook endpoints (create, rotate, disable, enable, delete), API tokens (create, revoke), bundles,
 * listings, self-audit runs, audit append and checkpoint.
 * A failure prints the step sequence fast-check shrank it to. Bounded: a few runs of up to 30 steps per database.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expireApprovals } from '../../src/services/approvals/expire-approvals.ts';
import { testDialects } from '../support/dialects.ts';
import { inOneYear } from '../support/fixtures.ts';
import { ALICE, buildInjectWorld, PUBLIC_URL, type InjectWorld } from '../support/inject-world.ts';
import { SteppingClock } from '../support/stepping-clock.ts';
import { startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const dialects = await testDialects();

const RUNS = Number(process.env.AAR_PROPERTY_RUNS ?? 16);
const MAX_STEPS = 30;
const SUBJECTS = [
  'ns:capability:payment_action:card_purchase',
  'ns:capability:purchase:search',
  'ns:capability:purchase:compare',
  'ns:capability:purchase:prepare',
  'ns:capability:purchase:request_approval',
  'ns:capability:purchase:execute',
  'ns:capability:purchase:refund_request',
  'ns:capability:purchase:dispute_prepare',
];
const ALL_ACTIONS = SUBJECTS.slice(1).map((s) => `purchase.${s.split(':').pop()}`);

/** One step; `pick` chooses among what exists when the step runs (modulo their count). */
type Step =
  | { kind: 'person' }
  | { kind: 'agent' }
  | { kind: 'entity_state'; pick: number; verb: 'suspend' | 'activate' }
  | { kind: 'tombstone'; pick: number }
  | { kind: 'card_token'; pick: number }
  | { kind: 'card_token_state'; pick: number; verb: 'suspend' | 'activate' }
  | { kind: 'merchant'; category: string }
  | { kind: 'grant'; pick: number; threshold: number; delegable: boolean }
  | { kind: 'delegate'; pick: number; to: number }
  | { kind: 'revoke'; pick: number; byPrincipal: boolean }
  | { kind: 'authorize'; pick: number; subject: number; amount: number; merchant: number; retry: number | null }
  | { kind: 'outcome'; pick: number; outcome: 'executed' | 'failed' | 'refunded' }
  | { kind: 'approval'; pick: number; approve: boolean }
  | { kind: 'expire' }
  | { kind: 'risk'; pick: number; state: 'normal' | 'elevated' | 'blocked'; lapses: boolean }
  | { kind: 'webhook' }
  | { kind: 'webhook_change'; pick: number; verb: 'rotate' | 'delete' | 'disable' | 'enable' }
  | { kind: 'token'; revoke: boolean }
  | { kind: 'self_audit' }
  | { kind: 'bundle'; pick: number }
  | { kind: 'listing' }
  | { kind: 'audit_append' }
  | { kind: 'checkpoint' };

const pick = fc.nat({ max: 1000 });
const w = <T>(weight: number, arbitrary: fc.Arbitrary<T>) => ({ weight, arbitrary });
const step: fc.Arbitrary<Step> = fc.oneof(
  w(2, fc.constant({ kind: 'person' as const })),
  w(2, fc.constant({ kind: 'agent' as const })),
  w(2, fc.record({ kind: fc.constant('entity_state' as const), pick, verb: fc.constantFrom('suspend', 'activate') })),
  w(1, fc.record({ kind: fc.constant('tombstone' as const), pick })),
  w(2, fc.record({ kind: fc.constant('card_token' as const), pick })),
  w(
    2,
    fc.record({ kind: fc.constant('card_token_state' as const), pick, verb: fc.constantFrom('suspend', 'activate') }),
  ),
  w(1, fc.record({ kind: fc.constant('merchant' as const), category: fc.constantFrom('5411', '5812', '7995') })),
  w(
    3,
    fc.record({
      kind: fc.constant('grant' as const),
      pick,
      threshold: fc.constantFrom(20, 40, 400),
      delegable: fc.boolean(),
    }),
  ),
  w(2, fc.record({ kind: fc.constant('delegate' as const), pick, to: pick })),
  w(1, fc.record({ kind: fc.constant('revoke' as const), pick, byPrincipal: fc.boolean() })),
  // authorize is what the chain is mostly made of
  w(
    16,
    fc.record({
      kind: fc.constant('authorize' as const),
      pick,
      subject: fc.nat({ max: SUBJECTS.length - 1 }),
      amount: fc.constantFrom(5, 15, 30, 30, 45, 120, 900),
      merchant: pick,
      retry: fc.option(pick, { nil: null, freq: 3 }),
    }),
  ),
  w(
    4,
    fc.record({
      kind: fc.constant('outcome' as const),
      pick,
      outcome: fc.constantFrom('executed', 'failed', 'refunded'),
    }),
  ),
  w(4, fc.record({ kind: fc.constant('approval' as const), pick, approve: fc.boolean() })),
  w(1, fc.constant({ kind: 'expire' as const })),
  w(
    2,
    fc.record({
      kind: fc.constant('risk' as const),
      pick,
      state: fc.constantFrom('normal', 'elevated', 'blocked'),
      lapses: fc.boolean(),
    }),
  ),
  w(1, fc.constant({ kind: 'webhook' as const })),
  w(
    2,
    fc.record({
      kind: fc.constant('webhook_change' as const),
      pick,
      verb: fc.constantFrom('rotate', 'delete', 'disable', 'enable'),
    }),
  ),
  w(1, fc.record({ kind: fc.constant('token' as const), revoke: fc.boolean() })),
  w(1, fc.constant({ kind: 'self_audit' as const })),
  w(2, fc.record({ kind: fc.constant('bundle' as const), pick })),
  w(1, fc.constant({ kind: 'listing' as const })),
  w(1, fc.constant({ kind: 'audit_append' as const })),
  w(1, fc.constant({ kind: 'checkpoint' as const })),
) as fc.Arbitrary<Step>;

/** What exists so far, for steps to pick from. */
interface Known {
  persons: string[];
  agents: string[];
  tokens: string[];
  merchants: string[];
  grants: Array<{ id: string; actor: string; delegable: boolean }>;
  decisions: Array<{ id: string; body: unknown; actor: string }>;
  /** decisions that created an approval: retries name them most often, so approvals are spent and refused */
  held: Array<{ id: string; body: unknown; actor: string }>;
  reserved: string[];
  approvals: string[];
  endpoints: string[];
  serial: number;
}

/** what the runs reached (AAR_PROPERTY_STATS=1 prints it): decisions by decision/reason, steps by kind/status */
const reached = new Map<string, number>();
const tally = (key: string) => reached.set(key, (reached.get(key) ?? 0) + 1);

const of = <T>(list: readonly T[], n: number): T | undefined => (list.length === 0 ? undefined : list[n % list.length]);

async function run(world: InjectWorld, clock: SteppingClock, rt: TestRuntime, known: Known, s: Step): Promise<void> {
  const call = async (method: string, url: string, body?: unknown, token?: string) => {
    const res = await world.call(method, url, body, token);
    tally(`${s.kind} ${res.status}`);
    return res;
  };
  const id = () => `x${++known.serial}`;
  switch (s.kind) {
    case 'person': {
      const name = id();
      await world.must('POST', '/v1/entities', { type: 'person', id: name, display_name: `P ${name}` });
      known.persons.push(`ns:entity:person:${name}`);
      return;
    }
    case 'agent':
      known.agents.push(await world.addAgent(id()));
      return;
    case 'entity_state': {
      const target = of([...known.agents, ...known.persons], s.pick);
      if (target) await call('POST', `/v1/entities/${target}/${s.verb}`);
      return;
    }
    case 'tombstone': {
      // erasure of a person of its own (with its card tokens), never alice: the world's purchases stay possible
      const target = of(known.persons, s.pick);
      if (target) await call('DELETE', `/v1/entities/${target}`);
      return;
    }
    case 'card_token': {
      const holder = of([ALICE, ...known.persons], s.pick)!;
      const name = id();
      const res = await call('POST', '/v1/card-tokens', {
        id: name,
        principal_entity_id: holder,
        network_token: `ntk_${name}`,
        last4: '4242',
      });
      if (res.status === 201) known.tokens.push(`ns:card_token:${name}`);
      return;
    }
    case 'card_token_state': {
      const target = of(known.tokens, s.pick);
      if (target) await call('POST', `/v1/card-tokens/${target}/${s.verb}`);
      return;
    }
    case 'merchant': {
      const name = id();
      await world.must('POST', '/v1/merchants', {
        id: name,
        display_name: name,
        category: s.category,
        jurisdiction: 'DE',
      });
      known.merchants.push(name);
      return;
    }
    case 'grant': {
      const actor = of(known.agents, s.pick);
      if (!actor) return;
      const res = await call('POST', '/v1/grants', {
        principal_entity_id: ALICE,
        actor_entity_id: actor,
        capability_id: 'ns:capability:payment_action:card_purchase',
        resource_id: 'ns:credential:card-token:tok-1',
        scope: {
          max_amount_per_purchase: { amount: 500, currency: 'EUR' },
          max_daily_amount: { amount: 1000, currency: 'EUR' },
          requires_approval_above: { amount: s.threshold, currency: 'EUR' },
          blocked_merchant_categories: ['7995'],
          allowed_jurisdictions: ['DE'],
          allowed_actions: ALL_ACTIONS,
          valid_until: inOneYear(),
          ...(s.delegable ? { may_delegate: true, max_delegation_depth: 2 } : {}),
        },
      });
      if (res.status === 201) known.grants.push({ id: res.body.grant_id, actor, delegable: s.delegable });
      return;
    }
    case 'delegate': {
      const parent = of(
        known.grants.filter((g) => g.delegable),
        s.pick,
      );
      const to = of(known.agents, s.to);
      if (!parent || !to) return;
      const res = await world.delegate(parent.id, parent.actor, to, {
        max_amount_per_purchase: { amount: 100, currency: 'EUR' },
        requires_approval_above: { amount: 40, currency: 'EUR' },
      });
      if (res.status === 201) known.grants.push({ id: res.body.grant_id, actor: to, delegable: true });
      return;
    }
    case 'revoke': {
      const grant = of(known.grants, s.pick);
      if (grant)
        await call('POST', `/v1/grants/${grant.id}/revoke`, undefined, s.byPrincipal ? world.aliceToken : undefined);
      return;
    }
    case 'authorize': {
      // a retry repeats an earlier request, as its agent, naming its decision (so the approval's answer counts)
      const retry = s.retry === null ? undefined : of(s.retry % 3 === 0 ? known.decisions : known.held, s.retry);
      // else mostly agents holding a grant (so decisions are allowed, held for approval and denied alike)
      const actor = retry?.actor ?? of([...known.grants.map((g) => g.actor), ...known.agents], s.pick);
      if (!actor) return;
      const merchants = ['grocer-1', 'grocer-1', 'grocer-1', 'casino-1', 'nowhere-1', ...known.merchants];
      const body = retry
        ? { ...(retry.body as object), policy_decision_id: retry.id }
        : {
            actor_entity_id: actor,
            principal_entity_id: ALICE,
            subject: SUBJECTS[s.subject],
            resource: { merchant_id: of(merchants, s.merchant), amount: s.amount, currency: 'EUR' },
            scope: { instrument: 'ns:card_token:tok-1' },
          };
      const res = await world.authorize(actor, body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      tally(
        `${SUBJECTS.indexOf(String((body as { subject: string }).subject))} ${res.body.decision} ${res.body.reason}`,
      );
      const made = { id: res.body.policy_decision_id, body, actor };
      known.decisions.push(made);
      // an allowed purchase (the purchase capability or purchase:execute) reserves money: outcomes may follow
      const subject = (body as { subject: string }).subject;
      if (res.body.decision === 'allow_with_constraints' && (subject === SUBJECTS[0] || subject === SUBJECTS[5])) {
        known.reserved.push(res.body.policy_decision_id);
      }
      if (res.body.approval?.status === 'pending' && res.body.reason !== 'approval_pending') {
        known.approvals.push(res.body.approval.approval_id);
        // a pushed ask is retried as the purchase itself (the approval binds the purchase capability)
        known.held.push(
          subject === SUBJECTS[4] ? { ...made, body: { ...(body as object), subject: SUBJECTS[0] } } : made,
        );
      }
      return;
    }
    case 'outcome': {
      const decision = of(known.reserved, s.pick);
      if (decision) {
        await call(
          'POST',
          '/v1/runtime/outcomes',
          { policy_decision_id: decision, outcome: s.outcome },
          world.runtimeToken,
        );
      }
      return;
    }
    case 'approval': {
      const approval = of(known.approvals, s.pick);
      if (approval) {
        await call('POST', `/v1/approvals/${approval}/decision`, { approve: s.approve }, world.aliceToken);
      }
      return;
    }
    case 'expire':
      // past the approval TTL (15 min), then the sweep announces every lapsed approval
      clock.advance(16 * 60);
      await expireApprovals(rt.ctx);
      return;
    case 'risk': {
      const target = of([...known.agents, ALICE, ...known.tokens], s.pick);
      if (!target) return;
      const expires = new Date(clock.now().getTime() + 600_000).toISOString();
      await call('POST', '/v1/risk-signals', {
        entity_id: target,
        risk_state: s.state,
        reason: 'property test',
        ...(s.lapses ? { expires_at: expires } : {}),
      });
      return;
    }
    case 'webhook': {
      const res = await call('POST', '/v1/webhook-endpoints', {
        url: 'http://127.0.0.1:9/never-delivered',
        profile: 'shared_secret',
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      known.endpoints.push(res.body.endpoint_id);
      return;
    }
    case 'webhook_change': {
      const endpoint = of(known.endpoints, s.pick);
      if (!endpoint) return;
      if (s.verb === 'rotate') await call('POST', `/v1/webhook-endpoints/${endpoint}/rotate-secret`, {});
      else if (s.verb !== 'delete') await call('POST', `/v1/webhook-endpoints/${endpoint}/${s.verb}`, {});
      else {
        await call('DELETE', `/v1/webhook-endpoints/${endpoint}`);
        known.endpoints.splice(known.endpoints.indexOf(endpoint), 1);
      }
      return;
    }
    case 'token': {
      const res = await call('POST', '/v1/tokens', { role: 'auditor', label: `t${++known.serial}` });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      if (s.revoke) await call('DELETE', `/v1/tokens/${res.body.token_id}`);
      return;
    }
    case 'self_audit': {
      const res = await call('POST', '/v1/self-audit/runs', {});
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
      return;
    }
    case 'bundle': {
      const decision = of(known.decisions, s.pick);
      if (decision) {
        const res = await call('POST', '/v1/bundles/assemble', { policy_decision_id: decision.id });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
      }
      return;
    }
    case 'listing': {
      const res = await call('POST', '/v1/listings', {
        listing_id: `ns:listing:${id()}`,
        kind: 'agent',
        title: 'Property agent',
        publisher: { name: 'Property', tier: 'community' },
        sectors: ['retail'],
        regimes: ['eu_ai_act'],
        jurisdictions: ['DE'],
        pricing_model: 'usage',
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return;
    }
    case 'audit_append': {
      const res = await call('POST', '/v1/audit/append', {
        kind: 'ops.property_step',
        subject_ref: of([ALICE, ...known.persons], known.serial)!,
        record: { step: known.serial },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return;
    }
    case 'checkpoint':
      await call('POST', '/v1/audit/checkpoint', {});
      return;
  }
}

/** A fresh service with alice, tok-1, two merchants and shopper-1 holding a delegable root grant. */
async function freshWorld(dialect: (typeof dialects)[number]) {
  const clock = new SteppingClock();
  const rt = await startTestRuntime({
    dialect,
    clock,
    config: { publicUrls: [PUBLIC_URL], webhookAllowInsecure: true },
  });
  const world = await buildInjectWorld(rt.app, clock);
  const known: Known = {
    persons: [],
    agents: [await world.addAgent('shopper-1')],
    tokens: ['ns:card_token:tok-1'],
    merchants: [],
    grants: [],
    decisions: [],
    held: [],
    reserved: [],
    approvals: [],
    endpoints: [],
    serial: 0,
  };
  await run(world, clock, rt, known, { kind: 'grant', pick: 0, threshold: 40, delegable: true });
  return { clock, rt, world, known };
}

describe.each(dialects)('the audit chain verifies after every step of random API use on %s', (dialect) => {
  it('is valid after each step', { timeout: 180_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 15, maxLength: MAX_STEPS, size: 'max' }), async (steps) => {
        const { clock, rt, world, known } = await freshWorld(dialect);
        try {
          for (const [i, s] of steps.entries()) {
            await run(world, clock, rt, known, s);
            const verified = await world.call('GET', '/v1/audit/verify');
            expect(verified.body.valid, `after step ${i} ${JSON.stringify(s)}: ${JSON.stringify(verified.body)}`).toBe(
              true,
            );
          }
        } finally {
          await rt.close();
        }
      }),
      {
        numRuns: RUNS,
        endOnFailure: true,
        ...(process.env.AAR_PROPERTY_SEED ? { seed: Number(process.env.AAR_PROPERTY_SEED) } : {}),
      },
    );
    if (process.env.AAR_PROPERTY_STATS)
      console.log(
        [...reached]
          .sort()
          .map(([k, n]) => `${n}\t${k}`)
          .join('\n'),
      );
  });
});
