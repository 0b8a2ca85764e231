/**
 * The inclusion proof on the wire (CONTRACT section 8): `{ leaf_index, tree_size, leaf_hash, hashes }`, hashes in
 * standard base64, `leaf_hash` = SHA-256(0x00 ‖ entry bytes). Written by hand: no well-kept JS library does RFC 9162
 * proofs with this API.
 */
import { isAarError } from '../errors/aar-error.ts';
import { encodeBase64 } from './base64.ts';
import { decodeHash, isBase64Hash, readHash, readHashList, readObject, readTreeSize } from './json-fields.ts';
import { verifyInclusion } from './verify-inclusion.ts';
import type { MerkleVerifyResult } from './verify-result.ts';

export interface InclusionProofJson {
  leaf_index: number;
  tree_size: number;
  leaf_hash: string;
  hashes: string[];
}

const MEMBERS = ['leaf_index', 'tree_size', 'leaf_hash', 'hashes'];

/**
 * Checks the shape strictly: exactly the four members, safe non-negative integers, canonical base64 32-byte hashes.
 * Throws AarError `invalid_request` naming the field (`${path}/leaf_hash`, `${path}/hashes/3`). Whether the proof
 * holds is `verifyInclusionProofJson`'s question.
 */
export function parseInclusionProofJson(value: unknown, path = ''): InclusionProofJson {
  const object = readObject(value, path, MEMBERS);
  return {
    leaf_index: readTreeSize(object, 'leaf_index', path),
    tree_size: readTreeSize(object, 'tree_size', path),
    leaf_hash: readHash(object, 'leaf_hash', path),
    hashes: readHashList(object, 'hashes', path),
  };
}

export function inclusionProofToJson(
  leafIndex: number,
  treeSize: number,
  leafHash: Uint8Array,
  hashes: readonly Uint8Array[],
): InclusionProofJson {
  return {
    leaf_index: leafIndex,
    tree_size: treeSize,
    leaf_hash: encodeBase64(leafHash),
    hashes: hashes.map(encodeBase64),
  };
}

/**
 * Verifies a wire proof against a base64 root (a checkpoint's `root_hash`). Never throws: a document of the wrong
 * shape is `malformed_proof`, a root that is not a base64 32-byte hash is `malformed_root`.
 */
export function verifyInclusionProofJson(proof: unknown, rootBase64: unknown): MerkleVerifyResult {
  let parsed: InclusionProofJson;
  try {
    parsed = parseInclusionProofJson(proof);
  } catch (error) {
    if (isAarError(error)) return { valid: false, failure: 'malformed_proof' };
    throw error;
  }
  if (!isBase64Hash(rootBase64)) return { valid: false, failure: 'malformed_root' };
  return verifyInclusion(
    decodeHash(parsed.leaf_hash),
    parsed.leaf_index,
    parsed.tree_size,
    parsed.hashes.map(decodeHash),
    decodeHash(rootBase64),
  );
}
