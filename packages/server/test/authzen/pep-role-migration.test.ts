/**
 * Migration 0020 on each database: the `pep` role exists, may be bound to a principal (or not), and the widened
 * CHECK constraints still refuse what they refused (an unknown role, a bound runtime token, an unbound principal
 * token). SQLite rebuilt the table: its unique keys and foreign key hold as before.
 */
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { testDialects } from '../support/dialects.ts';
import { ADMIN_TOKEN, auth, startTestRuntime, type TestRuntime } from '../support/test-runtime.ts';

const dialects = await testDialects();

describe.each(dialects)('the pep role on %s', (dialect) => {
  const runtimes: TestRuntime[] = [];
  afterAll(async () => Promise.all(runtimes.map((rt) => rt.close())));

  it('creates pep tokens, bound or not, and keeps every other rule of api_tokens', async () => {
    const rt = await startTestRuntime({ dialect });
    runtimes.push(rt);
    const post = (path: string, body: unknown) =>
      rt.app.inject({
        method: 'POST',
        url: path,
        headers: { ...auth(), 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
    expect((await post('/v1/entities', { type: 'person', id: 'carol', display_name: 'Carol' })).statusCode).toBe(201);
    const unbound = await post('/v1/tokens', { role: 'pep' });
    expect(unbound.statusCode).toBe(201);
    expect(unbound.json()).toMatchObject({ role: 'pep', principal_entity_id: null });
    const bound = await post('/v1/tokens', { role: 'pep', principal_entity_id: 'ns:entity:person:carol' });
    expect(bound.json()).toMatchObject({ role: 'pep', principal_entity_id: 'ns:entity:person:carol' });
    const runtimeBound = await post('/v1/tokens', { role: 'runtime', principal_entity_id: 'ns:entity:person:carol' });
    expect(runtimeBound.statusCode).toBe(400);

    const db = rt.ctx.store.db;
    const insert = (role: string, principal: string | null, n: number) =>
      sql`insert into api_tokens (token_id, token_hash, role, principal_entity_id, created_at)
        values (${`ns:token:x-${n}`}, ${`hash-${n}`}, ${role}, ${principal}, '2026-01-01T00:00:00.000Z')`.execute(db);
    await expect(insert('bogus', null, 1)).rejects.toThrow(/constraint|check/i);
    await expect(insert('runtime', 'ns:entity:person:carol', 2)).rejects.toThrow(/constraint|check/i);
    await expect(insert('principal', null, 3)).rejects.toThrow(/constraint|check/i);
    await expect(insert('pep', 'ns:entity:person:nobody', 4)).rejects.toThrow(/constraint|foreign/i);
    await insert('pep', null, 5);
    // the admin token still authenticates against the rebuilt table
    expect((await rt.app.inject({ method: 'GET', url: '/v1/tokens', headers: auth(ADMIN_TOKEN) })).statusCode).toBe(
      200,
    );
  });
});
