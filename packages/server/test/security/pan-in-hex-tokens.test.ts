/**
 * Issue 26: card numbers written next to hex letters (`4111111111111111deadbeefdeadbeef`, a 40-character and a
 * UUID-shaped variant) passed the scan as digests and UUIDs: listing titles were stored, and the self-audit's
 * card-number check then passed too. Now the listing route refuses them (400 `pan_refused` naming `/title`, nothing
 * stored), and the self-audit finds them in the free-text columns and members of rows written before the fix, while a
 * whole purchase world (decisions, events, evidence, every minted id and digest) still gives no finding.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkStoredCardNumbers } from '../../src/services/self-audit/checks/stored-card-numbers.ts';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { ADMIN_TOKEN, auth, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const REPORTED = [
  '4111111111111111deadbeefdeadbeef',
  'deadbeefdeadbeef4111111111111111',
  '5500005555555559aaaaaaaaaaaaaaaa',
  '4111111111111111deadbeefdeadbeefdeadbeef',
  '41111111-1111-1111-aaaa-aaaaaaaaaaaa',
];

let rt: TestRuntime;

beforeAll(async () => {
  rt = await startTestRuntime();
  const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
  const world = await buildPurchaseWorld(base, ADMIN_TOKEN);
  // decisions, evidence and events full of minted ids and digests
  for (let i = 0; i < 5; i++) {
    const res = await world.authorize(world.purchase(10 + i));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
});
afterAll(async () => rt?.close());

async function post(url: string, payload: Json) {
  const res = await rt.app.inject({ method: 'POST', url, headers: auth(), payload });
  return { status: res.statusCode, body: res.json<Json>(), text: res.body };
}

const listing = (title: string): Json => ({
  kind: 'agent',
  title,
  publisher: { name: 'Example Agents', tier: 'community' },
  sectors: ['retail'],
  regimes: ['eu_ai_act'],
  jurisdictions: ['DE'],
  pricing_model: 'usage',
});

const listingCount = async () => (await rt.ctx.store.db.selectFrom('listings').select('seq').execute()).length;

describe('a listing title holding a card number next to hex letters', () => {
  it.each(REPORTED)('%s is refused (400 pan_refused, /title), never echoed, nothing stored', async (title) => {
    const before = await listingCount();
    const res = await post('/v1/listings', listing(title));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'pan_refused', errors: [{ path: '/title' }] });
    expect(res.text).not.toContain(title);
    expect(await listingCount()).toBe(before);
  });

  it('an ordinary title with our ids and digests is still registered', async () => {
    const decision = (await rt.ctx.store.db.selectFrom('decisions').select('policy_decision_id').executeTakeFirst())!;
    const res = await post(
      '/v1/listings',
      listing(`Agent of ${decision.policy_decision_id}, build sha256:${'9f86d081884c7d659a2feaa0c55ad015'.repeat(2)}`),
    );
    expect(res.status, res.text).toBe(201);
  });
});

describe('an X-Request-Id holding a card number next to hex letters', () => {
  it.each(REPORTED)('%s is replaced, never echoed', async (id) => {
    const res = await rt.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': id } });
    expect(res.headers['x-request-id']).not.toBe(id);
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('an ordinary id is kept', async () => {
    const res = await rt.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'trace-abc.123' } });
    expect(res.headers['x-request-id']).toBe('trace-abc.123');
  });
});

describe('the self-audit card-number check', () => {
  it('passes on a store full of minted ids, digests and signatures', async () => {
    const check = await checkStoredCardNumbers(rt.ctx);
    expect(check.evidence).toMatchObject({ card_numbers_found: 0 });
    expect(check.status).toBe('pass');
  });

  it('finds each reported value in a display name written before the fix, never showing it', async () => {
    for (const [i, text] of REPORTED.entries()) {
      const created = await post('/v1/merchants', {
        id: `hex-${i}`,
        display_name: 'Shop',
        category: '5411',
        jurisdiction: 'DE',
      });
      expect(created.status).toBe(201);
      // as a row written before the detector was fixed
      await sql`update merchants set display_name = ${text} where merchant_id = ${`hex-${i}`}`.execute(rt.ctx.store.db);
    }
    const check = await checkStoredCardNumbers(rt.ctx);
    expect(check.status).toBe('fail');
    const evidence = check.evidence as Json;
    expect(evidence.card_numbers_found).toBe(REPORTED.length);
    expect(evidence.findings).toEqual(
      REPORTED.map((_, i) => ({ table: 'merchants', id: `hex-${i}`, column: 'display_name', pointer: '' })),
    );
    const shown = JSON.stringify(check);
    for (const text of REPORTED) expect(shown).not.toContain(text.slice(0, 16));
  });

  it('reads listing titles as free text', async () => {
    const row = await rt.ctx.store.db
      .selectFrom('listings')
      .select('listing_id')
      .where('title', 'like', 'Agent of%')
      .executeTakeFirstOrThrow();
    // as a row written before the detector was fixed, by someone who got past the table's write-once triggers
    const db = rt.ctx.store.db;
    const triggers = await sql<{ name: string }>`select name from sqlite_master
      where type = 'trigger' and tbl_name = 'listings'`.execute(db);
    for (const t of triggers.rows) await sql`drop trigger ${sql.raw(t.name)}`.execute(db);
    await sql`update listings set title = ${REPORTED[0]} where listing_id = ${row.listing_id}`.execute(db);
    const evidence = (await checkStoredCardNumbers(rt.ctx)).evidence as Json;
    expect(evidence.tables).toContain('listings');
    expect(evidence.findings).toContainEqual({
      table: 'listings',
      id: row.listing_id,
      column: 'title',
      pointer: '',
    });
  });
});
