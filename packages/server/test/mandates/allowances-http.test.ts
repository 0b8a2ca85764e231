/**
 * POST /v1/allowances over HTTP on both databases (CONTRACT section 21), with the ACP vectors
 * (../shared/vectors/acp, skipped with a notice when absent): the published success example's allowance becomes a
 * one-use grant under the principal's grant; the example as published, with its test card number, is refused with
 * `pan_refused` and nothing of it is stored or logged; a card without a number is still refused; ACP's idempotency
 * rules (key required, replay, conflict, in flight) with ACP's codes; bad allowances name the field and write nothing.
 * The clock stands before the example's `expires_at` (2025-10-09).
 */
import { existsSync, readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { requestHash } from '../../src/http/idempotency.ts';
import { loggerOptions } from '../../src/http/observability.ts';
import { buildDelegationWorld, type DelegationWorld } from '../support/delegation-world.ts';
import { testDialects } from '../support/dialects.ts';
import { fixedClock } from '../support/fixed-clock.ts';
import { inOneYear } from '../support/fixtures.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const VECTORS = new URL('../../../../../shared/vectors/acp/examples.delegate_payment.json', import.meta.url);
const present = existsSync(VECTORS);
if (!present) console.warn(`\n[mandates] NOTICE: ${VECTORS.pathname} is absent: the ACP allowance tests are SKIPPED\n`);
const examples = present ? (JSON.parse(readFileSync(VECTORS, 'utf8')) as Record<string, Record<string, unknown>>) : {};
const request = examples.delegate_payment_request ?? {};
const CARD_NUMBER = String((request.payment_method as { number?: string } | undefined)?.number ?? '');
const dialects = await testDialects();

describe.skipIf(!present).each(dialects)('ACP allowances over HTTP on %s', (dialect) => {
  let rt: TestRuntime;
  let w: DelegationWorld;
  let base: string;
  let parent: string;
  let seq = 0;

  beforeAll(async () => {
    const clock = fixedClock('2025-10-01T12:00:00.000Z');
    rt = await startTestRuntime({ dialect, clock });
    base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    w = await buildDelegationWorld(base, ADMIN_TOKEN, clock);
    await w.must('POST', '/v1/merchants', {
      id: 'acme_store',
      display_name: 'Acme',
      category: '5411',
      jurisdiction: 'US',
    });
    // the principal's grant in the allowance's currency, over her second card token
    parent = (
      await w.must('POST', '/v1/grants', {
        principal_entity_id: 'ns:entity:person:alice',
        actor_entity_id: 'ns:entity:agent:concierge',
        capability_id: 'ns:capability:payment_action:card_purchase',
        resource_id: 'ns:credential:card-token:tok-2',
        scope: {
          max_amount_per_purchase: { amount: 100, currency: 'USD' },
          max_daily_amount: { amount: 300, currency: 'USD' },
          may_delegate: true,
          valid_until: inOneYear(),
        },
      })
    ).grant_id;
  }, 60_000);
  afterAll(async () => rt?.close());

  const post = async (body: unknown, key: string | null = `key-${++seq}`, token = ADMIN_TOKEN) => {
    const res = await fetch(`${base}/v1/allowances`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        ...(key === null ? {} : { 'idempotency-key': key }),
      },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : undefined };
  };
  const ours = (allowance: unknown = request.allowance, extra: Record<string, unknown> = {}) => ({
    format: 'acp',
    allowance,
    risk_signals: request.risk_signals,
    metadata: request.metadata,
    vaulted_token_id: 'vt_01J8Z3WXYZ9ABC',
    parent_grant_id: parent,
    actor_entity_id: 'ns:entity:agent:shopper-1',
    ...extra,
  });
  const counts = async () => {
    const db = rt.ctx.store.db;
    const n = async (t: 'mandates' | 'grants' | 'events' | 'audit_entries') =>
      Number(
        (
          await db
            .selectFrom(t)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    return {
      mandates: await n('mandates'),
      grants: await n('grants'),
      events: await n('events'),
      audit: await n('audit_entries'),
    };
  };

  it('refuses the example as published (a card number) with pan_refused: nothing stored, nothing logged', async () => {
    const before = await counts();
    const lines: string[] = [];
    const app = await buildApp(rt.ctx, {
      logger: {
        ...loggerOptions({ logLevel: 'trace' }),
        stream: new Writable({
          write(chunk, _encoding, done) {
            lines.push(String(chunk));
            done();
          },
        }),
      },
    });
    try {
      const res = await app.inject({
        method: 'POST',
        url: '/v1/allowances',
        headers: {
          authorization: `Bearer ${ADMIN_TOKEN}`,
          'content-type': 'application/json',
          'idempotency-key': 'pan-1',
        },
        payload: JSON.stringify({
          format: 'acp',
          ...request,
          vaulted_token_id: 'vt_1',
          parent_grant_id: parent,
          actor_entity_id: 'ns:entity:agent:shopper-1',
        }),
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'pan_refused' });
      expect(res.json().errors[0].path).toBe('/payment_method/number');
      expect(res.body).not.toContain(CARD_NUMBER);
    } finally {
      await app.close();
    }
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join('')).not.toContain(CARD_NUMBER);
    expect(await counts()).toEqual(before);
    const stored = await rt.ctx.store.db.selectFrom('idempotency_keys').selectAll().execute();
    expect(JSON.stringify(stored)).not.toContain(CARD_NUMBER);
  });

  it('refuses a payment_method without a card number too (invalid_request), and a request without a key', async () => {
    const before = await counts();
    const { number: _number, ...card } = request.payment_method as Record<string, unknown>;
    const res = await post(ours(request.allowance, { payment_method: { ...card, card_number_type: 'network_token' } }));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_request', errors: [{ path: '/payment_method' }] });
    const keyless = await post(ours(), null);
    expect(keyless.status).toBe(400);
    expect(keyless.body).toMatchObject({
      code: examples.delegate_payment_error_idempotency_key_required!.code,
      errors: [{ path: '/headers/idempotency-key' }],
    });
    expect(await counts()).toEqual(before);
  });

  it('accepts the success example\u2019s allowance as a one-use grant, and honours ACP idempotency', async () => {
    const body = ours();
    const res = await post(body, 'idem_abc123');
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      format: 'acp',
      state: 'active',
      single_use: true,
      checkout_session_id: 'csn_01HV3P3XYZ9ABC',
      vaulted_token_id: 'vt_01J8Z3WXYZ9ABC',
      expires_at: '2025-10-09T07:20:50.520Z',
      parent_grant_id: parent,
    });
    expect(res.body.allowance_id).toMatch(/^ns:allowance:[0-9a-f-]{36}$/);
    expect(res.body.grant.scope).toMatchObject({
      max_amount_per_purchase: { amount: 20, currency: 'USD' },
      budget: { amount: 20, currency: 'USD', period: 'total' },
      allowed_merchants: ['acme_store'],
      valid_until: '2025-10-09T07:20:50.520Z',
      may_delegate: false,
    });
    expect(res.body.grant.resource_id).toBe('ns:credential:card-token:tok-2');
    expect(res.body.grant.link.mandate).toEqual({
      mandate_id: res.body.allowance_id,
      format: 'acp',
      digest: res.body.digest,
    });

    // same key, same body: the first answer, replayed
    const replay = await post(body, 'idem_abc123');
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(res.text);
    // same key, another body: ACP's idempotency_conflict
    const before = await counts();
    const conflict = await post(ours({ ...(request.allowance as object), max_amount: 1500 }), 'idem_abc123');
    expect(conflict.status).toBe(422);
    expect(conflict.body.code).toBe(examples.delegate_payment_error_idempotency_conflict!.code);
    // another key, the same allowance: accepted once (409 naming it)
    const twice = await post(body);
    expect(twice.status).toBe(409);
    expect(twice.body.allowance_id).toBe(res.body.allowance_id);
    expect(await counts()).toEqual(before);

    const got = await w.call('GET', `/v1/allowances/${res.body.allowance_id}`, undefined, w.aliceToken);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ allowance_id: res.body.allowance_id, state: 'active', digest: res.body.digest });
    expect((await w.call('GET', `/v1/allowances/${res.body.allowance_id}`, undefined, w.bobToken)).status).toBe(404);
    const event = await rt.ctx.store.db
      .selectFrom('events')
      .select('envelope')
      .where('event_type', '=', 'ns.allowance.accepted')
      .executeTakeFirstOrThrow();
    expect(event.envelope).not.toContain('vt_01J8Z3WXYZ9ABC');
    expect(JSON.parse(event.envelope).data).toMatchObject({
      allowance_id: res.body.allowance_id,
      merchant_id: 'acme_store',
    });
  });

  it('answers a key whose first request is still running with idempotency_in_flight (409)', async () => {
    const body = ours({ ...(request.allowance as object), checkout_session_id: 'csn_in_flight' });
    const admin = await rt.ctx.store.db
      .selectFrom('api_tokens')
      .select('token_id')
      .where('role', '=', 'admin')
      .executeTakeFirstOrThrow();
    const now = rt.ctx.clock.now();
    await rt.ctx.store.db
      .insertInto('idempotency_keys')
      .values({
        credential_id: admin.token_id,
        idem_key: 'running-1',
        request_hash: requestHash({ method: 'POST', url: '/v1/allowances', body }),
        state: 'in_flight',
        response_status: null,
        response_headers: null,
        response_body: null,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + 60_000).toISOString(),
      })
      .execute();
    const res = await post(body, 'running-1');
    expect(res.status).toBe(409);
    expect(res.body.code).toBe(examples.delegate_payment_error_idempotency_in_flight!.code);
  });

  it('refuses bad allowances naming the field, writing nothing', async () => {
    const allowance = request.allowance as Record<string, unknown>;
    const before = await counts();
    const cases: Array<[string, unknown, number, string, string]> = [
      [
        'unknown merchant',
        { ...allowance, merchant_id: 'nowhere' },
        422,
        'reference_not_found',
        '/allowance/merchant_id',
      ],
      ['extra member', { ...allowance, note: 'x' }, 422, 'mandate_invalid', '/allowance/note'],
      ['not one_time', { ...allowance, reason: 'recurring' }, 422, 'mandate_invalid', '/allowance/reason'],
      [
        'expired',
        { ...allowance, expires_at: '2025-09-01T00:00:00Z' },
        422,
        'mandate_invalid',
        '/allowance/expires_at',
      ],
      ['wider than the parent', { ...allowance, max_amount: 20_000 }, 422, 'mandate_invalid', '/scope/'],
      ['another currency', { ...allowance, currency: 'eur' }, 422, 'mandate_invalid', '/scope/'],
    ];
    for (const [what, value, status, code, path] of cases) {
      const res = await post(ours(value));
      expect(res.status, `${what}: ${res.text}`).toBe(status);
      expect(res.body.code, what).toBe(code);
      expect(res.body.errors[0].path, what).toContain(path);
    }
    expect((await post(ours(), undefined, w.runtimeToken)).status).toBe(403);
    expect((await post(ours(), undefined, w.bobToken)).status).toBe(403);
    expect(await counts()).toEqual(before);
  });

  it('revokes an allowance through the cascade', async () => {
    const made = await post(ours({ ...(request.allowance as object), checkout_session_id: 'csn_revoked' }));
    expect(made.status).toBe(201);
    const revoked = await w.call('POST', `/v1/allowances/${made.body.allowance_id}/revoke`, undefined, w.aliceToken);
    expect(revoked.status).toBe(200);
    expect((await w.call('GET', `/v1/allowances/${made.body.allowance_id}`)).body.state).toBe('revoked');
    expect((await w.call('GET', '/v1/audit/verify')).body.valid).toBe(true);
  });
});
