import { createToken } from '../../src/services/tokens/manage-tokens.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AarError } from '@aar/core';
import { ensureBootstrapToken, hashToken, requirePrincipalAccess } from '../../src/http/authenticate.ts';
import { buildHarness, PRINCIPAL_ID, type Harness } from './gateway-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await buildHarness({ gateway: { failedAuthPerMinute: 1000 }, captureLogs: true });
});
afterAll(async () => {
  await h.close();
});

function expectProblem(res: { statusCode: number; json: () => unknown }, status: number, code: string): void {
  expect(res.statusCode).toBe(status);
  expect((res.json() as { code: string }).code).toBe(code);
}

describe('authentication', () => {
  it('refuses a request without a token with 401 and a Bearer challenge', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/test/admin' });
    expectProblem(res, 401, 'unauthenticated');
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  it('refuses a wrong, a revoked and a malformed token', async () => {
    for (const authorization of [
      'Bearer aar_not-a-real-token',
      `Bearer ${h.tokens.revoked}`,
      'Basic dXNlcjpwYXNz',
      'Bearer',
    ]) {
      const res = await h.app.inject({ method: 'GET', url: '/test/admin', headers: { authorization } });
      expectProblem(res, 401, 'unauthenticated');
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    }
  });

  it('refuses a token in the query string even beside a valid header', async () => {
    for (const name of ['access_token', 'token', 'api_key']) {
      const res = await h.app.inject({
        method: 'GET',
        url: `/test/admin?${name}=${h.tokens.admin}`,
        headers: h.auth(h.tokens.admin),
      });
      expectProblem(res, 401, 'unauthenticated');
    }
  });

  it('accepts the scheme in any case', async () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      const res = await h.app.inject({
        method: 'GET',
        url: '/test/admin',
        headers: { authorization: `${scheme} ${h.tokens.admin}` },
      });
      expect(res.statusCode, scheme).toBe(200);
    }
  });

  it('lets public routes through without a token', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/test/public' });
    expect(res.statusCode).toBe(200);
  });

  it('refuses a role the route does not list with 403; admin passes everywhere', async () => {
    expectProblem(
      await h.app.inject({ method: 'GET', url: '/test/admin', headers: h.auth(h.tokens.runtime) }),
      403,
      'forbidden',
    );
    expectProblem(
      await h.app.inject({ method: 'GET', url: '/test/query', headers: h.auth(h.tokens.principal) }),
      403,
      'forbidden',
    );
    expect(
      (await h.app.inject({ method: 'GET', url: '/test/query', headers: h.auth(h.tokens.auditor) })).statusCode,
    ).toBe(200);
    expect(
      (await h.app.inject({ method: 'GET', url: '/test/query', headers: h.auth(h.tokens.admin) })).statusCode,
    ).toBe(200);
  });

  it('never logs the token', async () => {
    await h.app.inject({
      method: 'GET',
      url: `/test/admin?token=${h.tokens.runtime}`,
      headers: h.auth(h.tokens.runtime),
    });
    await h.app.inject({ method: 'GET', url: '/test/admin', headers: h.auth(h.tokens.runtime) });
    const logs = h.logs.join('');
    expect(logs).toContain('"url":"/test/admin?token=[redacted]"');
    expect(logs).not.toContain(h.tokens.runtime);
    expect(logs).not.toContain(h.tokens.runtime.slice(4));
  });
});

describe('the failed-authentication budget', () => {
  it('answers 429 with Retry-After once an address has failed too often, before looking the token up', async () => {
    const strict = await buildHarness({ gateway: { failedAuthPerMinute: 3 } });
    try {
      for (let i = 0; i < 3; i++) {
        const res = await strict.app.inject({
          method: 'GET',
          url: '/test/admin',
          headers: { authorization: `Bearer guess-${i}` },
        });
        expect(res.statusCode).toBe(401);
      }
      const guess = await strict.app.inject({
        method: 'GET',
        url: '/test/admin',
        headers: { authorization: 'Bearer guess-4' },
      });
      expectProblem(guess, 429, 'rate_limited');
      expect(Number(guess.headers['retry-after'])).toBeGreaterThan(0);
      // even a valid token from that address waits: a success would confirm a guess
      const valid = await strict.app.inject({
        method: 'GET',
        url: '/test/admin',
        headers: strict.auth(strict.tokens.admin),
      });
      expect(valid.statusCode).toBe(429);
      // another address is not affected
      const other = await strict.app.inject({
        method: 'GET',
        url: '/test/admin',
        headers: strict.auth(strict.tokens.admin),
        remoteAddress: '192.0.2.7',
      });
      expect(other.statusCode).toBe(200);
    } finally {
      await strict.close();
    }
  });
});

describe('requirePrincipalAccess', () => {
  const cred = (role: 'admin' | 'runtime' | 'principal' | 'auditor', principal: string | null = null) => ({
    token_id: 'ns:token:x',
    role,
    principal_entity_id: principal,
  });
  const codeOf = (fn: () => void): string | undefined => {
    try {
      fn();
      return undefined;
    } catch (error) {
      return (error as AarError).code;
    }
  };

  it('allows admin and the bound principal only', () => {
    expect(codeOf(() => requirePrincipalAccess(cred('admin'), PRINCIPAL_ID))).toBeUndefined();
    expect(codeOf(() => requirePrincipalAccess(cred('principal', PRINCIPAL_ID), PRINCIPAL_ID))).toBeUndefined();
    expect(codeOf(() => requirePrincipalAccess(cred('principal', 'ns:entity:person:bob'), PRINCIPAL_ID))).toBe(
      'forbidden',
    );
    expect(codeOf(() => requirePrincipalAccess(cred('runtime'), PRINCIPAL_ID))).toBe('forbidden');
    expect(codeOf(() => requirePrincipalAccess(cred('auditor'), PRINCIPAL_ID))).toBe('forbidden');
    expect(codeOf(() => requirePrincipalAccess(null, PRINCIPAL_ID))).toBe('unauthenticated');
  });
});

describe('api tokens', () => {
  it('creates `aar_` secrets of 32 random bytes and stores only their hash', async () => {
    const created = await createToken(h.ctx, null, { role: 'auditor', label: 'ci' });
    expect(created.token).toMatch(/^aar_[A-Za-z0-9_-]{43}$/);
    expect(created.token_id).toMatch(/^ns:token:[0-9a-f-]{36}$/);
    const row = await h.ctx.store.db
      .selectFrom('api_tokens')
      .selectAll()
      .where('token_id', '=', created.token_id)
      .executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(hashToken(created.token));
    expect(JSON.stringify(row)).not.toContain(created.token.slice(4));
    expect(row).toMatchObject({ role: 'auditor', label: 'ci', principal_entity_id: null });
  });

  it('binds principal tokens to an existing principal and nothing else', async () => {
    const codeOf = async (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: AarError) => e.code,
      );
    expect(await codeOf(createToken(h.ctx, null, { role: 'principal' }))).toBe('invalid_request');
    expect(await codeOf(createToken(h.ctx, null, { role: 'runtime', principal_entity_id: PRINCIPAL_ID }))).toBe(
      'invalid_request',
    );
    expect(
      await codeOf(createToken(h.ctx, null, { role: 'principal', principal_entity_id: 'ns:entity:person:nobody' })),
    ).toBe('reference_not_found');
    expect(
      await codeOf(createToken(h.ctx, null, { role: 'principal', principal_entity_id: 'ns:human:alice' })),
    ).toBeUndefined();
  });

  it('registers the bootstrap token on an empty store only, once', async () => {
    const fresh = await buildHarness({ config: { bootstrapToken: 'boot-secret-123' } });
    try {
      // the harness created tokens already: nothing happens
      expect(await ensureBootstrapToken(fresh.ctx)).toBe(false);
      await fresh.ctx.store.db.deleteFrom('api_tokens').execute();
      expect(await ensureBootstrapToken(fresh.ctx)).toBe(true);
      expect(await ensureBootstrapToken(fresh.ctx)).toBe(false);
      const rows = await fresh.ctx.store.db.selectFrom('api_tokens').selectAll().execute();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ role: 'admin', label: 'bootstrap', token_hash: hashToken('boot-secret-123') });
      const res = await fresh.app.inject({ method: 'GET', url: '/test/admin', headers: fresh.auth('boot-secret-123') });
      expect(res.statusCode).toBe(200);
    } finally {
      await fresh.close();
    }
  });

  it('does nothing without a configured bootstrap token, even on an empty store', async () => {
    const fresh = await buildHarness();
    try {
      await fresh.ctx.store.db.deleteFrom('api_tokens').execute();
      expect(await ensureBootstrapToken(fresh.ctx)).toBe(false);
      expect(await fresh.ctx.store.db.selectFrom('api_tokens').selectAll().execute()).toHaveLength(0);
    } finally {
      await fresh.close();
    }
  });
});
