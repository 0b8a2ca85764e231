/**
 * The consistency proof on the wire (CONTRACT section 8): `{ size1, size2, hashes }`, hashes in standard base64.
 * Written by hand: no well-kept JS library does RFC 9162 proofs with this API.
 */
import { isAarError } from '../errors/aar-error.ts';
import { encodeBase64 } from './base64.ts';
import { decodeHash, isBase64Hash, readHashList, readObject, readTreeSize } from './json-fields.ts';
import { verifyConsistency } from './verify-consistency.ts';
import type { MerkleVerifyResult } from './verify-result.ts';

export interface ConsistencyProofJson {
  size1: number;
  size2: number;
  hashes: string[];
}

const MEMBERS = ['size1', 'size2', 'hashes'];

/**
 * Checks the shape strictly: exactly the three members, safe non-negative integers, canonical base64 32-byte
 * hashes. Throws AarError `invalid_request` naming the field. Whether the proof holds is for the verifier.
 */
export function parseConsistencyProofJson(value: unknown, path = ''): ConsistencyProofJson {
  const object = readObject(value, path, MEMBERS);
  return {
    size1: readTreeSize(object, 'size1', path),
    size2: readTreeSize(object, 'size2', path),
    hashes: readHashList(object, 'hashes', path),
  };
}

export function consistencyProofToJson(
  size1: number,
  size2: number,
  hashes: readonly Uint8Array[],
): ConsistencyProofJson {
  return { size1, size2, hashes: hashes.map(encodeBase64) };
}

/**
 * Verifies a wire proof between two base64 roots (the `root_hash` of two checkpoints). Never throws: a document
 * of the wrong shape is `malformed_proof`, a root that is not a base64 32-byte hash is `malformed_root`.
 */
export function verifyConsistencyProofJson(
  proof: unknown,
  root1Base64: unknown,
  root2Base64: unknown,
): MerkleVerifyResult {
  let parsed: ConsistencyProofJson;
  try {
    parsed = parseConsistencyProofJson(proof);
  } catch (error) {
    if (isAarError(error)) return { valid: false, failure: 'malformed_proof' };
    throw error;
  }
  if (!isBase64Hash(root1Base64) || !isBase64Hash(root2Base64)) return { valid: false, failure: 'malformed_root' };
  return verifyConsistency(
    parsed.size1,
    parsed.size2,
    parsed.hashes.map(decodeHash),
    decodeHash(root1Base64),
    decodeHash(root2Base64),
  );
}
