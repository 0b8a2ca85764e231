/**
 * Two `aar serve` processes on one PostgreSQL (fresh schema): each round delegates a new leaf through A, lets B
 * allow it twice (B's grant cache now holds the chain), revokes it through A and, the moment A answers, authorizes
 * through B. Measured: from A's answer to B's answer, which must be `deny` / `authority_revoked` every time (a round
 * that B allows fails the benchmark). B needs no notification for that: it compares the grant version first.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDelegationWorld } from '../../packages/server/test/support/delegation-world.ts';
import { freshPgSchema } from '../../packages/server/test/support/pg-schema.ts';
import { spawnServer } from '../../packages/server/test/support/spawn-server.ts';

const TOKEN = 'bench-cross-instance-token-0123456789';

export async function measureCrossInstance(rounds: number): Promise<number[]> {
  const schema = await freshPgSchema();
  const dirs = [mkdtempSync(join(tmpdir(), 'aar-bench-a-')), mkdtempSync(join(tmpdir(), 'aar-bench-b-'))];
  const env = (dir: string) => ({ DATABASE_URL: schema.url, AAR_DATA_DIR: dir, AAR_BOOTSTRAP_TOKEN: TOKEN });
  const a = await spawnServer(env(dirs[0]!));
  try {
    const b = await spawnServer(env(dirs[1]!));
    try {
      const w = await buildDelegationWorld(a.base, TOKEN);
      const middle = await w.delegate(w.root.grant_id, 'concierge', 'ns:entity:agent:planner', {});
      const out: number[] = [];
      for (let round = 0; round < rounds; round++) {
        const leaf = await w.delegate(middle.body.grant_id, 'planner', 'ns:entity:agent:shopper-1', {});
        for (let i = 0; i < 2; i++) {
          const warm = await w.authorize('shopper-1', w.purchase('shopper-1', 5), b.base);
          if (warm.body.decision !== 'allow_with_constraints')
            throw new Error(`B did not allow: ${JSON.stringify(warm.body)}`);
        }
        const revoked = await w.call('POST', `/v1/grants/${leaf.body.grant_id}/revoke`);
        const answered = performance.now();
        const denied = await w.authorize('shopper-1', w.purchase('shopper-1', 5), b.base);
        out.push(performance.now() - answered);
        if (revoked.status !== 200 || denied.body.reason !== 'authority_revoked') {
          throw new Error(`round ${round}: B answered ${JSON.stringify(denied.body)} after the revoke`);
        }
      }
      return out;
    } finally {
      await b.stop();
    }
  } finally {
    await a.stop();
    await schema.drop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}
