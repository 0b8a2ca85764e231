/**
 * Issue 8, point 6, over a real socket: card numbers written with dots, underscores, glued to letters, in full-width
 * digits, or carried in a stored header (Idempotency-Key, Signature-Input's nonce) are refused 400 `pan_refused`
 * naming the place, never echoed, and nothing is stored; ordinary Luhn-invalid 12-19 digit ids still pass.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { luhnValid } from '@aar/core';
import { buildPurchaseWorld } from '../support/purchase-world.ts';
import { ADMIN_TOKEN, auth, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const SEED = 8_062_026;

/** Luhn-valid 12-19 digit numbers. */
const pan = fc
  .tuple(fc.integer({ min: 11, max: 18 }), fc.bigInt({ min: 10n ** 17n, max: 10n ** 18n - 1n }))
  .map(([length, n]) => {
    const body = n.toString().slice(0, length);
    for (let check = 0; check < 10; check++) if (luhnValid(body + check)) return body + check;
    throw new Error('unreachable');
  });

/** Luhn-invalid 12-19 digit numbers. */
const ordinaryNumber = fc
  .tuple(fc.integer({ min: 12, max: 19 }), fc.bigInt({ min: 10n ** 18n, max: 10n ** 19n - 1n }))
  .map(([length, n]) => {
    const digits = n.toString().slice(0, length);
    return luhnValid(digits) ? digits.slice(0, -1) + String((Number(digits.at(-1)) + 1) % 10) : digits;
  });

const fullWidth = (text: string) => text.replace(/[0-9]/g, (d) => String.fromCharCode(0xff10 + Number(d)));
const grouped = (digits: string, sep: string) => (digits.match(/.{1,4}/g) as string[]).join(sep);

/** How people write a card number, ASCII only (what an HTTP header can carry). */
const writtenAscii = fc
  .tuple(pan, fc.constantFrom('', ' ', '-', '.', '_'), fc.constantFrom('', 'card', 'ref', 'k-', 'x_'))
  .map(([digits, sep, prefix]) => `${prefix}${sep === '' ? digits : grouped(digits, sep)}`);

/** ...and in text, where full-width digits and separators may appear too. */
const writtenAnywhere = fc.oneof(
  writtenAscii,
  pan.map((digits) => fullWidth(digits)),
  pan.map((digits) => `my card ${fullWidth(grouped(digits, '\uff0d'))} thanks`),
  pan.map((digits) => `card${digits}`),
);

describe('card numbers are refused wherever they hide', () => {
  let rt: TestRuntime;
  let base: string;
  let world: Awaited<ReturnType<typeof buildPurchaseWorld>>;

  beforeAll(async () => {
    rt = await startTestRuntime();
    base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    world = await buildPurchaseWorld(base, ADMIN_TOKEN);
  });
  afterAll(async () => rt?.close());

  const counts = async () => {
    const db = rt.ctx.store.db;
    const count = async (table: 'entities' | 'events' | 'idempotency_keys' | 'request_nonces' | 'decisions') =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    return {
      entities: await count('entities'),
      events: await count('events'),
      idempotency_keys: await count('idempotency_keys'),
      request_nonces: await count('request_nonces'),
      decisions: await count('decisions'),
    };
  };

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  /** the refusal: 400 pan_refused naming `path`, with no trace of the digits in the answer */
  const expectRefused = async (res: Response, path: string, digits: string) => {
    const text = await res.text();
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = JSON.parse(text);
    expect(problem.code).toBe('pan_refused');
    expect(problem.errors).toEqual([{ path, message: expect.any(String) }]);
    const seen = text.normalize('NFKC').replace(/[^0-9]/g, '');
    expect(seen).not.toContain(digits.slice(0, 12));
    for (const value of res.headers.values()) expect(value.replace(/[^0-9]/g, '')).not.toContain(digits.slice(0, 12));
  };

  it('in a body field: dots, underscores, glued to letters, full-width digits (property)', async () => {
    const before = await counts();
    const samples = fc.sample(writtenAnywhere, { numRuns: 40, seed: SEED });
    for (const written of samples) {
      const res = await post('/v1/entities', { type: 'person', display_name: written });
      await expectRefused(res, '/display_name', written.normalize('NFKC').replace(/[^0-9]/g, ''));
    }
    expect(await counts()).toEqual(before);
  });

  it('the issue cases, one by one', async () => {
    const before = await counts();
    for (const written of ['card4111111111111111', '4111.1111.1111.1111', '４１１１１１１１１１１１１１１１']) {
      await expectRefused(
        await post('/v1/entities', { type: 'person', display_name: written }),
        '/display_name',
        '4111111111111111',
      );
    }
    expect(await counts()).toEqual(before);
  });

  it('in the Idempotency-Key header: refused before anything runs, the key never stored (property)', async () => {
    const before = await counts();
    for (const written of fc.sample(writtenAscii, { numRuns: 30, seed: SEED + 1 })) {
      const res = await post('/v1/entities', { type: 'person', display_name: 'Kim' }, { 'idempotency-key': written });
      await expectRefused(res, '/headers/idempotency-key', written.replace(/[^0-9]/g, ''));
    }
    expect(await counts()).toEqual(before);
  });

  it('in the nonce of Signature-Input: refused, no nonce remembered, no decision recorded', async () => {
    const before = await counts();
    const text = JSON.stringify(world.purchase(10));
    const signed = await world.signer.sign({ method: 'POST', url: `${base}/v1/runtime/authorize`, body: text });
    const input = signed['signature-input']!.replace(/nonce="[^"]*"/, 'nonce="4111-1111-1111-1111"');
    const res = await fetch(`${base}/v1/runtime/authorize`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${world.runtimeToken}`,
        'content-type': 'application/json',
        ...signed,
        'signature-input': input,
      },
      body: text,
    });
    await expectRefused(res, '/headers/signature-input', '4111111111111111');
    expect(await counts()).toEqual(before);
  });

  it('in the URL, full-width or percent-encoded', async () => {
    for (const id of [
      'card4111111111111111',
      encodeURIComponent('４１１１１１１１１１１１１１１１'),
      '4111.1111.1111.1111',
    ]) {
      const res = await fetch(`${base}/v1/entities/ns:entity:person:${id}`, { headers: auth() });
      await expectRefused(res, '/url', '4111111111111111');
    }
  });

  it('replaces an X-Request-Id holding a card number instead of echoing it', async () => {
    const res = await fetch(`${base}/v1/entities?limit=1`, {
      headers: { ...auth(), 'x-request-id': 'req_4111_1111_1111_1111' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).not.toContain('4111');
    const kept = await fetch(`${base}/v1/entities?limit=1`, {
      headers: { ...auth(), 'x-request-id': 'req-123456789012' },
    });
    expect(luhnValid('123456789012')).toBe(false);
    expect(kept.headers.get('x-request-id')).toBe('req-123456789012');
  });

  it('accepts ordinary Luhn-invalid 12-19 digit ids in bodies, ids and Idempotency-Keys (property)', async () => {
    const samples = fc.sample(fc.tuple(ordinaryNumber, fc.constantFrom('order-', 'ord_', 'txn', 'id.', '')), {
      numRuns: 25,
      seed: SEED + 2,
    });
    const seen = new Set<string>();
    for (const [digits, prefix] of samples) {
      if (seen.has(digits)) continue; // each sample is a new entity with a new key
      seen.add(digits);
      const id = `${prefix}${digits}`;
      const res = await post(
        '/v1/entities',
        { type: 'person', id, display_name: `customer ${fullWidth(digits)} since 2026-11-20T10:30:00Z` },
        { 'idempotency-key': `key-${digits}` },
      );
      expect(res.status, await res.clone().text()).toBe(201);
      const row = await rt.ctx.store.db
        .selectFrom('idempotency_keys')
        .select('idem_key')
        .where('idem_key', '=', `key-${digits}`)
        .executeTakeFirst();
      expect(row?.idem_key).toBe(`key-${digits}`);
    }
  });
});
