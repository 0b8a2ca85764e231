/**
 * The SDK's verifyBundle (core's, re-exported, also over a JwksSource) walked over vectors/bundles: exactly the
 * checks each vector names fail, with the keys from a JWKS or from a source that is asked for the bundle's key ids.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BUNDLE_CHECKS, createJwksSource, verifyBundle, type Jwks } from '../../src/index.ts';

const DIR = fileURLToPath(new URL('../../../../vectors/bundles/', import.meta.url));
const vectors = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((file) => ({
    file,
    ...(JSON.parse(readFileSync(DIR + file, 'utf8')) as {
      input: { bundle: unknown; jwks: Jwks; origin: string };
      want: { valid: boolean; failing: string[] };
    }),
  }));

describe('SDK verifyBundle over vectors/bundles', () => {
  it.each(vectors.map((v) => [v.file, v] as const))('%s', async (_file, v) => {
    const direct = await verifyBundle(v.input.bundle, v.input.jwks, { origin: v.input.origin });
    expect(direct.checks.map((c) => c.name)).toEqual([...BUNDLE_CHECKS]);
    expect(direct.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(v.want.failing);
    // the same through a JWKS source fetched over (fake) HTTP once
    let fetched = 0;
    const source = createJwksSource('https://issuer.example/.well-known/jwks.json', {
      fetch: async () => {
        fetched++;
        return new Response(JSON.stringify(v.input.jwks), { headers: { 'content-type': 'application/json' } });
      },
    });
    const viaSource = await verifyBundle(v.input.bundle, source, { origin: v.input.origin });
    expect(viaSource).toEqual(direct);
    expect(fetched).toBe(1);
  });
});
