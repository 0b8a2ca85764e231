/**
 * Two `aar serve` processes on one PostgreSQL: a revocation made through A is enforced by B on the very next
 * authorize, every time, whether or not B's NOTIFY has arrived (B's cached chain is used only at the grant version
 * it was filled at). Skipped, with a printed notice, when PostgreSQL is not reachable (a failure in CI).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialects } from '../support/dialects.ts';
import { buildDelegationWorld, type DelegationWorld } from '../support/delegation-world.ts';
import { freshPgSchema } from '../support/pg-schema.ts';
import { spawnServer, type ServerProcess } from '../support/spawn-server.ts';

const TOKEN = 'multi-instance-admin-token-0123456789';
const postgres = (await testDialects()).includes('postgres');

describe.runIf(postgres)('revocation across two aar serve processes on one PostgreSQL', () => {
  let schema: Awaited<ReturnType<typeof freshPgSchema>>;
  let a: ServerProcess;
  let b: ServerProcess;
  let w: DelegationWorld;
  const dirs = [mkdtempSync(join(tmpdir(), 'aar-a-')), mkdtempSync(join(tmpdir(), 'aar-b-'))];

  beforeAll(async () => {
    schema = await freshPgSchema();
    const env = (dir: string) => ({ DATABASE_URL: schema.url, AAR_DATA_DIR: dir, AAR_BOOTSTRAP_TOKEN: TOKEN });
    a = await spawnServer(env(dirs[0]!));
    b = await spawnServer(env(dirs[1]!));
    w = await buildDelegationWorld(a.base, TOKEN);
  }, 60_000);
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await schema?.drop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('denies through B at once after a revoke through A, round after round', async () => {
    const middle = await w.delegate(w.root.grant_id, 'concierge', 'ns:entity:agent:planner', {});
    expect(middle.status, JSON.stringify(middle.body)).toBe(201);
    for (let round = 0; round < 10; round++) {
      const leaf = await w.delegate(middle.body.grant_id, 'planner', 'ns:entity:agent:shopper-1', {});
      expect(leaf.status, JSON.stringify(leaf.body)).toBe(201);
      // B allows (and caches the chain), twice, before the revoke
      for (let i = 0; i < 2; i++) {
        const before = await w.authorize('shopper-1', w.purchase('shopper-1', 5), b.base);
        expect(before.body, `round ${round}`).toMatchObject({ decision: 'allow_with_constraints' });
      }
      const revoked = await w.call('POST', `/v1/grants/${leaf.body.grant_id}/revoke`);
      expect(revoked.body).toMatchObject({ revoked_count: 1 });
      const after = await w.authorize('shopper-1', w.purchase('shopper-1', 5), b.base);
      expect(after.body, `round ${round}`).toMatchObject({ decision: 'deny', reason: 'authority_revoked' });
    }
    // revoking the middle link through B stops the agent below it on A, and the chain B exports says so
    const leaf = await w.delegate(middle.body.grant_id, 'planner', 'ns:entity:agent:shopper-1', {});
    expect((await w.authorize('shopper-1', w.purchase('shopper-1', 5))).body.decision).toBe('allow_with_constraints');
    const viaB = await fetch(`${b.base}/v1/grants/${middle.body.grant_id}/revoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(viaB.status).toBe(200);
    expect((await w.authorize('shopper-1', w.purchase('shopper-1', 5))).body.reason).toBe('authority_revoked');
    const chain = await (
      await fetch(`${b.base}/v1/grants/${leaf.body.grant_id}/chain`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).json();
    expect(chain.states.map((s: { state: string }) => s.state)).toEqual(['active', 'revoked', 'revoked']);
  }, 120_000);
});
