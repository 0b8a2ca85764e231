/**
 * verifyBundle on hostile input (CONTRACT section 12): whatever it is given, it answers the ten checks in order and
 * never throws; keys named by the bundle itself are never trusted; a bundle of another log fails on its checkpoint.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BUNDLE_CHECKS, partDigest, verifyBundle, type Jwks } from '../../src/index.ts';

const valid = JSON.parse(
  readFileSync(
    fileURLToPath(new URL('../../../../vectors/bundles/valid-delegated-purchase.json', import.meta.url)),
    'utf8',
  ),
) as { input: { bundle: Record<string, unknown>; jwks: Jwks; origin: string } };
const { bundle, jwks, origin } = valid.input;

const failingOf = async (b: unknown, keys: Parameters<typeof verifyBundle>[1] = jwks, o = { origin }) =>
  (await verifyBundle(b, keys, o)).checks.filter((c) => !c.ok).map((c) => c.name);

describe('verifyBundle', () => {
  it('answers all ten checks, failed, for things that are not bundles', async () => {
    const throwing = new Proxy(
      {},
      {
        get: () => {
          throw new Error('boom');
        },
        ownKeys: () => {
          throw new Error('boom');
        },
      },
    );
    for (const value of [null, 42, 'bundle', [], {}, { schema_version: 'ns.authority_proof_bundle.v1' }, throwing]) {
      const result = await verifyBundle(value, jwks);
      expect(result.valid).toBe(false);
      expect(result.checks.map((c) => c.name)).toEqual([...BUNDLE_CHECKS]);
      expect(result.checks.filter((c) => c.ok)).toEqual([]);
    }
  });

  it('trusts only the keys it is given: the JWKS inside the chain is never used', async () => {
    expect(await failingOf(bundle, { keys: [] })).toEqual([
      'bundle_signature',
      'decision_map_signature',
      'evidence_pack_signature',
      'delegation_chain_signatures',
      'checkpoint_signature',
    ]);
  });

  it('fails a checkpoint of another log on checkpoint_signature (and the pack, whose checkpoint it is too)', async () => {
    expect(await failingOf(bundle, jwks, { origin: 'evil.example/audit' })).toEqual([
      'evidence_pack_signature',
      'checkpoint_signature',
    ]);
    expect(await failingOf(bundle, jwks, {} as { origin: string })).toEqual([]);
  });

  it('hashes parts over their RFC 8785 bytes, whatever the member order', () => {
    expect(partDigest({ b: 1, a: [1, 'x'] })).toBe(partDigest({ a: [1, 'x'], b: 1 }));
    expect(partDigest(null)).toBe('74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b');
  });

  it('fails a bundle whose part was removed on references_digest and on the checks that need the part', async () => {
    const { replay_proof: _gone, ...rest } = bundle;
    const failing = await failingOf(rest);
    expect(failing).toContain('references_digest');
    expect(failing).toContain('replay_equal');
  });
});
