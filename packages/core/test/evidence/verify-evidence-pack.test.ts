/**
 * verifyEvidencePack: a genuine pack verifies and replays; each kind of damage fails the check that owns it with a
 * stable code (SECURITY.md "Audit and evidence": edited record, wrong previous hash, swapped inclusion proof, an
 * index beyond the tree, the empty tree, a checkpoint of another origin, a key id missing from the JWKS); any byte
 * changed anywhere in the exported JSON fails; hostile input never throws.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  canonicalJson,
  inclusionProof,
  inclusionProofToJson,
  leafHash,
  signDocument,
  utf8Encode,
  verifyEvidencePack,
  type DocumentSigner,
  type EvidencePack,
  type EvidenceVerificationResult,
  type Jwks,
} from '../../src/index.ts';
import { buildPack, generateKey, ORIGIN, type BuiltPack } from './build-pack.ts';

let signer: DocumentSigner;
let jwks: Jwks;
let built: BuiltPack;

beforeAll(async () => {
  ({ signer, jwks } = await generateKey('ns:key:evidence-test'));
  built = await buildPack({ signer });
});

const failures = (result: EvidenceVerificationResult) =>
  Object.fromEntries(result.checks.filter((c) => !c.valid).map((c) => [c.check, c.failure]));

/** Tests edit packs freely, the way an attacker would: no type stands in their way. */
type EditablePack = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A copy of the pack, changed by `edit`, signed again: only the damaged check may fail, not the pack signature. */
async function resigned(edit: (pack: EditablePack) => void): Promise<EvidencePack> {
  const copy = structuredClone(built.pack) as EditablePack;
  edit(copy);
  return (await signDocument(copy, signer)) as unknown as EvidencePack;
}

describe('verifyEvidencePack', () => {
  it('verifies a genuine pack, also after a JSON round trip, and replays its decision', async () => {
    for (const pack of [built.pack, JSON.parse(JSON.stringify(built.pack))]) {
      const result = await verifyEvidencePack(pack, jwks, { origin: ORIGIN });
      expect(result).toMatchObject({ valid: true, algorithm: 'ed25519', key_id: 'ns:key:evidence-test' });
      expect(result.checks.map((c) => c.check)).toEqual([
        'pack_signature',
        'decision_map_signature',
        'bindings',
        'audit_entry',
        'record_digest',
        'inclusion_proof',
        'checkpoint',
        'replay',
      ]);
      expect(result.checks.every((c) => c.valid)).toBe(true);
      expect(result.replay_decision).toMatchObject({
        decision: 'allow_with_constraints',
        reason: 'scope_within_attenuated_authority',
        matches: true,
      });
    }
  });

  it('fails when any byte of the exported JSON changes', { timeout: 120_000 }, async () => {
    const text = canonicalJson(built.pack);
    let tried = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text[i] as string;
      const replacement = /[0-9]/.test(c)
        ? String((Number(c) + 1) % 10)
        : /[a-z]/.test(c)
          ? c === 'z'
            ? 'a'
            : 'z'
          : c === 'x'
            ? 'y'
            : 'x';
      const mutated = text.slice(0, i) + replacement + text.slice(i + 1);
      let pack: unknown;
      try {
        pack = JSON.parse(mutated);
      } catch {
        continue; // not JSON any more: nothing to verify, refused before the verifier
      }
      tried++;
      const result = await verifyEvidencePack(pack, jwks, { origin: ORIGIN });
      expect(result.valid, `byte ${i}: ${JSON.stringify(text.slice(Math.max(0, i - 20), i + 20))}`).toBe(false);
    }
    expect(tried).toBeGreaterThan(text.length * 0.7);
  });

  it('names a key id missing from the JWKS, and a key that did not sign', async () => {
    const missing = await verifyEvidencePack(built.pack, { keys: [] });
    expect(missing).toMatchObject({ valid: false, key_id: 'ns:key:evidence-test' });
    expect(failures(missing)).toMatchObject({
      pack_signature: 'unknown_key',
      decision_map_signature: 'unknown_key',
      checkpoint: 'unknown_key',
    });
    const other = await generateKey('ns:key:evidence-test');
    const wrong = await verifyEvidencePack(built.pack, other.jwks);
    expect(failures(wrong)).toMatchObject({ pack_signature: 'signature_mismatch' });
  });

  it('refuses a checkpoint of another origin', async () => {
    const result = await verifyEvidencePack(built.pack, jwks, { origin: 'other.log/audit' });
    expect(failures(result)).toEqual({ checkpoint: 'origin_mismatch' });
    const otherLog = await buildPack({ signer, origin: 'other.log/audit' });
    expect(failures(await verifyEvidencePack(otherLog.pack, jwks, { origin: ORIGIN }))).toEqual({
      checkpoint: 'origin_mismatch',
    });
  });

  it('catches an edited record even in a pack signed again', async () => {
    const pack = await resigned((p) => {
      p.request.amount.minor += 1;
    });
    const result = await verifyEvidencePack(pack, jwks, { origin: ORIGIN });
    expect(result.valid).toBe(false);
    expect(failures(result)).toMatchObject({ record_digest: 'digest_mismatch' });
    expect(failures(result)).not.toHaveProperty('pack_signature');
  });

  it('catches an audit entry with a wrong previous hash', async () => {
    const pack = await resigned((p) => {
      const entry = JSON.parse(p.audit_entry);
      entry.prev_leaf_hash = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';
      p.audit_entry = canonicalJson(entry);
    });
    expect(failures(await verifyEvidencePack(pack, jwks, { origin: ORIGIN }))).toEqual({
      audit_entry: 'leaf_hash_mismatch',
    });
  });

  it('catches a swapped inclusion proof, an index beyond the tree and the empty tree', async () => {
    const leaves = built.entries.map((e) => leafHash(utf8Encode(e)));
    const size = leaves.length;
    const other = built.index + 1;
    const swapped = await resigned((p) => {
      p.inclusion_proof.hashes = inclusionProofToJson(
        other,
        size,
        leaves[other]!,
        inclusionProof(leaves, other, size),
      ).hashes;
    });
    expect(failures(await verifyEvidencePack(swapped, jwks, { origin: ORIGIN }))).toEqual({
      inclusion_proof: 'root_mismatch',
    });
    const beyond = await resigned((p) => {
      p.inclusion_proof.leaf_index = size;
    });
    expect(failures(await verifyEvidencePack(beyond, jwks, { origin: ORIGIN }))).toMatchObject({
      audit_entry: 'index_mismatch',
      inclusion_proof: 'index_out_of_range',
    });
    const empty = await resigned((p) => {
      p.inclusion_proof.tree_size = 0;
    });
    expect(failures(await verifyEvidencePack(empty, jwks, { origin: ORIGIN }))).toMatchObject({
      inclusion_proof: 'tree_size_mismatch',
    });
  });

  it('reports a replay that differs from the recorded decision', async () => {
    const pack = await resigned((p) => {
      p.snapshot.merchant.category = '7995';
      p.snapshot.grants[0].scope.blocked_merchant_categories = ['7995'];
    });
    const result = await verifyEvidencePack(pack, jwks, { origin: ORIGIN });
    expect(result.replay_decision).toMatchObject({
      decision: 'deny',
      reason: 'merchant_category_blocked',
      matches: false,
    });
    expect(failures(result)).toMatchObject({ replay: 'replay_mismatch', record_digest: 'digest_mismatch' });
  });

  it('never throws on hostile input', async () => {
    const hostile: unknown[] = [
      null,
      undefined,
      42,
      'pack',
      [],
      { signature: null },
      { ...built.pack, decision_map: 'map', audit_entry: 7, inclusion_proof: [], checkpoint: { size: -1 } },
      { ...built.pack, request: null },
      new Proxy(
        {},
        {
          get: () => {
            throw new Error('boom');
          },
          ownKeys: () => {
            throw new Error('boom');
          },
        },
      ),
    ];
    for (const pack of hostile) {
      const result = await verifyEvidencePack(pack, jwks);
      expect(result.valid).toBe(false);
    }
    await fc.assert(
      fc.asyncProperty(fc.anything(), fc.anything(), async (pack, keys) => {
        const result = await verifyEvidencePack(pack, keys as Jwks);
        expect(result.valid).toBe(false);
      }),
      { numRuns: 200 },
    );
  });
});
