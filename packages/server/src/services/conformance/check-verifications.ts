/**
 * The cryptographic expectations of a step, checked offline by core against the deployment's JWKS (fetched by the
 * runner, never taken from the document): signed documents, evidence packs (signature, inclusion, checkpoint and
 * replay), RFC 9162 inclusion and consistency proofs, and audit entries' leaf hashes.
 */
import {
  encodeBase64,
  leafHash,
  readPointer,
  utf8Encode,
  verifyConsistencyProofJson,
  verifyDocument,
  verifyEvidencePack,
  verifyInclusionProofJson,
  type FixtureFailure,
  type Jwks,
  type Verification,
} from '@aar/core';

export async function checkVerifications(
  body: unknown,
  verifications: readonly Verification[],
  jwks: () => Promise<Jwks>,
): Promise<Array<Omit<FixtureFailure, 'step'>>> {
  const failures: Array<Omit<FixtureFailure, 'step'>> = [];
  for (const v of verifications) {
    const [kind, pointer] = Object.entries(v)[0] as [string, string];
    const read = readPointer(body, pointer);
    if (!read.found) {
      failures.push({ pointer, message: `${kind}: nothing at this pointer` });
      continue;
    }
    const problem = await verifyOne(v, read.value, jwks);
    if (problem !== undefined) failures.push({ pointer, message: `${kind}: ${problem}` });
  }
  return failures;
}

async function verifyOne(v: Verification, value: unknown, jwks: () => Promise<Jwks>): Promise<string | undefined> {
  if ('signed_document' in v) {
    const result = await verifyDocument(value, await jwks());
    return result.valid ? undefined : `does not verify (${result.failure ?? 'invalid'})`;
  }
  if ('evidence_pack' in v) {
    const result = await verifyEvidencePack(value, await jwks());
    if (result.valid) return undefined;
    return `does not verify: ${result.checks
      .filter((c) => !c.valid)
      .map((c) => `${c.check} ${c.failure ?? ''}`.trim())
      .join(', ')}`;
  }
  if ('inclusion_proof' in v) {
    const result = verifyInclusionProofJson(value, v.root_hash);
    return result.valid ? undefined : `does not lead to root \`${v.root_hash}\` (${result.failure})`;
  }
  if ('consistency_proof' in v) {
    const result = verifyConsistencyProofJson(value, v.old_root, v.new_root);
    return result.valid ? undefined : `does not prove \`${v.old_root}\` -> \`${v.new_root}\` (${result.failure})`;
  }
  const entry = value as { entry?: unknown; leaf_hash?: unknown } | null;
  if (typeof entry?.entry !== 'string') return 'has no `entry` text';
  const expected = encodeBase64(leafHash(utf8Encode(entry.entry)));
  return entry.leaf_hash === expected ? undefined : `leaf_hash is not SHA-256(0x00 ‖ entry) = \`${expected}\``;
}
