/**
 * Decisions are stored once, as their record's bytes (migration 0010, services/decisions/stored-decision.ts), and
 * rows of the shape before (four JSON columns) keep working, on each database:
 * - a new decision stores only the compressed record; the decision map re-serves with the bytes it was answered
 *   with, every time; the evidence pack re-serves byte for byte and verifies; `/verify` is valid;
 * - a row rewritten into the old shape serves the same map bytes and the same decision, assembles a pack holding the
 *   same record, and verifies; an edit of it is still found;
 * - a decision's event is stored without its envelope and served whole, signed, in the feed;
 * - the stored record is far smaller than the four columns it replaces.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, verifyDocument, verifyEvidencePack, type Jwks } from '@aar/core';
import { sql, type Kysely } from 'kysely';
import { decodeDecisionRecord } from '../../src/services/decisions/record-codec.ts';
import type { Database, Dialect } from '../../src/store/index.ts';
import { testDialects } from '../support/dialects.ts';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { ADMIN_TOKEN, auth, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const dialects = await testDialects();

/** Runs `edit` with the guards out of the way (SQLite: without the decisions triggers; PostgreSQL: replica). */
async function bypassingGuards(db: Kysely<Database>, dialect: Dialect, edit: (db: Kysely<Database>) => Promise<void>) {
  if (dialect === 'postgres') {
    await db.transaction().execute(async (trx) => {
      await sql`set local session_replication_role = replica`.execute(trx);
      await edit(trx);
    });
    return;
  }
  const triggers = (
    await sql<{ name: string; sql: string }>`select name, sql from sqlite_master
      where type = 'trigger' and tbl_name = 'decisions'`.execute(db)
  ).rows;
  for (const t of triggers) await sql`drop trigger ${sql.raw(t.name)}`.execute(db);
  try {
    await edit(db);
  } finally {
    for (const t of triggers) await sql.raw(t.sql).execute(db);
  }
}

describe.each(dialects)('decision records on %s', (dialect) => {
  let rt: TestRuntime;
  let base: string;
  let world: Awaited<ReturnType<typeof buildPurchaseWorld>>;
  let jwks: Jwks;
  beforeAll(async () => {
    rt = await startTestRuntime({ dialect });
    base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    world = await buildPurchaseWorld(base, ADMIN_TOKEN);
    jwks = (await world.call('GET', '/.well-known/jwks.json')).body;
  });
  afterAll(async () => rt?.close());

  const db = () => rt.ctx.store.db;
  const text = async (path: string) => {
    const res = await fetch(`${base}${path}`, { headers: auth() });
    expect(res.status, path).toBe(200);
    return res.text();
  };
  const verify = async () => (await rt.app.inject({ method: 'GET', url: '/v1/audit/verify', headers: auth() })).json();
  const row = (id: string) =>
    db().selectFrom('decisions').selectAll().where('policy_decision_id', '=', id).executeTakeFirstOrThrow();

  it('stores the record once and re-serves the map and the pack byte for byte', async () => {
    const answer = (await world.authorize(world.purchase(12))).body;
    expect(answer.decision).toBe('allow_with_constraints');
    const stored = await row(answer.policy_decision_id);
    expect(stored).toMatchObject({ request: '', snapshot: '', result: '', decision_map: '' });
    const record = JSON.parse(decodeDecisionRecord(stored.record!));
    expect(canonicalJson(record.decision_map)).toBe(canonicalJson(answer.decision_map));
    expect(record).toMatchObject({ policy_decision_id: answer.policy_decision_id, now: stored.now });

    // the map: the bytes the authorize answer carried, in the order it was signed in, on every read
    const mapText = await text(`/v1/decision-maps/${answer.decision_map_ref}`);
    expect(mapText).toBe(JSON.stringify(answer.decision_map));
    expect(await text(`/v1/decision-maps/${answer.decision_map_ref}`)).toBe(mapText);

    const packText = await text(`/v1/evidence-packs/${answer.evidence_refs[0]}`);
    expect(await text(`/v1/evidence-packs/${answer.evidence_refs[0]}`)).toBe(packText);
    const pack = JSON.parse(packText);
    expect(canonicalJson(pack.decision_map)).toBe(canonicalJson(answer.decision_map));
    expect(await verifyEvidencePack(pack, jwks)).toMatchObject({ valid: true, replay_decision: { matches: true } });
    const decision = JSON.parse(await text(`/v1/decisions/${answer.policy_decision_id}`));
    expect(decision).toMatchObject({ request: record.request, snapshot: record.snapshot, reason: answer.reason });
    expect(await verify()).toMatchObject({ valid: true });
  });

  it('reads rows of the shape before migration 0010, and still finds an edit of one', async () => {
    const answer = (await world.authorize(world.purchase(45))).body;
    expect(answer.decision).toBe('require_approval');
    const stored = await row(answer.policy_decision_id);
    const record = JSON.parse(decodeDecisionRecord(stored.record!));
    // the old writer's columns: JSON.stringify of each part, the map in its signed order
    const legacy = {
      request: JSON.stringify(record.request),
      snapshot: JSON.stringify(record.snapshot),
      result: JSON.stringify(record.result),
      decision_map: JSON.stringify(answer.decision_map),
    };
    await bypassingGuards(db(), dialect, async (trx) => {
      await trx
        .updateTable('decisions')
        .set({ ...legacy, record: null })
        .where('policy_decision_id', '=', answer.policy_decision_id)
        .execute();
    });
    expect(await verify()).toMatchObject({ valid: true });
    expect(await text(`/v1/decision-maps/${answer.decision_map_ref}`)).toBe(JSON.stringify(answer.decision_map));
    const decision = JSON.parse(await text(`/v1/decisions/${answer.policy_decision_id}`));
    expect(decision).toMatchObject({
      request: record.request,
      snapshot: record.snapshot,
      decision: 'require_approval',
    });
    const pack = JSON.parse(await text(`/v1/evidence-packs/${answer.evidence_refs[0]}`));
    expect(canonicalJson([pack.request, pack.snapshot, pack.decision, pack.decision_map])).toBe(
      canonicalJson([record.request, record.snapshot, record.result, record.decision_map]),
    );
    expect(await verifyEvidencePack(pack, jwks)).toMatchObject({ valid: true });

    await bypassingGuards(db(), dialect, async (trx) => {
      await trx
        .updateTable('decisions')
        .set({ request: legacy.request.replace('grocer-1', 'casino-1') })
        .where('policy_decision_id', '=', answer.policy_decision_id)
        .execute();
    });
    expect(await verify()).toMatchObject({
      valid: false,
      failure: 'record_digest_mismatch',
      record: { table: 'decisions', id: answer.policy_decision_id },
    });
    await bypassingGuards(db(), dialect, async (trx) => {
      await trx
        .updateTable('decisions')
        .set({ request: legacy.request })
        .where('policy_decision_id', '=', answer.policy_decision_id)
        .execute();
    });
    expect(await verify()).toMatchObject({ valid: true });
  });

  it('finds a new-shape row whose emptied columns were filled in', async () => {
    const answer = (await world.authorize(world.purchase(5))).body;
    await bypassingGuards(db(), dialect, async (trx) => {
      await trx
        .updateTable('decisions')
        .set({ result: '{"decision":"deny"}' })
        .where('policy_decision_id', '=', answer.policy_decision_id)
        .execute();
    });
    expect(await verify()).toMatchObject({
      valid: false,
      failure: 'record_mismatch',
      detail: 'result',
      record: { table: 'decisions', id: answer.policy_decision_id },
    });
    await bypassingGuards(db(), dialect, async (trx) => {
      await trx
        .updateTable('decisions')
        .set({ result: '' })
        .where('policy_decision_id', '=', answer.policy_decision_id)
        .execute();
    });
    expect(await verify()).toMatchObject({ valid: true });
  });

  it("derives a decision's event from its row, and serves it whole in the feed", async () => {
    const answer = (await world.authorize(world.purchase(9))).body;
    const event = await db()
      .selectFrom('events')
      .selectAll()
      .where('subject_ref', '=', answer.policy_decision_id)
      .executeTakeFirstOrThrow();
    // '' is stored only when the derivation gave back the writer's envelope byte for byte (decision-envelope.ts)
    expect(event.envelope).toBe('');
    const feed = JSON.parse(await text(`/v1/events?event_type=${event.event_type}&limit=500`));
    const served = feed.items.find((e: { event_id: string }) => e.event_id === event.event_id);
    expect(Object.keys(served)).toEqual([
      'schema_version',
      'event_id',
      'event_type',
      'occurred_at',
      'actor_entity_id',
      'principal_entity_id',
      'subject_ref',
      'reason_code',
      'data',
      'audit_ref',
      'evidence_refs',
      'delivery',
      'signature',
    ]);
    expect(served).toMatchObject({
      event_type: 'ns.purchase_authority.allowed',
      occurred_at: event.occurred_at,
      subject_ref: answer.policy_decision_id,
      reason_code: answer.reason,
      data: {
        policy_decision_id: answer.policy_decision_id,
        decision: 'allow_with_constraints',
        merchant_id: 'grocer-1',
        amount: { amount: 9, currency: 'EUR' },
        grant_id: world.grant.grant_id,
        decision_map_ref: answer.decision_map_ref,
      },
      audit_ref: answer.audit_ref,
      evidence_refs: answer.evidence_refs,
      delivery: { idempotency_key: event.event_id, replayable: true },
    });
    expect(await verifyDocument(served, jwks)).toMatchObject({ valid: true });

    // an event naming an approval (its expiry is no decision column) keeps its envelope
    const asked = (await world.authorize(world.purchase(44))).body;
    expect(asked.decision).toBe('require_approval');
    const kept = await db()
      .selectFrom('events')
      .select('envelope')
      .where('subject_ref', '=', asked.policy_decision_id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(kept.envelope).data.approval_id).toBe(asked.approval.approval_id);
  });

  it('stores a record far smaller than the four columns it replaces', async () => {
    const answer = (await world.authorize(world.purchase(7))).body;
    const stored = await row(answer.policy_decision_id);
    const record = JSON.parse(decodeDecisionRecord(stored.record!));
    const columns = [record.request, record.snapshot, record.result, answer.decision_map]
      .map((part) => Buffer.byteLength(JSON.stringify(part)))
      .reduce((a, b) => a + b, 0);
    expect(stored.record!.length).toBeLessThan(columns / 3);
  });
});
