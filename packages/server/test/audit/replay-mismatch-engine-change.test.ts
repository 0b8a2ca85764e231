/**
 * `ns.decision.replay_mismatch` for the case it exists for: an engine change. The service decides one purchase under
 * an "older engine" (decide answering differently on the same facts, and `ENGINE_VERSION` aar-decide/1.1.0), stores
 * it, assembles and signs its pack as it does every pack; then, under today's engine, the pack verifies in every
 * check but replay. POST /v1/evidence-packs/verify answers the mismatch, writes the event through the write queue
 * (chained in the audit log, which still verifies; on the events feed, with both engine versions) and counts it on
 * /metrics. An edited copy of the pack is refused on its signature and reports nothing.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { verifyEvidencePack, type DecisionRequest, type DecisionSnapshot, type Jwks } from '@aar/core';
import type * as CoreModule from '@aar/core';
import type * as EngineVersionModule from '../../src/services/authorize/engine-version.ts';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const OLD_ENGINE = 'aar-decide/1.1.0';
const engine = vi.hoisted(() => ({ old: false, current: '' }));

// the engine the service decides with: today's, or (while `engine.old`) an older one that records its own version
vi.mock('../../src/services/authorize/engine-version.ts', async (importOriginal) => {
  const real = await importOriginal<typeof EngineVersionModule>();
  engine.current = real.ENGINE_VERSION;
  return {
    get ENGINE_VERSION() {
      return engine.old ? OLD_ENGINE : real.ENGINE_VERSION;
    },
  };
});
// the older engine's decide: on the same facts, it treated the actor as blocked (core's replay keeps today's decide)
vi.mock('@aar/core', async (importOriginal) => {
  const core = await importOriginal<typeof CoreModule>();
  return {
    ...core,
    decide: (request: DecisionRequest, snapshot: DecisionSnapshot, now: string) =>
      engine.old
        ? core.decide(request, { ...snapshot, risk: { ...snapshot.risk, actor: 'blocked' } }, now)
        : core.decide(request, snapshot, now),
  };
});

const ORIGIN = '127.0.0.1:8080/audit';
let rt: TestRuntime;
let base: string;
let world: Awaited<ReturnType<typeof buildPurchaseWorld>>;
let jwks: Jwks;
let auditor: string;

beforeAll(async () => {
  rt = await startTestRuntime();
  base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
  world = await buildPurchaseWorld(base, ADMIN_TOKEN);
  jwks = (await world.call('GET', '/.well-known/jwks.json')).body;
  auditor = (await world.must('POST', '/v1/tokens', { role: 'auditor' })).token;
});
afterAll(async () => rt?.close());

const mismatchEvents = () =>
  rt.ctx.store.db.selectFrom('events').selectAll().where('event_type', '=', 'ns.decision.replay_mismatch').execute();

describe('ns.decision.replay_mismatch after an engine change', () => {
  it('is emitted for a genuine pack of an older engine, chained, on the feed and on /metrics', async () => {
    engine.old = true;
    let answer;
    try {
      answer = (await world.authorize(world.purchase(12))).body;
    } finally {
      engine.old = false;
    }
    expect(answer).toMatchObject({ decision: 'deny', reason: 'risk_state_blocked' });
    const pack = (await world.must('GET', `/v1/evidence-packs/${answer.evidence_refs[0]}`, undefined, auditor)) as {
      engine_version: string;
      evidence_pack_id: string;
    };
    expect(pack.engine_version).toBe(OLD_ENGINE);

    // offline: a genuine pack, every check passes but replay
    const offline = await verifyEvidencePack(pack, jwks, { origin: ORIGIN });
    expect(offline.checks.filter((c) => !c.valid)).toEqual([
      { check: 'replay', valid: false, failure: 'replay_mismatch' },
    ]);
    expect(await mismatchEvents()).toHaveLength(0); // offline verification writes nothing

    const res = await world.call('POST', '/v1/evidence-packs/verify', { pack }, auditor);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      valid: false,
      replay_decision: { decision: 'allow_with_constraints', matches: false },
    });
    expect(res.body.checks.filter((c: { valid: boolean }) => !c.valid)).toEqual([
      { check: 'replay', valid: false, failure: 'replay_mismatch' },
    ]);

    const events = await mismatchEvents();
    expect(events).toHaveLength(1);
    const envelope = JSON.parse(events[0]!.envelope);
    expect(envelope).toMatchObject({
      event_type: 'ns.decision.replay_mismatch',
      subject_ref: answer.policy_decision_id,
      principal_entity_id: 'ns:entity:person:alice',
      reason_code: 'replay_mismatch',
      evidence_refs: [pack.evidence_pack_id],
      data: {
        policy_decision_id: answer.policy_decision_id,
        evidence_pack_id: pack.evidence_pack_id,
        engine_version: OLD_ENGINE,
        replay_engine_version: engine.current,
        recorded: { decision: 'deny', reason: 'risk_state_blocked' },
        replayed: { decision: 'allow_with_constraints', reason: 'scope_within_attenuated_authority' },
      },
    });
    expect(engine.current).not.toBe(OLD_ENGINE);

    // chained: its audit entry is in the log, and the log (with the event's record) still verifies
    const entry = await rt.ctx.store.db
      .selectFrom('audit_entries')
      .select(['idx', 'kind'])
      .where('audit_id', '=', envelope.audit_ref)
      .executeTakeFirstOrThrow();
    expect(entry.kind).toBe('ns.decision.replay_mismatch');
    const verified = await world.call('GET', '/v1/audit/verify', undefined, auditor);
    expect(verified.body).toMatchObject({ valid: true });
    expect(verified.body.size).toBeGreaterThan(Number(entry.idx));

    // where an operator alerts on it: the events API (and so the webhook feed) ...
    const feed = await world.call('GET', '/v1/events?event_type=ns.decision.replay_mismatch', undefined, auditor);
    expect(feed.status).toBe(200);
    expect(JSON.stringify(feed.body)).toContain(pack.evidence_pack_id);
    // ... and /metrics
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toContain(
      `aar_replay_mismatches_total{engine_version="${OLD_ENGINE}",replay_engine_version="${engine.current}"} 1`,
    );

    // an edited copy fails its signature and reports nothing
    const edited = structuredClone(pack) as unknown as { decision: { reason: string } };
    edited.decision.reason = 'scope_within_attenuated_authority';
    const refused = await world.call('POST', '/v1/evidence-packs/verify', { pack: edited }, auditor);
    expect(refused.body.checks[0]).toMatchObject({ check: 'pack_signature', valid: false });
    expect(await mismatchEvents()).toHaveLength(1);
  });
});
