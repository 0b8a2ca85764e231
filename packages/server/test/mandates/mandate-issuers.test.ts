/**
 * POST /v1/mandate-issuers (CONTRACT section 21): a JWKS given inline or fetched ONCE from `jwks_uri` through the
 * webhook SSRF guard (a loopback JWKS server, reachable only with the test-only AAR_WEBHOOK_ALLOW_INSECURE, as the
 * webhook tests do), kept in the write-once row; without the allowance the same URL is refused before any request.
 * Private key members, redirects, non-JSON and oversized answers are refused; nothing is written on a refusal.
 * Audit verify checks a registration against its entry.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiCall, type ApiCall } from '../support/api-call.ts';
import { bypassingGuards } from '../support/bypassing-guards.ts';
import { testDialects } from '../support/dialects.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';
import { testKey } from './support/ap2-chain.ts';

const dialects = await testDialects();

describe.each(dialects)('trusted mandate issuers on %s', (dialect) => {
  let rt: TestRuntime;
  let strict: TestRuntime;
  let call: ApiCall;
  let strictCall: ApiCall;
  let jwksServer: Server;
  let jwksBase: string;
  let hits = 0;
  let publicJwk: Record<string, unknown>;

  beforeAll(async () => {
    publicJwk = (await testKey('k-1')).publicJwk as Record<string, unknown>;
    jwksServer = createServer((req, res) => {
      hits += 1;
      if (req.url === '/jwks.json') {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ keys: [publicJwk] }));
      } else if (req.url === '/redirect') {
        res.statusCode = 302;
        res.setHeader('location', '/jwks.json');
        res.end();
      } else if (req.url === '/private') {
        res.end(JSON.stringify({ keys: [{ ...publicJwk, d: 'c2VjcmV0' }] }));
      } else if (req.url === '/big') {
        res.end(JSON.stringify({ keys: [publicJwk], pad: 'x'.repeat(70_000) }));
      } else {
        res.end('not json');
      }
    });
    await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
    jwksBase = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}`;
    rt = await startTestRuntime({ dialect, config: { webhookAllowInsecure: true } });
    call = createApiCall(await rt.app.listen({ host: '127.0.0.1', port: 0 }), ADMIN_TOKEN);
    strict = await startTestRuntime({ dialect: 'sqlite' });
    strictCall = createApiCall(await strict.app.listen({ host: '127.0.0.1', port: 0 }), ADMIN_TOKEN);
  }, 60_000);
  afterAll(async () => {
    await rt?.close();
    await strict?.close();
    await new Promise((resolve) => jwksServer?.close(resolve));
  });

  const issuers = async (on: TestRuntime) =>
    (await on.ctx.store.db.selectFrom('mandate_issuers').selectAll().execute()).length;

  it('fetches a JWKS once from jwks_uri and keeps it', async () => {
    const before = hits;
    const res = await call('POST', '/v1/mandate-issuers', {
      issuer: 'https://fetched.issuer.test',
      format: 'ap2',
      jwks_uri: `${jwksBase}/jwks.json`,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ jwks_uri: `${jwksBase}/jwks.json`, jwks: { keys: [publicJwk] } });
    expect(res.body.audit_ref).toMatch(/^ns:audit:/);
    expect(hits - before).toBe(1);
    // listing reads the stored keys: no second fetch
    const list = await call('GET', '/v1/mandate-issuers');
    expect(list.body.items).toHaveLength(1);
    expect(hits - before).toBe(1);
    expect((await call('GET', '/v1/audit/verify')).body.valid).toBe(true);
  });

  it('refuses redirects, private keys, non-JSON, oversized answers and bad bodies, writing nothing', async () => {
    const before = await issuers(rt);
    for (const [path, issuer] of [
      ['/redirect', 'a'],
      ['/private', 'b'],
      ['/nothing', 'c'],
      ['/big', 'd'],
    ] as const) {
      const res = await call('POST', '/v1/mandate-issuers', { issuer, format: 'ap2', jwks_uri: `${jwksBase}${path}` });
      expect(res.status, path).toBe(422);
      expect(res.body).toMatchObject({ code: 'reference_invalid', errors: [{ path: '/jwks_uri' }] });
    }
    const both = await call('POST', '/v1/mandate-issuers', {
      issuer: 'e',
      format: 'ap2',
      jwks: { keys: [publicJwk] },
      jwks_uri: `${jwksBase}/jwks.json`,
    });
    expect(both.status).toBe(400);
    const secret = await call('POST', '/v1/mandate-issuers', {
      issuer: 'f',
      format: 'ap2',
      jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] },
    });
    expect(secret).toMatchObject({ status: 400, body: { errors: [{ path: '/jwks/keys/0' }] } });
    expect(await issuers(rt)).toBe(before);
  });

  it('refuses a loopback jwks_uri without the test-only allowance, before any request', async () => {
    const before = hits;
    const res = await strictCall('POST', '/v1/mandate-issuers', {
      issuer: 'https://loopback.issuer.test',
      format: 'ap2',
      jwks_uri: `${jwksBase}/jwks.json`,
    });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].path).toBe('/jwks_uri');
    const https = await strictCall('POST', '/v1/mandate-issuers', {
      issuer: 'https://loopback.issuer.test',
      format: 'ap2',
      jwks_uri: 'https://127.0.0.1/jwks.json',
    });
    expect(https.status).toBe(422);
    expect(https.body.errors[0].message).toMatch(/loopback/);
    expect(hits).toBe(before);
    expect(await issuers(strict)).toBe(0);
  });

  it('has audit verify find a swapped key (an attacker with SQL access, not the service key)', async () => {
    const other = (await testKey('k-1')).publicJwk;
    const db = rt.ctx.store.db;
    const row = await db.selectFrom('mandate_issuers').selectAll().executeTakeFirstOrThrow();
    await bypassingGuards(db, dialect, async (e) => {
      await e
        .updateTable('mandate_issuers')
        .set({ jwks: JSON.stringify({ keys: [other] }) })
        .where('issuer', '=', row.issuer)
        .execute();
    });
    const found = (await call('GET', '/v1/audit/verify')).body;
    expect(found).toMatchObject({ valid: false, record: { table: 'mandate_issuers', id: row.issuer } });
    await bypassingGuards(db, dialect, async (e) => {
      await e.updateTable('mandate_issuers').set({ jwks: row.jwks }).where('issuer', '=', row.issuer).execute();
    });
    expect((await call('GET', '/v1/audit/verify')).body.valid).toBe(true);
  });

  it('is admin only', async () => {
    const token = (await call('POST', '/v1/tokens', { role: 'auditor' })).body.token as string;
    expect(
      (await call('POST', '/v1/mandate-issuers', { issuer: 'x', format: 'ap2', jwks: { keys: [publicJwk] } }, token))
        .status,
    ).toBe(403);
    expect((await call('GET', '/v1/mandate-issuers', undefined, token)).status).toBe(200);
  });
});
