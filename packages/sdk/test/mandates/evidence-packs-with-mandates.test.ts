/**
 * Evidence packs the service made for purchases under an AP2 mandate and an ACP allowance
 * (vectors/evidence-packs-with-mandates.json): the SDK's offline verifier finds each valid, its `mandates` check
 * included, and replays the recorded decision, as the Python and Go SDKs do; a forged closing hop or a dropped
 * `mandates` member fails that check.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { verifyEvidencePack, type Jwks } from '../../src/index.ts';

interface Case {
  desc: string;
  pack: Record<string, unknown> & { mandates: Array<Record<string, string>> };
  want: { valid: boolean; decision: string; reason: string };
}
const vector = JSON.parse(
  readFileSync(new URL('../../../../vectors/evidence-packs-with-mandates.json', import.meta.url), 'utf8'),
) as { jwks: Jwks; packs: Case[] };

const mandatesCheck = async (pack: unknown) =>
  (await verifyEvidencePack(pack, vector.jwks)).checks.find((c) => c.check === 'mandates');

describe('evidence packs of mandate purchases, made by the service', () => {
  it.each(vector.packs.map((c) => [c.desc, c] as const))('%s', async (_desc, c) => {
    const result = await verifyEvidencePack(c.pack, vector.jwks);
    expect(result.valid, JSON.stringify(result.checks)).toBe(true);
    expect(result.checks).toContainEqual({ check: 'mandates', valid: true });
    expect(result.replay_decision).toMatchObject({ matches: true, decision: c.want.decision, reason: c.want.reason });
  });

  it('fails the mandates check for a forged closing hop or a dropped mandates member', async () => {
    const presented = vector.packs.find((c) => c.pack.mandates[0]?.presented !== undefined)!.pack;
    const entry = presented.mandates[0]!;
    const last = entry.presented!.slice(entry.document!.length + 1);
    const forgedHop = `${last.slice(0, last.lastIndexOf('.') + 1)}${'A'.repeat(86)}${last.slice(last.indexOf('~'))}`;
    const forged = { ...presented, mandates: [{ ...entry, presented: `${entry.document}~${forgedHop}` }] };
    expect(await mandatesCheck(forged)).toEqual({
      check: 'mandates',
      valid: false,
      failure: 'mandate_signature_invalid',
    });
    const { mandates: _dropped, ...without } = presented;
    expect(await mandatesCheck(without)).toEqual({ check: 'mandates', valid: false, failure: 'mandate_missing' });
  });
});
