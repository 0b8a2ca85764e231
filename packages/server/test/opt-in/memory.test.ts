/**
 * Governed agent memory (CONTRACT section 22, docs/memory.md) over real HTTP, on SQLite and PostgreSQL: an agent
 * (with its own Ed25519 key, signing RFC 9421 as for authorize) writes under its grant; the principal lists, reads
 * (verified on read) and erases; the retention purge (clock moved) leaves chained tombstones whose chain verifies
 * offline against the JWKS; every refusal (scope, capability, another principal, card number, signature, grant)
 * writes nothing; stored content changed behind the service's back is detected on read.
 */
import { verifyDocument, canonicalJson, type Jwks } from '@aar/core';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeExpiredMemory } from '../../src/services/memory/purge-expired-memory.ts';
import { verifyTombstoneChain } from '../../src/services/memory/tombstone-chain.ts';
import { startMemoryRetentionWorker } from '../../src/workers/memory-retention-worker.ts';
import { testDialects } from '../support/dialects.ts';
import { createPerson, mintToken, startOptInRuntime, type OptInRuntime } from '../support/opt-in.ts';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { expectSchemaValid } from '../support/schema-validation.ts';
import { SteppingClock } from '../support/stepping-clock.ts';
import { ADMIN_TOKEN } from '../support/test-runtime.ts';

const dialects = await testDialects();
const ALICE = 'ns:entity:person:alice';
const AGENT = 'ns:entity:agent:shopper-1';
const DAY = 24 * 3600;

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64url');

describe.each(dialects)('governed agent memory on %s', (dialect) => {
  const clock = new SteppingClock();
  let rt: OptInRuntime;
  let world: Awaited<ReturnType<typeof buildPurchaseWorld>>;
  let writer: string;
  let aliceReader: string;
  let bobToken: string;
  let jwks: Jwks;

  beforeAll(async () => {
    rt = await startOptInRuntime(['memory'], { dialect, clock });
    world = await buildPurchaseWorld(rt.base, ADMIN_TOKEN, {
      signerNow: () => Math.floor(clock.now().getTime() / 1000),
    });
    writer = await mintToken(rt.call, { role: 'runtime', scopes: ['memory.write'] });
    aliceReader = await mintToken(rt.call, {
      role: 'principal',
      principal: ALICE,
      scopes: ['memory.read', 'memory.write'],
    });
    const bob = await createPerson(rt.call, 'bob');
    bobToken = await mintToken(rt.call, { role: 'principal', principal: bob, scopes: ['memory.read', 'memory.write'] });
    jwks = (await (await fetch(`${rt.base}/.well-known/jwks.json`)).json()) as Jwks;
  });
  afterAll(async () => rt?.close());

  const body = (content: unknown, classification = 'internal', extra: Record<string, unknown> = {}) => ({
    agent_entity_id: AGENT,
    grant_id: world.grant.grant_id as string,
    classification,
    content,
    ...extra,
  });

  /** POSTs a memory write signed by the agent (unless `signed` is false) with `token` */
  const write = async (payload: unknown, token = writer, signed = true) => {
    const text = JSON.stringify(payload);
    const url = `${rt.base}/v1/memory/records`;
    const sig = signed ? await world.signer.sign({ method: 'POST', url, body: text }) : {};
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...sig },
      body: text,
    });
    return { status: res.status, body: await res.json(), sig, text };
  };

  const count = async (table: 'memory_records' | 'memory_contents' | 'memory_tombstones') =>
    Number(
      (
        await rt.ctx.store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  /** every event in the feed, oldest first */
  const allEvents = async (): Promise<
    Array<{ event_type: string; subject_ref: string; data: Record<string, unknown> }>
  > => {
    const items = [];
    let after: string | undefined;
    for (;;) {
      const page = await rt.call('GET', `/v1/events?limit=500${after ? `&after=${after}` : ''}`);
      expect(page.status).toBe(200);
      items.push(...page.body.items);
      if (!page.body.has_more) return items;
      after = page.body.next_cursor;
    }
  };
  const counts = async () => [await count('memory_records'), await count('memory_contents')];

  it('writes a signed record under the grant; the record verifies with the JWKS and binds the content', async () => {
    const content = { note: 'prefers delivery after 18:00', size: 'M' };
    const res = await write(body(content));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const v = res.body;
    expect(v).toMatchObject({ state: 'active', content, tombstone: null });
    expect(v.record).toMatchObject({
      schema_version: 'ns.memory_record.v1',
      form: 'record',
      principal_entity_id: ALICE,
      agent_entity_id: AGENT,
      grant_id: world.grant.grant_id,
      classification: 'internal',
      retention_days: 365,
      authorship: { method: 'rfc9421', signed_at: expect.any(String) },
    });
    expectSchemaValid(v.record, 'ns.memory_record.v1');
    expect((await verifyDocument(v.record, jwks)).valid).toBe(true);
    expect(v.record.content_digest).toBe(sha(canonicalJson({ content, salt: v.content_salt })));
    expect(Date.parse(v.record.retain_until) - Date.parse(v.record.created_at)).toBe(365 * DAY * 1000);
  });

  it('keeps no content in the Idempotency-Key record: a replay omits it', async () => {
    const payload = body({ idem: 'plum jam' });
    const text = JSON.stringify(payload);
    const url = `${rt.base}/v1/memory/records`;
    const headers = {
      authorization: `Bearer ${writer}`,
      'content-type': 'application/json',
      'idempotency-key': 'memory-idem-1',
      ...(await world.signer.sign({ method: 'POST', url, body: text })),
    };
    const first = await fetch(url, { method: 'POST', headers, body: text });
    expect(first.status).toBe(201);
    expect(((await first.json()) as { content: unknown }).content).toEqual({ idem: 'plum jam' });
    const replay = await fetch(url, { method: 'POST', headers, body: text });
    expect(replay.status).toBe(201);
    const replayed = (await replay.json()) as Record<string, unknown>;
    expect(replayed.secret_omitted).toBe(true);
    expect(replayed.content).toBeUndefined();
    const stored = await rt.ctx.store.db
      .selectFrom('idempotency_keys')
      .select('response_body')
      .where('idem_key', '=', 'memory-idem-1')
      .executeTakeFirstOrThrow();
    expect(stored.response_body).not.toContain('plum jam');
  });

  it('reads one record verified, and lists the principal\u2019s records with filters', async () => {
    const written = (await write(body({ likes: 'green tea' }, 'confidential'))).body;
    const one = await rt.call('GET', `/v1/memory/records/${written.memory_record_id}`, undefined, aliceReader);
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    expect(one.body.content).toEqual({ likes: 'green tea' });
    expect(one.body.verification).toEqual({
      valid: true,
      record_signature: 'valid',
      record_matches_row: true,
      content: 'intact',
      tombstone_signature: null,
      key_id: written.record.signature.key_id,
    });
    const listed = await rt.call('GET', '/v1/memory/records?classification=confidential', undefined, aliceReader);
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((i: { memory_record_id: string }) => i.memory_record_id)).toContain(
      written.memory_record_id,
    );
    expect(
      listed.body.items.every(
        (i: { record: { classification: string } }) => i.record.classification === 'confidential',
      ),
    ).toBe(true);
    const paged = await rt.call('GET', '/v1/memory/records?limit=1', undefined, aliceReader);
    expect(paged.body.items).toHaveLength(1);
    expect(paged.body.next_cursor).toEqual(expect.any(String));
  });

  it('keeps another principal out: 404 on read and erase, 403 naming them in a list, and an empty own list', async () => {
    const written = (await write(body({ a: 1 }))).body;
    const id = written.memory_record_id;
    expect((await rt.call('GET', `/v1/memory/records/${id}`, undefined, bobToken)).status).toBe(404);
    expect((await rt.call('DELETE', `/v1/memory/records/${id}`, undefined, bobToken)).status).toBe(404);
    expect((await rt.call('GET', `/v1/memory/records?principal_entity_id=${ALICE}`, undefined, bobToken)).status).toBe(
      403,
    );
    const own = await rt.call('GET', '/v1/memory/records', undefined, bobToken);
    expect(own.body.items).toEqual([]);
    const still = await rt.call('GET', `/v1/memory/records/${id}`, undefined, aliceReader);
    expect(still.body.state).toBe('active');
  });

  it('refuses without the scope (any role, admin included), writing nothing', async () => {
    const before = await counts();
    const reader = await mintToken(rt.call, { role: 'runtime', scopes: ['memory.read'] });
    for (const token of [reader, world.runtimeToken, ADMIN_TOKEN]) {
      const res = await write(body({ a: 1 }), token);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('scope_missing');
      expect(res.body.required_scopes).toEqual(['memory.write']);
    }
    const list = await rt.call('GET', '/v1/memory/records', undefined, world.principalToken);
    expect(list.body.code).toBe('scope_missing');
    expect(await counts()).toEqual(before);
  });

  it('refuses a card number in the content with pan_refused naming the field, storing and emitting nothing', async () => {
    const before = await counts();
    const events = await allEvents();
    for (const content of [
      { note: 'my card 4111 1111 1111 1111' },
      { data: { hint: 'deadbeef4111111111111111cafe' } },
      // a digest-length hex token: skipped by the body-wide reader, refused in content (read as free text)
      { data: '4111111111111111abcdef0123456789' },
      ['ok', { '4111111111111111': 'x' }],
    ]) {
      const res = await write(body(content));
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.code).toBe('pan_refused');
      expect(res.body.errors[0].path).toMatch(/^\/content/);
      expect(JSON.stringify(res.body)).not.toContain('4111111111111111');
    }
    expect(await counts()).toEqual(before);
    expect((await allEvents()).length).toBe(events.length);
  });

  it('refuses an unsigned, a replayed or a badly classified write, and oversized content, writing nothing', async () => {
    const before = await counts();
    const unsigned = await write(body({ a: 1 }), writer, false);
    expect(unsigned.status).toBe(400);
    expect(unsigned.body.code).toBe('invalid_signature');
    const first = await write(body({ replay: 1 }));
    expect(first.status).toBe(201);
    const replay = await fetch(`${rt.base}/v1/memory/records`, {
      method: 'POST',
      headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/json', ...first.sig },
      body: first.text,
    });
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { code: string }).code).toBe('invalid_signature');
    const bad = await write(body({ a: 1 }, 'secret'));
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('/classification');
    const big = await write(body({ text: 'x'.repeat(17_000) }));
    expect(big.status).toBe(400);
    expect(big.body.errors[0].path).toBe('/content');
    const [records, contents] = before as [number, number];
    expect(await counts()).toEqual([records + 1, contents + 1]);
  });

  it('detects stored content changed behind the service\u2019s back, and withholds it', async () => {
    const written = (await write(body({ budget: 'low' }))).body;
    const id = written.memory_record_id as string;
    await rt.ctx.store.db
      .updateTable('memory_contents')
      .set({ content: canonicalJson({ budget: 'unlimited' }) })
      .where('memory_record_id', '=', id)
      .execute();
    const read = await rt.call('GET', `/v1/memory/records/${id}`, undefined, aliceReader);
    expect(read.status).toBe(200);
    expect(read.body.verification).toMatchObject({ valid: false, content: 'tampered', record_signature: 'valid' });
    expect(read.body.content).toBeNull();
    // audit verify names the edited content row too (check-memory.ts); then the row is put back
    const audit = (await rt.call('GET', '/v1/audit/verify')).body;
    expect(audit).toMatchObject({ valid: false, record: { table: 'memory_contents', id } });
    await rt.ctx.store.db
      .updateTable('memory_contents')
      .set({ content: canonicalJson({ budget: 'low' }) })
      .where('memory_record_id', '=', id)
      .execute();
    expect((await rt.call('GET', '/v1/audit/verify')).body.valid).toBe(true);
  });

  it('erases by the principal: content gone, a signed tombstone stays, events carry no content', async () => {
    const written = (await write(body({ secret_word: 'marmalade' }, 'restricted'))).body;
    const id = written.memory_record_id as string;
    const erased = await rt.call('DELETE', `/v1/memory/records/${id}`, undefined, aliceReader);
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);
    expect(erased.body).toMatchObject({ state: 'erased', content: null, content_salt: null });
    const t = erased.body.tombstone;
    expect(t).toMatchObject({ form: 'tombstone', reason: 'erased', memory_record_id: id, principal_entity_id: ALICE });
    expect(t.record_digest).toBe(sha(canonicalJson(written.record)));
    expectSchemaValid(t, 'ns.memory_record.v1');
    expect((await verifyDocument(t, jwks)).valid).toBe(true);
    const row = await rt.ctx.store.db
      .selectFrom('memory_contents')
      .selectAll()
      .where('memory_record_id', '=', id)
      .executeTakeFirst();
    expect(row).toBeUndefined();
    const again = await rt.call('DELETE', `/v1/memory/records/${id}`, undefined, aliceReader);
    expect(again.body.tombstone).toEqual(t);
    const read = await rt.call('GET', `/v1/memory/records/${id}`, undefined, aliceReader);
    expect(read.body.verification).toMatchObject({ valid: true, content: 'purged', tombstone_signature: 'valid' });
    const memoryEvents = (await allEvents()).filter((e: { event_type: string }) =>
      e.event_type.startsWith('ns.memory.'),
    );
    expect(memoryEvents.map((e: { event_type: string }) => e.event_type)).toEqual(
      expect.arrayContaining(['ns.memory.written', 'ns.memory.erased']),
    );
    expect(JSON.stringify(memoryEvents)).not.toContain('marmalade');
  });

  it('purges at the end of retention, leaving a tombstone chain that verifies offline and detects a change', async () => {
    const restricted = (await write(body({ diagnosis: 'allergic to nuts' }, 'restricted'))).body;
    const kept = (await write(body({ colour: 'blue' }, 'public'))).body;
    expect(await purgeExpiredMemory(rt.ctx)).toEqual([]);
    clock.advance(31 * DAY);
    const purged = await purgeExpiredMemory(rt.ctx);
    expect(purged).toContain(restricted.memory_record_id);
    expect(purged).not.toContain(kept.memory_record_id);
    const read = await rt.call('GET', `/v1/memory/records/${restricted.memory_record_id}`, undefined, aliceReader);
    expect(read.body).toMatchObject({ state: 'purged', content: null, tombstone: { reason: 'retention_expired' } });
    expect(read.body.verification.valid).toBe(true);
    const keptRead = await rt.call('GET', `/v1/memory/records/${kept.memory_record_id}`, undefined, aliceReader);
    expect(keptRead.body.content).toEqual({ colour: 'blue' });

    const chain = await rt.call('GET', '/v1/memory/tombstones', undefined, aliceReader);
    expect(chain.status, JSON.stringify(chain.body)).toBe(200);
    const items = chain.body.items as Array<Record<string, unknown>>;
    expect(items.length).toBeGreaterThanOrEqual(2);
    expect(items.map((t) => t.sequence)).toEqual(items.map((_, i) => i + 1));
    expect(items[0]?.previous_tombstone_digest).toBeNull();
    expect(chain.body.verification).toMatchObject({ valid: true, length: items.length, findings: [] });
    // offline: the same check with only the JWKS
    const offline = await verifyTombstoneChain(ALICE, items, jwks);
    expect(offline.valid).toBe(true);
    expect(offline.tip_digest).toBe(sha(canonicalJson(items[items.length - 1])));
    // a removed or altered tombstone breaks the chain
    expect((await verifyTombstoneChain(ALICE, items.slice(1), jwks)).valid).toBe(false);
    const altered = items.map((t, i) =>
      i === 0 ? { ...t, reason: 'retention_expired' === t.reason ? 'erased' : 'retention_expired' } : t,
    );
    const broken = await verifyTombstoneChain(ALICE, altered, jwks);
    expect(broken.findings.map((f) => f.problem)).toEqual(
      expect.arrayContaining(['signature_invalid', 'previous_digest_mismatch']),
    );
    // the purge event names the record and the chain, not the content
    const purgedEvent = (await allEvents()).find(
      (e: { event_type: string; subject_ref: string }) =>
        e.event_type === 'ns.memory.purged' && e.subject_ref === restricted.memory_record_id,
    );
    expect(purgedEvent?.data).toMatchObject({ classification: 'restricted', sequence: expect.any(Number) });
    expect(JSON.stringify(purgedEvent)).not.toContain('nuts');
  });

  it('keeps records and tombstones write-once in the database, and the audit chain verifies', async () => {
    const db = rt.ctx.store.db;
    const ended = await db
      .selectFrom('memory_records')
      .select(['memory_record_id', 'tombstone_id'])
      .where('state', '!=', 'active')
      .executeTakeFirstOrThrow();
    const active = await db
      .selectFrom('memory_records')
      .select('memory_record_id')
      .where('state', '=', 'active')
      .executeTakeFirstOrThrow();
    const refused = async (attempt: Promise<unknown>) =>
      expect(
        await attempt.then(
          () => 'ok',
          () => 'refused',
        ),
      ).toBe('refused');
    await refused(
      db
        .updateTable('memory_records')
        .set({ classification: 'public' })
        .where('memory_record_id', '=', active.memory_record_id)
        .execute(),
    );
    await refused(
      db
        .updateTable('memory_records')
        .set({ state: 'active', tombstone_id: null })
        .where('memory_record_id', '=', ended.memory_record_id)
        .execute(),
    );
    await refused(db.deleteFrom('memory_records').where('memory_record_id', '=', active.memory_record_id).execute());
    await refused(
      db
        .deleteFrom('memory_tombstones')
        .where('tombstone_id', '=', ended.tombstone_id as string)
        .execute(),
    );
    await refused(db.updateTable('memory_tombstones').set({ reason: 'erased' }).execute());
    const verified = await rt.call('GET', '/v1/audit/verify');
    expect(verified.status).toBe(200);
    expect(verified.body.valid, JSON.stringify(verified.body).slice(0, 2000)).toBe(true);
  });

  it('the retention worker purges what falls due while it runs, and stops cleanly', async () => {
    const due = (await write(body({ temp: 'soon gone' }, 'restricted'))).body;
    clock.advance(31 * DAY);
    const purged: string[] = [];
    const stop = startMemoryRetentionWorker(rt.ctx, {
      intervalMs: 20,
      onPurged: (ids) => purged.push(...ids),
      onError: (error) => {
        throw error;
      },
    });
    try {
      for (let i = 0; i < 200 && !purged.includes(due.memory_record_id); i++)
        await new Promise((r) => setTimeout(r, 25));
    } finally {
      await stop();
    }
    expect(purged).toContain(due.memory_record_id);
    const read = await rt.call('GET', `/v1/memory/records/${due.memory_record_id}`, undefined, aliceReader);
    expect(read.body).toMatchObject({ state: 'purged', content: null });
  });

  it('refuses a write under a revoked grant with 422 naming /grant_id', async () => {
    const before = await counts();
    const revoked = await rt.call('POST', `/v1/grants/${world.grant.grant_id}/revoke`, {});
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    const res = await write(body({ a: 1 }));
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('reference_invalid');
    expect(res.body.errors[0].path).toBe('/grant_id');
    expect(await counts()).toEqual(before);
  });
});

describe('memory with the capability not enabled', () => {
  let rt: OptInRuntime;
  beforeAll(async () => {
    rt = await startOptInRuntime([]);
  });
  afterAll(async () => rt?.close());

  it('answers capability_not_enabled on every memory route, to the admin too', async () => {
    for (const [method, path] of [
      ['POST', '/v1/memory/records'],
      ['GET', '/v1/memory/records'],
      ['GET', '/v1/memory/records/ns:memory_record:00000000-0000-7000-8000-000000000000'],
      ['DELETE', '/v1/memory/records/ns:memory_record:00000000-0000-7000-8000-000000000000'],
      ['GET', '/v1/memory/tombstones'],
    ] as const) {
      const res = await rt.call(method, path, method === 'POST' ? { content: 'x' } : undefined);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.code).toBe('capability_not_enabled');
    }
  });
});
