/**
 * Record codec 2 (migration 0022): a decision under active rule packs names its policy set's text, stored once, and
 * every reader gets the record back byte for byte (the bytes its audit entry's digest hashes): GET /v1/decisions/{id},
 * the evidence pack (verified and replayed offline by core), and GET /v1/audit/verify. An edited text is noticed.
 */
import { verifyEvidencePack } from '@aar/core';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestOfCanonical } from '../../src/audit/audit-entry.ts';
import { decisionRecordBytes, POLICY_SET_MARKER } from '../../src/services/decisions/record-bytes.ts';
import {
  decodeDecisionRecord,
  policySetDigestOf,
  RECORD_CODEC_1,
  RECORD_CODEC_2,
} from '../../src/services/decisions/record-codec.ts';
import { policySetTextDigest } from '../../src/services/decisions/policy-set-texts.ts';
import { bypassingGuards } from '../support/bypassing-guards.ts';
import { testDialects } from '../support/dialects.ts';
import { buildDelegationWorld, type DelegationWorld } from '../support/delegation-world.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const dialects = await testDialects();

describe('record codec 2, in memory', () => {
  const policy = JSON.stringify([{ pack: 'é'.repeat(3000) }]);
  const record = `{"a":"ü","policy_set":${policy},"z":1}`;
  const stored = { digest: policySetTextDigest(policy), text: policy };

  const marked = `{"a":"ü","policy_set":${POLICY_SET_MARKER},"z":1}`;

  it('leaves the policy set text out and puts it back byte for byte, with the whole record digested', () => {
    const { record: blob, digest } = decisionRecordBytes(marked, stored);
    expect(blob[0]).toBe(RECORD_CODEC_2);
    expect(blob.length).toBeLessThan(200);
    expect(policySetDigestOf(blob)).toBe(stored.digest);
    expect(decodeDecisionRecord(blob, (d) => (d === stored.digest ? policy : undefined))).toBe(record);
    expect(digest).toBe(digestOfCanonical(record));
  });

  it('refuses to decode without the text; writes codec 1 without a stored text or a marker', () => {
    const { record: blob } = decisionRecordBytes(marked, stored);
    expect(() => decodeDecisionRecord(blob)).toThrow(/not known/);
    for (const whole of [decisionRecordBytes(record, stored), decisionRecordBytes(record)]) {
      expect(whole.record[0]).toBe(RECORD_CODEC_1);
      expect(decodeDecisionRecord(whole.record)).toBe(record);
      expect(whole.digest).toBe(digestOfCanonical(record));
    }
    expect(() => decisionRecordBytes(`${marked}${POLICY_SET_MARKER}`, stored)).toThrow(/twice/);
  });

  it('refuses a forged offset or a truncated blob', () => {
    const { record: blob } = decisionRecordBytes(marked, stored);
    const forged = Buffer.from(blob);
    forged.writeUInt32BE(1_000_000, 33);
    expect(() => decodeDecisionRecord(forged, () => policy)).toThrow();
    expect(() => decodeDecisionRecord(blob.subarray(0, 30), () => policy)).toThrow();
  });
});

describe.each(dialects)('decisions under rule packs on %s', (dialect) => {
  let rt: TestRuntime;
  let w: DelegationWorld;

  beforeAll(async () => {
    rt = await startTestRuntime({ dialect });
    const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    w = await buildDelegationWorld(base, ADMIN_TOKEN);
    const middle = (await w.delegate(w.root.grant_id, 'concierge', 'ns:entity:agent:planner', {})).body.grant_id;
    await w.delegate(middle, 'planner', 'ns:entity:agent:shopper-1', {});
    await w.must('POST', '/v1/rule-activations', {
      pack_id: 'ns:rule_pack:velocity',
      version: '1.0.0',
      target: { deployment: true },
      mode: 'enforce',
    });
  }, 120_000);
  afterAll(async () => rt?.close());

  it('store the policy set once, and serve, pack, replay and verify the whole record', async () => {
    const ids: string[] = [];
    const refs: string[][] = [];
    for (const amount of [10, 11, 12]) {
      const body = (await w.authorize('shopper-1', w.purchase('shopper-1', amount))).body as {
        policy_decision_id: string;
        decision: string;
        evidence_refs: string[];
      };
      expect(body.decision, JSON.stringify(body)).toBe('allow_with_constraints');
      ids.push(body.policy_decision_id);
      refs.push(body.evidence_refs);
    }
    const db = rt.ctx.store.db;
    const texts = await db.selectFrom('policy_set_texts').select(['digest', 'text']).execute();
    expect(texts).toHaveLength(1);
    const rows = await db
      .selectFrom('decisions')
      .select(['policy_decision_id', 'record', 'audit_ref'])
      .where('policy_decision_id', 'in', ids)
      .execute();
    for (const row of rows) {
      expect(row.record![0]).toBe(RECORD_CODEC_2);
      expect(policySetDigestOf(row.record)).toBe(texts[0]!.digest);
      // small: the ~10 KB pack document is not in it
      expect(row.record!.length).toBeLessThan(3000);
    }

    const decision = (await w.call('GET', `/v1/decisions/${ids[0]}`)).body as {
      snapshot: { policy_set: { packs: Array<{ document: { pack_id: string } }> } };
    };
    expect(decision.snapshot.policy_set.packs.map((p) => p.document.pack_id)).toEqual(['ns:rule_pack:velocity']);

    const pack = (await w.call('GET', `/v1/evidence-packs/${refs[1]![0]}`)).body;
    const verified = await verifyEvidencePack(pack, (await rt.ctx.keys.jwks()) as never);
    expect(verified.valid, JSON.stringify(verified)).toBe(true);
    expect(verified.replay_decision).toMatchObject({ matches: true, decision: 'allow_with_constraints' });

    expect((await w.call('GET', '/v1/audit/verify')).body).toMatchObject({ valid: true });
  });

  it('an edited policy set text breaks the records that name it, and verify says so', async () => {
    const db = rt.ctx.store.db;
    const row = await db.selectFrom('policy_set_texts').select(['digest', 'text']).executeTakeFirstOrThrow();
    const edited = row.text.replace('"velocity', '"velocitx');
    expect(edited).not.toBe(row.text);
    await bypassingGuards(db, dialect, async (trx) => {
      await sql`update policy_set_texts set text = ${edited} where digest = ${row.digest}`.execute(trx);
    });
    try {
      const report = (await w.call('GET', '/v1/audit/verify')).body as { valid: boolean; failures?: unknown[] };
      expect(report.valid).toBe(false);
      expect(JSON.stringify(report)).toContain('decisions');
    } finally {
      await bypassingGuards(db, dialect, async (trx) => {
        await sql`update policy_set_texts set text = ${row.text} where digest = ${row.digest}`.execute(trx);
      });
    }
    expect((await w.call('GET', '/v1/audit/verify')).body).toMatchObject({ valid: true });
  });
});
