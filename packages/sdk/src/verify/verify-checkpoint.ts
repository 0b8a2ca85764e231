/**
 * Signed checkpoints and inclusion proofs of the audit log (CONTRACT section 8, RFC 9162), offline: a checkpoint is
 * a signed document `{ origin, size, root_hash, timestamp }`; an entry is in the log when its leaf hash
 * (SHA-256(0x00 ‖ entry bytes)) and the proof lead to the checkpoint's root. A checkpoint of another log proves
 * nothing about this one: pass `origin` to pin it.
 */
import {
  encodeBase64,
  leafHash,
  parseCheckpointJson,
  parseInclusionProofJson,
  verifyInclusionProofJson,
  type CheckpointJson,
} from '@aar/core';
import type { TrustedKeySource } from './trusted-key-source.ts';
import { verifyDocument } from './verify-document.ts';

export interface VerifyCheckpointResult {
  valid: boolean;
  /** a signature failure (`unknown_key`, `signature_mismatch`…), a Merkle failure, or `malformed_checkpoint`,
   * `malformed_proof`, `origin_mismatch`, `tree_size_mismatch`, `leaf_hash_mismatch` */
  failure?: string;
  checkpoint?: CheckpointJson;
}

export async function verifyCheckpoint(
  checkpoint: unknown,
  trusted: TrustedKeySource,
  options: { origin?: string } = {},
): Promise<VerifyCheckpointResult> {
  let parsed: CheckpointJson;
  try {
    parsed = parseCheckpointJson(checkpoint);
  } catch {
    return { valid: false, failure: 'malformed_checkpoint' };
  }
  if (options.origin !== undefined && parsed.origin !== options.origin) {
    return { valid: false, failure: 'origin_mismatch' };
  }
  const signature = await verifyDocument(checkpoint, trusted);
  if (!signature.valid) return { valid: false, failure: signature.failure ?? 'signature_mismatch' };
  return { valid: true, checkpoint: parsed };
}

export interface CheckpointInclusionInput {
  /** the entry's exact bytes (`GET /v1/audit/entries/{index}`'s `entry`, or an evidence pack's `audit_entry`) */
  entry: string | Uint8Array;
  /** `{ leaf_index, tree_size, leaf_hash, hashes }` */
  proof: unknown;
  checkpoint: unknown;
}

/** The entry is leaf `proof.leaf_index` of the tree the signed checkpoint commits to. */
export async function verifyCheckpointInclusion(
  input: CheckpointInclusionInput,
  trusted: TrustedKeySource,
  options: { origin?: string } = {},
): Promise<VerifyCheckpointResult> {
  const checked = await verifyCheckpoint(input.checkpoint, trusted, options);
  if (!checked.valid || checked.checkpoint === undefined) return checked;
  let proofSize: number;
  let proofLeaf: string;
  try {
    const proof = parseInclusionProofJson(input.proof);
    proofSize = proof.tree_size;
    proofLeaf = proof.leaf_hash;
  } catch {
    return { valid: false, failure: 'malformed_proof' };
  }
  if (proofSize !== checked.checkpoint.size) return { valid: false, failure: 'tree_size_mismatch' };
  const bytes = typeof input.entry === 'string' ? new TextEncoder().encode(input.entry) : input.entry;
  if (encodeBase64(leafHash(bytes)) !== proofLeaf) return { valid: false, failure: 'leaf_hash_mismatch' };
  const result = verifyInclusionProofJson(input.proof, checked.checkpoint.root_hash);
  return result.valid
    ? { valid: true, checkpoint: checked.checkpoint }
    : { valid: false, failure: result.failure, checkpoint: checked.checkpoint };
}
