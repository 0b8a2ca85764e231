/**
 * Every decision vector (vectors/decisions) walked through POST /v1/runtime/authorize on a real socket. For each, an
 * empty store is given the state from which the server loads exactly the vector's snapshot, the server's clock
 * stands at the vector's `now`, and the agent signs with the vector's `created`. The answer must carry the vector's
 * decision, reason, obligations and stop conditions; the recorded decision must hold the vector's reservation and
 * have read the vector's facts; and decide, re-run offline on the recorded snapshot, must agree.
 */
import { describe, expect, it } from 'vitest';
import { decide, REASON_CODES, type ReasonCode } from '@aar/core';
import type { DecisionRecord } from '../../src/services/decisions/decision-record.ts';
import { createApiCall } from '../support/api-call.ts';
import { authorizeVector, namedMandateOf } from '../support/authorize-vector.ts';
import { loadDecisionVectors } from '../support/decision-vectors.ts';
import { fixedClock } from '../support/fixed-clock.ts';
import { recordedDifferences } from '../support/recorded-differences.ts';
import { seedDecisionVector } from '../support/seed-decision-vector.ts';
import { startTestRuntime } from '../support/test-runtime.ts';

/** Vectors whose snapshot no database state can make the server load, and why. */
const SKIP: Record<string, string> = {
  'deny-basket-hash-disagrees-with-basket.json':
    'the authorize body has no basket_hash member (additionalProperties: false); the server derives the hash from ' +
    'the basket, so a hash that disagrees with it never reaches decide',
  'deny-currency-mismatch-budget.json':
    'its only link has a total budget with budget_spent 0 but spent_today 120.00: a total budget counts every day, ' +
    "today's counter included (budget-spend.ts), so the server loads budget_spent 120.00; the same check over HTTP " +
    'is deny-currency-mismatch-budget-spent-in-usd.json',
  'deny-delegation-reordered.json':
    'grant-chain.ts builds the chain by walking parent_grant_id from the leaf, so it is always root first; a ' +
    'reordered chain cannot be loaded',
  'deny-execute-without-instrument.json':
    'normalize-request.ts refuses an execute without scope.instrument with 400 invalid_request at ' +
    '/scope/instrument before any snapshot is loaded',
  'deny-grant-for-another-actor.json':
    'grant-chain.ts selects only grants whose actor_entity_id is the request actor, so the leaf is never another ' +
    "actor's grant; this state loads as grant_lookup authority_not_found with no chain",
  'deny-refund-without-merchant.json':
    'normalize-request.ts refuses a refund_request without resource.merchant_id with 400 invalid_request at ' +
    '/resource/merchant_id before any snapshot is loaded',
};

const vectors = loadDecisionVectors();
const walked = vectors.filter((v) => !Object.hasOwn(SKIP, v.file));
const recorded = new Map<string, DecisionRecord>();

describe('decision vectors through POST /v1/runtime/authorize', () => {
  it('skips only vectors that exist, and says why', () => {
    const files = new Set(vectors.map((v) => v.file));
    expect(Object.keys(SKIP).filter((file) => !files.has(file))).toEqual([]);
    expect(walked.length).toBeGreaterThanOrEqual(40);
    console.log(`[decision vectors over HTTP] ${walked.length} walked, ${Object.keys(SKIP).length} skipped`);
  });

  it('reaches every reason code with a vector it walks', () => {
    const reached = new Set(walked.map((v) => v.want.reason));
    expect((Object.keys(REASON_CODES) as ReasonCode[]).filter((code) => !reached.has(code))).toEqual([]);
  });

  it.concurrent.for(walked.map((v) => [v.file, v] as const))('%s', async ([, vector], { expect }) => {
    const { snapshot, now } = vector.input;
    const rt = await startTestRuntime({
      clock: fixedClock(now),
      config: {
        requireSignedRequests: snapshot.payload.required,
        signatureWindowSeconds: snapshot.payload.window_seconds,
      },
    });
    try {
      const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
      const seeded = await seedDecisionVector(rt, base, vector);
      const res = await authorizeVector(base, seeded, vector);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const { want } = vector;
      expect({ decision: res.body.decision, reason: res.body.reason }).toEqual({
        decision: want.decision,
        reason: want.reason,
      });
      if (want.obligations !== undefined) expect(res.body.obligations).toEqual(want.obligations);
      if (want.stop_conditions !== undefined) expect(res.body.stop_conditions).toEqual(want.stop_conditions);

      const record = await createApiCall(base, seeded.runtimeToken)(
        'GET',
        `/v1/decisions/${res.body.policy_decision_id}`,
      );
      expect(record.status).toBe(200);
      const rec = record.body as DecisionRecord;
      if (want.reservation !== undefined) expect(rec.reservation).toEqual(want.reservation);
      // the recorded request is the vector's plus the mandate the body named (decide does not read it)
      const mandate = namedMandateOf(vector);
      const named = mandate
        ? { ...vector, input: { ...vector.input, request: { ...vector.input.request, mandate } } }
        : vector;
      expect(recordedDifferences(named, rec)).toEqual([]);
      recorded.set(vector.file, rec);
    } finally {
      await rt.close();
    }
  });

  it('answered every reason code over HTTP', () => {
    const answered = new Set([...recorded.values()].map((rec) => rec.reason));
    expect((Object.keys(REASON_CODES) as ReasonCode[]).filter((code) => !answered.has(code))).toEqual([]);
  });

  it('replays every recorded decision offline: decide on the recorded snapshot gives the recorded answer', () => {
    expect(recorded.size).toBe(walked.length);
    for (const [file, rec] of recorded) {
      const replayed = decide(rec.request, rec.snapshot, rec.now);
      expect({ decision: replayed.decision, reason: replayed.reason }, file).toEqual({
        decision: rec.decision,
        reason: rec.reason,
      });
      expect(replayed.obligations, file).toEqual(rec.obligations);
      expect(replayed.stop_conditions, file).toEqual(rec.stop_conditions);
      expect(replayed.diagnostics, file).toEqual(rec.diagnostics);
      expect(replayed.reservation ?? null, file).toEqual(rec.reservation);
    }
  });
});
