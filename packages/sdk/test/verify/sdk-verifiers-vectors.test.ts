/**
 * The SDK's own verifiers (verifyDecisionMap, verifyCheckpointInclusion, and the wrappers over core that accept a
 * JwksSource) walked over the golden vectors/sdk: the same answers as the Python and Go SDKs.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  verifyCheckpointInclusion,
  verifyDecisionMap,
  verifyDelegationChain,
  verifyEvidencePack,
  verifyWebhook,
  type Jwks,
  type JwksSource,
} from '../../src/index.ts';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const dir = fileURLToPath(new URL('../../../../vectors/sdk/', import.meta.url));
const load = (name: string): Json => JSON.parse(readFileSync(`${dir}${name}`, 'utf8'));
const index = load('index.json');
const jwks = load('jwks.json') as Jwks;

/** a JwksSource over the vectors' JWKS, counting the key ids it was asked for */
function source(): JwksSource & { asked: Set<string> } {
  const asked = new Set<string>();
  return {
    url: 'vectors:jwks.json',
    asked,
    fetchCount: 1,
    get: async () => jwks,
    refresh: async () => jwks,
    getKey: async (kid) => {
      asked.add(kid);
      return jwks.keys.find((k) => k.kid === kid);
    },
    trustedKeysFor: async (kids) => {
      for (const kid of kids) asked.add(kid);
      return jwks;
    },
  };
}

async function judge(kind: string, input: Json): Promise<{ valid: boolean; code?: string | undefined }> {
  const keys = source();
  switch (kind) {
    case 'decision_map': {
      const r = await verifyDecisionMap(input.document, keys);
      return { valid: r.valid, code: r.failure };
    }
    case 'evidence_pack': {
      const r = await verifyEvidencePack(input.pack, keys);
      return { valid: r.valid, code: r.checks.find((c) => !c.valid)?.failure };
    }
    case 'delegation_chain': {
      const r = await verifyDelegationChain(input.chain, keys, input.now);
      return { valid: r.valid, code: r.problems[0]?.code };
    }
    case 'checkpoint_inclusion': {
      const r = await verifyCheckpointInclusion(
        { entry: input.entry, proof: input.proof, checkpoint: input.checkpoint },
        keys,
      );
      return { valid: r.valid, code: r.failure };
    }
    case 'webhook': {
      const r = await verifyWebhook({
        profile: input.profile,
        headers: input.headers,
        body: new Uint8Array(Buffer.from(input.body_base64, 'base64')),
        now: input.now,
        ...(input.secrets ? { secrets: input.secrets } : {}),
        keys,
      });
      return { valid: r.valid, code: r.code };
    }
    default:
      throw new Error(`unknown kind ${kind}`);
  }
}

describe('SDK verifiers over vectors/sdk', () => {
  for (const entry of index.vectors as Json[]) {
    it(`${entry.file}: ${entry.desc}`, async () => {
      const got = await judge(entry.kind, load(entry.file).input);
      expect(got.valid).toBe(entry.want.valid);
      if (entry.want.code !== undefined) expect(got.code).toBe(entry.want.code);
    });
  }

  it('checks a decision map against the answer it came with', async () => {
    const vector = load('decision-map-valid.json');
    const map = vector.input.document;
    expect(
      await verifyDecisionMap(map, jwks, { expected: { decision: map.decision, reason: map.reason } }),
    ).toMatchObject({
      valid: true,
    });
    expect(await verifyDecisionMap(map, jwks, { expected: { decision: 'deny' } })).toMatchObject({
      valid: false,
      failure: 'decision_mismatch',
    });
  });

  it('pins the checkpoint origin when asked', async () => {
    const entry = (index.vectors as Json[]).find((v) => v.kind === 'checkpoint_inclusion' && v.want.valid);
    const { input } = load(entry.file);
    const r = await verifyCheckpointInclusion(input, jwks, { origin: 'another.log/origin' });
    expect(r).toMatchObject({ valid: false, failure: 'origin_mismatch' });
  });
});
