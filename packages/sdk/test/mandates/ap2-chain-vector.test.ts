/**
 * The cross-runtime mandate vector (vectors/mandates/ap2-chain.json, written by
 * vectors/scripts/generate-mandate-chain.ts with node:crypto only): core's AP2 verifier, which this SDK re-exports,
 * answers every case with the codes the Python and Go SDKs answer (the sorted set of distinct codes; time is not
 * checked offline, the vector's audience is the accepted one); core's evidence-pack verifier gives each evidence case
 * the `mandates` outcome the vector names, as the Python and Go SDKs do.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mandateDigest, verifyAp2Presentation, verifyEvidencePack } from '../../src/index.ts';

interface Vector {
  issuer: string;
  issuer_jwks: { keys: Array<Record<string, string>> };
  audience: string;
  cases: Array<{ desc: string; presentation: string; want: string[] }>;
  evidence: Array<{
    desc: string;
    pack: { mandates?: Array<{ digest: string; document: string }> };
    want: string;
  }>;
}

const vector = JSON.parse(
  readFileSync(new URL('../../../../vectors/mandates/ap2-chain.json', import.meta.url), 'utf8'),
) as Vector;

describe('the shared AP2 mandate chain vector', () => {
  it.each(vector.cases.map((c) => [c.desc, c] as const))('%s', async (_desc, c) => {
    const result = await verifyAp2Presentation(c.presentation, {
      issuers: [{ issuer: vector.issuer, keys: vector.issuer_jwks.keys }],
      nowSeconds: 1_777_342_400,
      audiences: [vector.audience],
      checkTime: false,
    });
    const codes = result.ok ? [] : [...new Set(result.errors.map((e) => e.code))].sort();
    expect(codes).toEqual(c.want);
  });

  it.each(vector.evidence.map((c) => [c.desc, c] as const))('evidence pack `mandates` check: %s', async (_desc, c) => {
    // the vector's packs are unsigned: only the `mandates` check is judged here
    const result = await verifyEvidencePack(c.pack, { keys: [] });
    const check = result.checks.find((entry) => entry.check === 'mandates');
    expect(check).toEqual(
      c.want === 'valid' ? { check: 'mandates', valid: true } : { check: 'mandates', valid: false, failure: c.want },
    );
  });

  it('holds evidence entries whose digests are the hash of their documents, except where it says otherwise', () => {
    for (const c of vector.evidence) {
      const entries = Array.isArray(c.pack.mandates) ? c.pack.mandates : [];
      const hold = entries.every((e) => mandateDigest(e.document) === e.digest);
      expect(hold, c.desc).toBe(c.want !== 'mandate_digest_mismatch');
    }
  });
});
