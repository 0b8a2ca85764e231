/**
 * Two `aar serve` processes on one PostgreSQL (each with its own data dir, so its own signing key) answer the same
 * listing search with the same bytes of trust score (docs/marketplace.md: scores are computed as of the UTC hour
 * from stored facts), each listing signed by its own instance's key, both keys in the JWKS. Skipped, with a printed
 * notice, when PostgreSQL is not reachable (a failure in CI).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, verifyDocument, type Jwks } from '@aar/core';
import { testDialects } from '../support/dialects.ts';
import { freshPgSchema } from '../support/pg-schema.ts';
import { spawnServer, type ServerProcess } from '../support/spawn-server.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const TOKEN = 'listing-processes-admin-token-0123456789';
const postgres = (await testDialects()).includes('postgres');

describe.runIf(postgres)('listing scores across two aar serve processes on one PostgreSQL', () => {
  let schema: Awaited<ReturnType<typeof freshPgSchema>>;
  let a: ServerProcess;
  let b: ServerProcess;
  const dirs = [mkdtempSync(join(tmpdir(), 'aar-la-')), mkdtempSync(join(tmpdir(), 'aar-lb-'))];
  const get = async (base: string, path: string): Promise<Json> => {
    const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status, path).toBe(200);
    return (await res.json()) as Json;
  };

  beforeAll(async () => {
    schema = await freshPgSchema();
    const env = (dir: string) => ({ DATABASE_URL: schema.url, AAR_DATA_DIR: dir, AAR_BOOTSTRAP_TOKEN: TOKEN });
    // started together: both seed the reference listings, one wins, neither fails
    [a, b] = await Promise.all([spawnServer(env(dirs[0]!)), spawnServer(env(dirs[1]!))]);
  }, 60_000);
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await schema?.drop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('serves the same bytes of score from both, signed by two keys of one JWKS', async () => {
    const created = await fetch(`${a.base}/v1/listings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        kind: 'connector',
        title: 'Gateway bridge',
        publisher: { name: 'Example', tier: 'community' },
        sectors: ['retail'],
        regimes: ['psd3'],
        jurisdictions: ['DE'],
        pricing_model: 'usage',
        connector_id: 'ns:connector:payments:payment-intents-gateway',
      }),
    });
    expect(created.status).toBe(201);
    // the two reads straddle an hour boundary at most once: read again then
    let fromA: Json[] = [];
    let fromB: Json[] = [];
    for (let attempt = 0; attempt < 2; attempt += 1) {
      fromA = (await get(a.base, '/v1/listings/search?limit=500')).items as Json[];
      fromB = (await get(b.base, '/v1/listings/search?limit=500')).items as Json[];
      if (fromA[0]?.trust_score.computed_at === fromB[0]?.trust_score.computed_at) break;
    }
    expect(fromA.length).toBeGreaterThanOrEqual(49);
    expect(fromB.map((l) => l.listing_id)).toEqual(fromA.map((l) => l.listing_id));
    const jwks = (await get(a.base, '/.well-known/jwks.json')) as Jwks;
    for (let i = 0; i < fromA.length; i += 1) {
      expect(canonicalJson(fromB[i]!.trust_score)).toBe(canonicalJson(fromA[i]!.trust_score));
      expect(fromB[i]!.signature.key_id).not.toBe(fromA[i]!.signature.key_id);
      expect((await verifyDocument(fromA[i], jwks)).valid).toBe(true);
      expect((await verifyDocument(fromB[i], jwks)).valid).toBe(true);
    }
  }, 120_000);
});
