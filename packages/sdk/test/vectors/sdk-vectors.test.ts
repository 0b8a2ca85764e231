/**
 * The TypeScript side of the SDK golden vectors (vectors/sdk/): every vector the service produced is judged by
 * core's verifiers with only jwks.json trusted, and must give the index's expected outcome. The Python SDK walks the
 * same index (sdks/python/tests/test_verifiers.py), so both languages are held to one set of answers.
 * Also: core's decide reproduces every differential case exactly (the file the SDK ports are checked against).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  decide,
  verifyDelegationChain,
  verifyDocument,
  verifyEvidencePack,
  verifyInclusionProofJson,
  verifyWebhookDelivery,
  type Jwks,
} from '@aar/core';
import { leafHash } from '../../../core/src/merkle/hashing.ts';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const dir = fileURLToPath(new URL('../../../../vectors/sdk/', import.meta.url));
const load = (name: string): Json => JSON.parse(readFileSync(`${dir}${name}`, 'utf8'));
const index = load('index.json');
const jwks = load('jwks.json') as Jwks;

interface Outcome {
  valid: boolean;
  code?: string | undefined;
  failures?: Record<string, string>;
}

async function judge(kind: string, input: Json): Promise<Outcome> {
  switch (kind) {
    case 'decision_map': {
      const r = await verifyDocument(input.document, jwks);
      return { valid: r.valid, code: r.failure };
    }
    case 'evidence_pack': {
      const r = await verifyEvidencePack(input.pack, jwks);
      const failed = r.checks.filter((c) => !c.valid);
      return {
        valid: r.valid,
        code: failed[0]?.failure,
        failures: Object.fromEntries(failed.map((c) => [c.check, c.failure as string])),
      };
    }
    case 'delegation_chain': {
      const r = await verifyDelegationChain(input.chain, jwks, input.now);
      return { valid: r.valid, code: r.problems[0]?.code };
    }
    case 'checkpoint_inclusion': {
      const doc = await verifyDocument(input.checkpoint, jwks);
      if (!doc.valid) return { valid: false, code: doc.failure };
      const leaf = Buffer.from(leafHash(new TextEncoder().encode(input.entry))).toString('base64');
      if (leaf !== input.proof.leaf_hash) return { valid: false, code: 'leaf_hash_mismatch' };
      const r = verifyInclusionProofJson(input.proof, input.checkpoint.root_hash);
      return r.valid ? { valid: true } : { valid: false, code: r.failure };
    }
    case 'webhook': {
      const r = await verifyWebhookDelivery({
        profile: input.profile,
        headers: input.headers,
        body: new Uint8Array(Buffer.from(input.body_base64, 'base64')),
        now: input.now,
        ...(input.secrets ? { secrets: input.secrets } : {}),
        resolveKey: (kid: string) => jwks.keys.find((k) => k.kid === kid),
      });
      return { valid: r.valid, code: r.code };
    }
    default:
      throw new Error(`unknown kind ${kind}`);
  }
}

describe('vectors/sdk', () => {
  it('has a valid and a tampered vector of every kind', () => {
    const kinds = new Set(index.vectors.map((v: Json) => `${v.kind}:${v.want.valid}`));
    for (const kind of ['decision_map', 'evidence_pack', 'delegation_chain', 'checkpoint_inclusion', 'webhook']) {
      expect(kinds.has(`${kind}:true`) && kinds.has(`${kind}:false`)).toBe(true);
    }
  });

  for (const entry of index.vectors as Json[]) {
    it(`${entry.file}: ${entry.desc}`, async () => {
      const vector = load(entry.file);
      expect(vector.want).toEqual(entry.want);
      const got = await judge(entry.kind, vector.input);
      expect(got.valid).toBe(entry.want.valid);
      if (entry.want.code !== undefined) expect(got.code).toBe(entry.want.code);
      for (const [check, code] of Object.entries(entry.want.failures ?? {})) {
        expect(got.failures?.[check]).toBe(code);
      }
    });
  }

  it('core reproduces every differential case the SDK ports are checked against', () => {
    const { cases } = load('differential.json');
    const differing = (cases as Json[]).filter(
      (c) => canonicalJson(JSON.parse(JSON.stringify(decide(c.input.request, c.input.snapshot, c.input.now)))) !==
        canonicalJson(c.want),
    );
    expect(differing.length).toBe(0);
  });
});
