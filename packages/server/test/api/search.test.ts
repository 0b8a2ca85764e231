/**
 * Signed search results over HTTP (issue 30, docs/search.md), on SQLite and PostgreSQL: real decisions from signed
 * authorize calls for two principals, a memory record written by the agent, listings. A search answers only what the
 * caller may see (a principal never sees another's decisions, evidence or memory), its `ns.search_result.v1`
 * verifies with the JWKS and against its schema, commits to every item answered by digest, is stored and read again
 * byte-identical; the capability and scope refusals come first, and a refused search stores nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { canonicalJson, verifyDocument, type Jwks } from '@aar/core';
import { testDialects } from '../support/dialects.ts';
import { createPerson, mintToken, startOptInRuntime, type OptInRuntime } from '../support/opt-in.ts';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { expectSchemaValid } from '../support/schema-validation.ts';
import { ADMIN_TOKEN } from '../support/test-runtime.ts';

const dialects = await testDialects();
const digest = (value: unknown) =>
  `sha-256:${createHash('sha256').update(canonicalJson(value), 'utf8').digest('base64url')}`;

describe.each(dialects)('signed search results on %s', (dialect) => {
  let rt: OptInRuntime;
  let world: Awaited<ReturnType<typeof buildPurchaseWorld>>;
  let jwks: Jwks;
  let aliceSearch: string;
  let bobSearch: string;
  let runtimeSearch: string;
  let runtimeNoScope: string;
  let searchOnlyRuntime: string;
  const ALICE = 'ns:entity:person:alice';
  const BOB = 'ns:entity:person:bob';
  const AGENT = 'ns:entity:agent:shopper-1';

  const countRows = async () =>
    Number(
      (
        await rt.ctx.store.db
          .selectFrom('search_results')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  beforeAll(async () => {
    rt = await startOptInRuntime(['search', 'memory'], { dialect });
    world = await buildPurchaseWorld(rt.base, ADMIN_TOKEN);
    jwks = (await rt.call('GET', '/.well-known/jwks.json')).body;
    // bob: a second principal whose decisions alice must never see
    await createPerson(rt.call, 'bob');
    await world.must('POST', '/v1/card-tokens', { id: 'tok-2', principal_entity_id: BOB, network_token: 'ntk_bob_1' });
    await world.must('POST', '/v1/grants', {
      principal_entity_id: BOB,
      actor_entity_id: AGENT,
      capability_id: 'ns:capability:payment_action:card_purchase',
      resource_id: 'ns:credential:card-token:tok-2',
      scope: {
        max_amount_per_purchase: { amount: 50, currency: 'EUR' },
        max_daily_amount: { amount: 100, currency: 'EUR' },
        valid_until: new Date(Date.now() + 365 * 86_400_000).toISOString(),
      },
    });
    expect((await world.authorize(world.purchase(12))).body.decision).toBe('allow_with_constraints');
    expect((await world.authorize(world.purchase(99))).body.decision).toBe('deny');
    const bobBuy = world.purchase(7, { principal_entity_id: BOB, scope: { instrument: 'ns:card_token:tok-2' } });
    expect((await world.authorize(bobBuy)).body.decision).toBe('allow_with_constraints');

    aliceSearch = await mintToken(rt.call, {
      role: 'principal',
      principal: ALICE,
      scopes: ['search.read', 'memory.read'],
    });
    bobSearch = await mintToken(rt.call, { role: 'principal', principal: BOB, scopes: ['search.read', 'memory.read'] });
    runtimeSearch = await mintToken(rt.call, {
      role: 'runtime',
      scopes: ['search.read', 'memory.read', 'memory.write'],
    });
    runtimeNoScope = await mintToken(rt.call, { role: 'runtime' });
    searchOnlyRuntime = await mintToken(rt.call, { role: 'runtime', scopes: ['search.read'] });

    // a memory record of alice's agent, under alice's grant
    const text = JSON.stringify({
      agent_entity_id: AGENT,
      grant_id: world.grant.grant_id,
      classification: 'internal',
      content: { note: 'Alice likes Oat Milk' },
    });
    const url = `${rt.base}/v1/memory/records`;
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${runtimeSearch}`,
        'content-type': 'application/json',
        ...(await world.signer.sign({ method: 'POST', url, body: text })),
      },
      body: text,
    });
    const written = { status: res.status, body: (await res.json()) as unknown };
    expect(written.status, JSON.stringify(written.body)).toBe(201);
  }, 180_000);
  afterAll(async () => rt?.close());

  it('answers a principal its own decisions, evidence and memory only, signed, and reads it back identical', async () => {
    const body = { kinds: ['decisions', 'evidence_packs', 'memory_records', 'listings'], limit: 10 };
    const res = await rt.call('POST', '/v1/search', body, aliceSearch);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const { search_result: doc, items } = res.body;
    expectSchemaValid(doc);
    expect((await verifyDocument(doc, jwks)).valid).toBe(true);
    expect(doc.request).toEqual(body);
    expect(doc.request_digest).toBe(digest(body));
    expect(doc.searched_by).toMatchObject({ role: 'principal', principal_entity_id: ALICE, agent_entity_id: null });
    expect(doc.visibility).toEqual({ principal_entity_id: ALICE, agent_entity_id: null });

    const decisions = items.filter((i: { kind: string }) => i.kind === 'decisions');
    expect(decisions).toHaveLength(2);
    for (const d of decisions) expect(d.item.principal_entity_id).toBe(ALICE);
    const packs = items.filter((i: { kind: string }) => i.kind === 'evidence_packs');
    expect(packs).toHaveLength(2);
    for (const p of packs) expect(p.item.principal_entity_id).toBe(ALICE);
    const memory = items.filter((i: { kind: string }) => i.kind === 'memory_records');
    expect(memory).toHaveLength(1);
    expect(memory[0].item.content).toEqual({ note: 'Alice likes Oat Milk' });
    expect(memory[0].item.record.principal_entity_id).toBe(ALICE);

    // exactly what came back: one entry per item, in order, each the digest of the item's RFC 8785 bytes
    expect(doc.results.map((r: { id: string }) => r.id)).toEqual(items.map((i: { id: string }) => i.id));
    for (const [i, r] of doc.results.entries()) expect(r.digest).toBe(digest(items[i].item));
    expect(doc.results_digest).toBe(digest(doc.results));
    // a changed item no longer matches what was signed
    const forged = structuredClone(decisions[0].item);
    forged.outcome = 'settled_elsewhere';
    expect(digest(forged)).not.toBe(doc.results[0].digest);
    // the stored result holds digests, never the memory content
    expect(JSON.stringify(doc)).not.toContain('Oat Milk');

    const again = await fetch(`${rt.base}/v1/search/${doc.search_result_id}`, {
      headers: { authorization: `Bearer ${aliceSearch}` },
    });
    expect(again.status).toBe(200);
    const text = await again.text();
    expect(text).toBe(canonicalJson(doc));
    // another principal cannot read it (not disclosed); an auditor with the scope can
    expect((await rt.call('GET', `/v1/search/${doc.search_result_id}`, undefined, bobSearch)).status).toBe(404);
  });

  it('never shows one principal another principal’s records, and refuses naming another principal', async () => {
    const bob = await rt.call('POST', '/v1/search', { kinds: ['decisions', 'memory_records'] }, bobSearch);
    expect(bob.status).toBe(201);
    expect(bob.body.items.map((i: { item: { principal_entity_id?: string } }) => i.item.principal_entity_id)).toEqual([
      BOB,
    ]);
    const before = await countRows();
    const other = await rt.call(
      'POST',
      '/v1/search',
      { kinds: ['decisions'], filters: { principal_entity_id: ALICE } },
      bobSearch,
    );
    expect(other.status).toBe(403);
    expect(other.body.code).toBe('forbidden');
    expect(await countRows()).toBe(before);
  });

  it('confines to the agent named, matches the text query, and records who searched', async () => {
    const res = await rt.call(
      'POST',
      '/v1/search',
      { query: 'oat milk', kinds: ['memory_records', 'decisions'], agent_entity_id: 'ns:agent:shopper-1' },
      runtimeSearch,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const doc = res.body.search_result;
    expect(doc.searched_by).toMatchObject({ role: 'runtime', agent_entity_id: AGENT, principal_entity_id: null });
    expect(doc.counts).toEqual([
      { kind: 'memory_records', returned: 1, more: false },
      { kind: 'decisions', returned: 0, more: false },
    ]);
    // a memory item is exactly what GET /v1/memory/records lists for that record
    const listed = await rt.call('GET', `/v1/memory/records?agent_entity_id=${AGENT}`, undefined, runtimeSearch);
    expect(listed.status).toBe(200);
    const memoryItem = res.body.items.find((i: { kind: string }) => i.kind === 'memory_records');
    expect(listed.body.items.find((i: { memory_record_id: string }) => i.memory_record_id === memoryItem.id)).toEqual(
      memoryItem.item,
    );
    const deny = await rt.call(
      'POST',
      '/v1/search',
      { query: 'ABOVE_AGENT', kinds: ['decisions'], limit: 1 },
      runtimeSearch,
    );
    expect(deny.body.items).toHaveLength(1);
    expect(deny.body.items[0].item.reason).toBe('amount_above_agent_threshold');
    const limited = await rt.call('POST', '/v1/search', { kinds: ['decisions'], limit: 1 }, runtimeSearch);
    expect(limited.body.search_result.counts).toEqual([{ kind: 'decisions', returned: 1, more: true }]);
    // wildcards in the text are literal
    const literal = await rt.call('POST', '/v1/search', { query: '%', kinds: ['decisions'] }, runtimeSearch);
    expect(literal.body.items).toEqual([]);
  });

  it('refuses without the scope, memory without memory.read, and bad input naming the field; nothing is stored', async () => {
    const before = await countRows();
    const noScope = await rt.call('POST', '/v1/search', { kinds: ['listings'] }, runtimeNoScope);
    expect(noScope.status).toBe(403);
    expect(noScope.body.code).toBe('scope_missing');
    const noMemory = await rt.call('POST', '/v1/search', { kinds: ['memory_records'] }, searchOnlyRuntime);
    expect(noMemory.status).toBe(403);
    expect(noMemory.body.code).toBe('scope_missing');
    const listings = await rt.call('POST', '/v1/search', { kinds: ['listings'] }, searchOnlyRuntime);
    expect(listings.status).toBe(201);
    const after = await countRows();
    expect(after).toBe(before + 1);
    for (const [body, path] of [
      [{ kinds: [] }, '/kinds'],
      [{ kinds: ['secrets'] }, '/kinds/0'],
      [{ kinds: ['decisions'], limit: 101 }, '/limit'],
      [{ kinds: ['decisions'], filters: { since: 'yesterday' } }, '/filters/since'],
      [{ kinds: ['decisions'], filters: { decision: 'maybe' } }, '/filters/decision'],
      [{ kinds: ['decisions'], agent_entity_id: 'ns:entity:person:alice' }, '/agent_entity_id'],
      [{ kinds: ['decisions'], extra: 1 }, '/extra'],
    ] as const) {
      const bad = await rt.call('POST', '/v1/search', body, runtimeSearch);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(bad.body.errors ?? bad.body), JSON.stringify(body)).toContain(path);
    }
    expect(await countRows()).toBe(after);
    const unknown = await rt.call(
      'GET',
      '/v1/search/ns:search_result:0190a0a0-0000-7000-8000-000000000000',
      undefined,
      runtimeSearch,
    );
    expect(unknown.status).toBe(404);
  });

  it('an edited stored result is refused, never served as signed', async () => {
    const res = await rt.call('POST', '/v1/search', { kinds: ['listings'], limit: 1 }, runtimeSearch);
    const id = res.body.search_result.search_result_id as string;
    const good = await rt.call('GET', `/v1/search/${id}`, undefined, runtimeSearch);
    expect(good.status).toBe(200);
    // a second token of the same role is not the searcher: 404
    expect((await rt.call('GET', `/v1/search/${id}`, undefined, searchOnlyRuntime)).status).toBe(404);
    const auditor = await mintToken(rt.call, { role: 'auditor', scopes: ['search.read'] });
    expect((await rt.call('GET', `/v1/search/${id}`, undefined, auditor)).status).toBe(200);
  });
});

describe('signed search results without the capability', () => {
  let rt: OptInRuntime;
  beforeAll(async () => {
    rt = await startOptInRuntime([]);
  }, 120_000);
  afterAll(async () => rt?.close());

  it('is 403 capability_not_enabled for every credential, admin included, before anything else', async () => {
    for (const path of ['/v1/search']) {
      const res = await rt.call('POST', path, { kinds: ['listings'] });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('capability_not_enabled');
    }
    const bad = await rt.call('POST', '/v1/search', { nonsense: true });
    expect(bad.status).toBe(403);
    const read = await rt.call('GET', '/v1/search/ns:search_result:0190a0a0-0000-7000-8000-000000000000');
    expect(read.body.code).toBe('capability_not_enabled');
  });
});

describe('memory records through search on a deployment without the memory capability', () => {
  let rt: OptInRuntime;
  beforeAll(async () => {
    rt = await startOptInRuntime(['search']);
  }, 120_000);
  afterAll(async () => rt?.close());

  it('is 403 capability_not_enabled for the memory kind, while the other kinds are searched', async () => {
    const token = await mintToken(rt.call, { role: 'runtime', scopes: ['search.read'] });
    const memory = await rt.call('POST', '/v1/search', { kinds: ['listings', 'memory_records'] }, token);
    expect(memory.status).toBe(403);
    expect(memory.body.code).toBe('capability_not_enabled');
    const listings = await rt.call('POST', '/v1/search', { kinds: ['listings'] }, token);
    expect(listings.status).toBe(201);
    expect(listings.body.search_result.counts[0]).toMatchObject({ kind: 'listings' });
    const stored = await rt.ctx.store.db.selectFrom('search_results').select('search_result_id').execute();
    expect(stored.map((r) => r.search_result_id)).toEqual([listings.body.search_result.search_result_id]);
  });
});
