/**
 * The visible proof of the event catalogue (CONTRACT section 9): a broad scenario over a real socket (entities, card
 * tokens, merchants, grants, delegation and the revocation cascade, decisions that allow, deny and require approval,
 * approvals, outcomes, risk signals, credentials, a key rotation, an erasure), then every envelope of
 * GET /v1/events is validated with Ajv against the schema `GET /v1/event-types` serves for its type, against the
 * generic `ns.webhook.v1` schema, and verified against the JWKS.
 * The key rotation has no HTTP route: it runs the service `aar keys rotate` runs.
 */
import { verifyDocument, type Jwks } from '@aar/core';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireApprovals } from '../../src/services/approvals/expire-approvals.ts';
import { rotateSigningKey } from '../../src/services/keys/rotate-signing-key.ts';
import { signScheduledCheckpoint } from '../../src/workers/checkpoint-worker.ts';
import { SteppingClock } from '../support/stepping-clock.ts';
import { buildDelegationWorld, type DelegationWorld } from '../support/delegation-world.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

interface Envelope {
  event_id: string;
  event_type: string;
  reason_code: string;
  subject_ref: string;
  delivery: { idempotency_key: string };
  data: Record<string, unknown>;
}

interface CatalogueType {
  event_type: string;
  family: string;
  reason_codes: string[];
  data_schema: Record<string, unknown>;
}

describe('every event the service emits validates against the catalogue it serves', () => {
  let rt: TestRuntime;
  let w: DelegationWorld;
  let events: Envelope[];
  let catalogue: {
    envelope_schema: Record<string, unknown>;
    families: Array<{ family: string; types: CatalogueType[] }>;
  };

  beforeAll(async () => {
    const clock = new SteppingClock();
    // insecure webhook targets: the endpoints below are registered, never delivered to (no worker runs here)
    rt = await startTestRuntime({ clock, config: { webhookAllowInsecure: true } });
    const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    w = await buildDelegationWorld(base, ADMIN_TOKEN, clock);
    await drive(w, rt, clock);
    events = await allEvents(w);
    // fetched without any credential: the catalogue is public
    const got = await fetch(`${base}/v1/event-types`);
    expect(got.status).toBe(200);
    catalogue = (await got.json()) as typeof catalogue;
  }, 60_000);
  afterAll(async () => rt?.close());

  it('produced every kind of event the scenario drives', () => {
    const seen = new Set(events.map((e) => e.event_type));
    for (const type of [
      'ns.entity.created',
      'ns.entity.suspended',
      'ns.entity.activated',
      'ns.entity.tombstoned',
      'ns.card_token.created',
      'ns.card_token.suspended',
      'ns.card_token.activated',
      'ns.merchant.created',
      'ns.authority.granted',
      'ns.authority.delegated',
      'ns.authority.revoked',
      'ns.purchase_authority.allowed',
      'ns.purchase_authority.denied',
      'ns.decision.requires_approval',
      'ns.approval.approved',
      'ns.approval.rejected',
      'ns.purchase_authority.executed',
      'ns.purchase_authority.refunded',
      'ns.purchase_authority.failed',
      'ns.risk.state_changed',
      'ns.credential.created',
      'ns.credential.revoked',
      'ns.key.rotated',
      'ns.approval.expired',
      'ns.audit.checkpoint_signed',
      'ns.webhook.endpoint_created',
      'ns.webhook.endpoint_updated',
      'ns.webhook.secret_rotated',
      'ns.webhook.endpoint_disabled',
      'ns.webhook.endpoint_enabled',
      'ns.webhook.endpoint_deleted',
    ]) {
      expect(seen, type).toContain(type);
    }
  });

  it('validates every envelope against its type in GET /v1/event-types and against ns.webhook.v1', async () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats(ajv);
    const generic = ajv.compile(catalogue.envelope_schema);
    const byType = new Map<string, { data: ValidateFunction; family: string }>();
    for (const f of catalogue.families) {
      for (const t of f.types) byType.set(t.event_type, { data: ajv.compile(t.data_schema), family: f.family });
    }
    const jwks: Jwks = (await w.call('GET', '/.well-known/jwks.json')).body;
    const failures: string[] = [];
    for (const e of events) {
      const entry = byType.get(e.event_type);
      if (!entry) {
        failures.push(`${e.event_id}: ${e.event_type} is not in the catalogue`);
        continue;
      }
      if (!generic(e as unknown)) failures.push(`${e.event_type} envelope: ${ajv.errorsText(generic.errors)}`);
      if (!entry.data(e.data)) failures.push(`${e.event_type} data: ${ajv.errorsText(entry.data.errors)}`);
      if (e.event_type.split('.')[1] !== entry.family) failures.push(`${e.event_type} is listed under ${entry.family}`);
      if (e.delivery.idempotency_key !== e.event_id) failures.push(`${e.event_id}: idempotency_key is not event_id`);
      const verified = await verifyDocument(e, jwks);
      if (!verified.valid) failures.push(`${e.event_id}: signature ${verified.failure}`);
    }
    expect(failures).toEqual([]);
    expect(events.length).toBeGreaterThan(40);
  });

  it('lists the reason code of every event among its type’s reason codes', () => {
    const reasons = new Map<string, string[]>();
    for (const f of catalogue.families) for (const t of f.types) reasons.set(t.event_type, t.reason_codes);
    for (const e of events)
      expect(reasons.get(e.event_type), `${e.event_type} ${e.reason_code}`).toContain(e.reason_code);
  });

  it('keeps what erasure removed out of the card token events, still valid', () => {
    const erased = events.filter(
      (e) => e.event_type === 'ns.card_token.created' && e.subject_ref === 'ns:card_token:carol-1',
    );
    expect(erased).toHaveLength(1);
    expect(erased[0]!.data).toEqual({ network: 'visa', last4: null, erased: true });
  });

  it('gives each state change of an erasure its own event: the card token suspended, the credential revoked', () => {
    const erasure = events.filter((e) => e.reason_code === 'entity_erased');
    expect(erasure.map((e) => e.event_type).sort()).toEqual([
      'ns.card_token.suspended',
      'ns.credential.revoked',
      'ns.entity.tombstoned',
    ]);
    expect(erasure.find((e) => e.event_type === 'ns.card_token.suspended')?.subject_ref).toBe('ns:card_token:carol-1');
    expect(erasure.find((e) => e.event_type === 'ns.credential.revoked')?.data).toEqual({
      role: 'principal',
      previous_state: 'active',
      new_state: 'revoked',
    });
  });

  it('carries only the origin of a webhook URL, never its path or query', () => {
    const hooks = events.filter((e) => e.event_type.startsWith('ns.webhook.'));
    expect(hooks.length).toBeGreaterThanOrEqual(6);
    expect(JSON.stringify(hooks)).not.toContain('kept-out-of-events');
  });
});

/** The scenario: each step a user-visible change; every one of them must leave a catalogued event. */
async function drive(w: DelegationWorld, rt: TestRuntime, clock: SteppingClock): Promise<void> {
  const { must, call } = w;
  // delegation two levels down, signed by each delegator
  const middle = await w.delegate(w.root.grant_id, 'concierge', 'ns:entity:agent:planner', {
    max_amount_per_purchase: { amount: 50, currency: 'EUR' },
  });
  expect(middle.status, JSON.stringify(middle.body)).toBe(201);
  const leaf = await w.delegate(middle.body.grant_id, 'planner', 'ns:entity:agent:shopper-1', {
    max_amount_per_purchase: { amount: 30, currency: 'EUR' },
    may_delegate: false,
  });
  expect(leaf.status, JSON.stringify(leaf.body)).toBe(201);

  // allow, then executed and refunded; another allowed purchase fails
  const allowed = await w.authorize('shopper-1', w.purchase('shopper-1', 25));
  expect(allowed.body.decision).toBe('allow_with_constraints');
  await must(
    'POST',
    '/v1/runtime/outcomes',
    { policy_decision_id: allowed.body.policy_decision_id, outcome: 'executed' },
    w.runtimeToken,
  );
  await must(
    'POST',
    '/v1/runtime/outcomes',
    { policy_decision_id: allowed.body.policy_decision_id, outcome: 'refunded' },
    w.runtimeToken,
  );
  const failed = await w.authorize('shopper-1', w.purchase('shopper-1', 10));
  await must(
    'POST',
    '/v1/runtime/outcomes',
    { policy_decision_id: failed.body.policy_decision_id, outcome: 'failed' },
    w.runtimeToken,
  );

  // deny: above the leaf's own limit
  expect((await w.authorize('shopper-1', w.purchase('shopper-1', 35))).body.decision).toBe('deny');

  // require approval (above the root's threshold of 80), approved, then the retry is allowed
  const big = w.purchase('concierge', 90);
  const pending = await w.authorize('concierge', big);
  expect(pending.body.decision).toBe('require_approval');
  await must(
    'POST',
    `/v1/approvals/${pending.body.approval.approval_id}/decision`,
    { approve: true, sca_reference: 'sca-1' },
    w.aliceToken,
  );
  const retried = await w.authorize('concierge', { ...big, policy_decision_id: pending.body.policy_decision_id });
  expect(retried.body).toMatchObject({ decision: 'allow_with_constraints', reason: 'approved_by_principal' });
  // and one rejected
  const second = await w.authorize('concierge', w.purchase('concierge', 85));
  await must('POST', `/v1/approvals/${second.body.approval.approval_id}/decision`, { approve: false }, w.aliceToken);

  // risk: elevated on the agent, cleared; blocked on a card token with an expiry
  await must(
    'POST',
    '/v1/risk-signals',
    { entity_id: 'ns:entity:agent:sibling', risk_state: 'elevated' },
    w.runtimeToken,
  );
  await must(
    'POST',
    '/v1/risk-signals',
    { entity_id: 'ns:entity:agent:sibling', risk_state: 'normal' },
    w.runtimeToken,
  );
  const soon = new Date(Date.now() + 3600_000).toISOString();
  await must(
    'POST',
    '/v1/risk-signals',
    { entity_id: 'ns:card_token:tok-2', risk_state: 'blocked', expires_at: soon },
    w.runtimeToken,
  );

  // entity and card token state changes
  await must('POST', '/v1/entities/ns:entity:person:bob/suspend');
  await must('POST', '/v1/entities/ns:entity:person:bob/activate');
  await must('POST', '/v1/entities/ns:entity:agent:helper/suspend');
  await must('POST', '/v1/card-tokens/ns:card_token:tok-2/suspend');
  await must('POST', '/v1/card-tokens/ns:card_token:tok-2/activate');

  // credentials: a principal token and an auditor token, one revoked
  const auditor = await must('POST', '/v1/tokens', { role: 'auditor', label: 'catalogue' });
  await must('DELETE', `/v1/tokens/${auditor.token_id}`);

  // the service key rotates (what `aar keys rotate` runs)
  await rotateSigningKey(rt.ctx, null);

  // the cascade: revoking the middle grant revokes the leaf too (one event per grant)
  await must('POST', `/v1/grants/${middle.body.grant_id}/revoke`, {}, w.aliceToken);

  // erasure of a principal holding a card token with last4 and a credential
  await must('POST', '/v1/entities', { type: 'person', id: 'carol', display_name: 'Carol' });
  await must('POST', '/v1/card-tokens', {
    id: 'carol-1',
    principal_entity_id: 'ns:entity:person:carol',
    network_token: 'ntk_carol_1',
    network: 'visa',
    last4: '4242',
  });
  await must('POST', '/v1/tokens', { role: 'principal', principal_entity_id: 'ns:entity:person:carol' });
  const gone = await call('DELETE', '/v1/entities/ns:entity:person:carol');
  expect(gone.status).toBe(200);

  // a webhook endpoint through its whole life
  const endpoint = await must('POST', '/v1/webhook-endpoints', {
    url: 'http://127.0.0.1:9/hooks/aar?token=kept-out-of-events',
    profile: 'shared_secret',
    event_types: ['ns.authority.*'],
  });
  const at = `/v1/webhook-endpoints/${endpoint.endpoint_id}`;
  await must('PATCH', at, { event_types: ['ns.decision.*', 'ns.authority.revoked'], description: 'catalogue' });
  await must('POST', `${at}/rotate-secret`, {});
  await must('POST', `${at}/disable`, {});
  await must('POST', `${at}/enable`, {});
  expect((await call('DELETE', at)).status).toBeLessThan(300);

  // an approval left undecided lapses, and the sweep announces it
  const lapsing = await w.authorize('concierge', w.purchase('concierge', 82));
  expect(lapsing.body.decision).toBe('require_approval');
  clock.advance(16 * 60);
  expect(await expireApprovals(rt.ctx)).toBeGreaterThanOrEqual(1);

  // the scheduled checkpoint (what the checkpoint worker of `aar serve` runs)
  expect(await signScheduledCheckpoint(rt.ctx)).not.toBeNull();
}

async function allEvents(w: DelegationWorld): Promise<Envelope[]> {
  const out: Envelope[] = [];
  let cursor: string | null = null;
  let more = true;
  while (more) {
    const page = await w.call('GET', `/v1/events?limit=500${cursor ? `&after=${encodeURIComponent(cursor)}` : ''}`);
    expect(page.status).toBe(200);
    out.push(...(page.body.items as Envelope[]));
    cursor = page.body.next_cursor; // always set: the position reached (docs/events.md)
    more = page.body.has_more;
  }
  return out;
}
