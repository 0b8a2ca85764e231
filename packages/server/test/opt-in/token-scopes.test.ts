/**
 * Token scopes and opt-in capabilities (CONTRACT section 22), over a real socket: AAR_OPT_IN parsing; token creation
 * with scopes (unknown scope 400 naming `/scopes/<i>`, a scope of a disabled capability 403, nothing written either
 * way); listing shows the scopes; the authentication hook on a route declaring `config.scope` refuses a disabled
 * capability (403 `capability_not_enabled`, every role) and a credential without the scope (403 `scope_missing`,
 * admin included), and lets a scoped credential through.
 * The probe routes are mounted on the real gateway (createFastify: parsing, auth hook, error mapping) of the test
 * runtime's context, since the memory/search/reports routes are what the scopes guard in production.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { createFastify } from '../../src/http/create-fastify.ts';
import type { TokenScope } from '../../src/http/token-scopes.ts';
import { createApiCall, type ApiCall } from '../support/api-call.ts';
import { createPerson, mintToken, startOptInRuntime, type OptInRuntime } from '../support/opt-in.ts';
import { ADMIN_TOKEN } from '../support/test-runtime.ts';

describe('AAR_OPT_IN', () => {
  it('is empty by default and reads a comma list', () => {
    expect([...loadConfig({}).optIn]).toEqual([]);
    expect([...loadConfig({ AAR_OPT_IN: '' }).optIn]).toEqual([]);
    expect([...loadConfig({ AAR_OPT_IN: ' memory , reports,memory' }).optIn].sort()).toEqual(['memory', 'reports']);
  });
  it('refuses an unknown capability at start', () => {
    expect(() => loadConfig({ AAR_OPT_IN: 'memory,memroy' })).toThrow(ConfigError);
    expect(() => loadConfig({ AAR_OPT_IN: 'Memory' })).toThrow(/AAR_OPT_IN/);
  });
});

/** A gateway (the real one) with probe routes guarded by scopes, listening on a socket. */
async function probeApp(rt: OptInRuntime): Promise<{ app: FastifyInstance; call: ApiCall }> {
  const app = await createFastify(rt.ctx);
  const probe = (path: string, scope: TokenScope | TokenScope[]) =>
    app.get(path, { config: { roles: ['principal', 'runtime'], scope } }, async () => ({ ok: true }));
  probe('/probe/memory-read', 'memory.read');
  probe('/probe/memory-any', ['memory.read', 'memory.write']);
  probe('/probe/search', 'search.read');
  await app.ready();
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, call: createApiCall(base, ADMIN_TOKEN) };
}

describe('token scopes with memory enabled', () => {
  let rt: OptInRuntime;
  let probe: { app: FastifyInstance; call: ApiCall };
  let alice: string;

  beforeAll(async () => {
    rt = await startOptInRuntime(['memory']);
    probe = await probeApp(rt);
    alice = await createPerson(rt.call, 'alice');
  });
  afterAll(async () => {
    await probe?.app.close();
    await rt?.close();
  });

  const tokenCount = async () =>
    Number(
      (
        await rt.ctx.store.db
          .selectFrom('api_tokens')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('creates a token with scopes, sorted and unique, and lists them', async () => {
    const res = await rt.call('POST', '/v1/tokens', {
      role: 'principal',
      principal_entity_id: alice,
      scopes: ['memory.write', 'memory.read', 'memory.write'],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.scopes).toEqual(['memory.read', 'memory.write']);
    const listed = await rt.call('GET', '/v1/tokens?limit=100');
    const row = listed.body.items.find((t: { token_id: string }) => t.token_id === res.body.token_id);
    expect(row.scopes).toEqual(['memory.read', 'memory.write']);
    const bootstrap = listed.body.items.find((t: { label: string | null }) => t.label === 'bootstrap');
    expect(bootstrap.scopes).toEqual([]);
  });

  it('refuses an unknown scope with 400 naming /scopes/<i>, writing nothing', async () => {
    const before = await tokenCount();
    const res = await rt.call('POST', '/v1/tokens', { role: 'runtime', scopes: ['memory.read', 'memory.admin'] });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_request');
    expect(res.body.errors).toEqual([expect.objectContaining({ path: '/scopes/1' })]);
    expect(await tokenCount()).toBe(before);
  });

  it('refuses a scope of a capability the deployment has not enabled with 403, writing nothing', async () => {
    const before = await tokenCount();
    const res = await rt.call('POST', '/v1/tokens', { role: 'runtime', scopes: ['memory.read', 'search.read'] });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('capability_not_enabled');
    expect(res.body.errors).toEqual([expect.objectContaining({ path: '/scopes/1' })]);
    expect(await tokenCount()).toBe(before);
  });

  it('lets a credential holding the scope through', async () => {
    const reader = await mintToken(rt.call, { role: 'principal', principal: alice, scopes: ['memory.read'] });
    expect((await probe.call('GET', '/probe/memory-read', undefined, reader)).status).toBe(200);
    expect((await probe.call('GET', '/probe/memory-any', undefined, reader)).status).toBe(200);
    const writer = await mintToken(rt.call, { role: 'runtime', scopes: ['memory.write'] });
    expect((await probe.call('GET', '/probe/memory-any', undefined, writer)).status).toBe(200);
    const admin = await mintToken(rt.call, { role: 'admin', scopes: ['memory.read'] });
    expect((await probe.call('GET', '/probe/memory-read', undefined, admin)).status).toBe(200);
  });

  it('refuses a credential without the scope, whatever its role (admin included), naming the scope', async () => {
    const writer = await mintToken(rt.call, { role: 'runtime', scopes: ['memory.write'] });
    const bare = await mintToken(rt.call, { role: 'principal', principal: alice });
    for (const token of [writer, bare, ADMIN_TOKEN]) {
      const res = await probe.call('GET', '/probe/memory-read', undefined, token);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('scope_missing');
      expect(res.body.required_scopes).toEqual(['memory.read']);
    }
    const res = await probe.call('GET', '/probe/memory-any', undefined, bare);
    expect(res.body.code).toBe('scope_missing');
    expect(res.body.required_scopes).toEqual(['memory.read', 'memory.write']);
  });

  it('refuses a route of a capability not enabled with capability_not_enabled, for every role', async () => {
    const reader = await mintToken(rt.call, { role: 'runtime', scopes: ['memory.read'] });
    for (const token of [reader, ADMIN_TOKEN]) {
      const res = await probe.call('GET', '/probe/search', undefined, token);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('capability_not_enabled');
    }
  });

  it('checks the role before the scope', async () => {
    const auditor = await mintToken(rt.call, { role: 'auditor', scopes: ['memory.read'] });
    const res = await probe.call('GET', '/probe/memory-read', undefined, auditor);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('forbidden');
  });

  it('answers 401 before anything about scopes to a request without a credential', async () => {
    const res = await fetch(`${probe.app.listeningOrigin}/probe/memory-read`);
    expect(res.status).toBe(401);
  });
});

describe('token scopes with nothing enabled (the default)', () => {
  let rt: OptInRuntime;
  let probe: { app: FastifyInstance; call: ApiCall };

  beforeAll(async () => {
    rt = await startOptInRuntime([]);
    probe = await probeApp(rt);
  });
  afterAll(async () => {
    await probe?.app.close();
    await rt?.close();
  });

  it('refuses every scope at token creation and every scoped route', async () => {
    const created = await rt.call('POST', '/v1/tokens', { role: 'admin', scopes: ['memory.read'] });
    expect(created.status).toBe(403);
    expect(created.body.code).toBe('capability_not_enabled');
    const res = await probe.call('GET', '/probe/memory-read');
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('capability_not_enabled');
  });
});
