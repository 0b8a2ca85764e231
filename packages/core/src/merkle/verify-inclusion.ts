/**
 * RFC 9162 2.1.3.2 inclusion proof verification, step by step as the RFC writes it, written by hand: no well-kept
 * JS library does RFC 9162 proofs with this API. Model: transparency-dev/merkle `proof/verify.go`.
 * Attacker assumption: index, size, leaf hash and proof all come from the network; nothing here throws, every
 * refusal is a failure code. Shifts are arithmetic (tree-math.ts): sizes may exceed 2^32.
 */
import { bytesEqual } from './bytes-equal.ts';
import { nodeHash } from './hashing.ts';
import { isBytes, isHash, isHashList } from './proof-checks.ts';
import { half, isOdd, isTreeSize } from './tree-math.ts';
import type { MerkleRootResult, MerkleVerifyResult } from './verify-result.ts';

/** The root that an inclusion proof of `leafHash` at `index` leads to in a tree of `size` leaves. */
export function rootFromInclusionProof(
  leafHash: Uint8Array,
  index: number,
  size: number,
  proof: readonly Uint8Array[],
): MerkleRootResult {
  if (!isTreeSize(size)) return { valid: false, failure: 'invalid_size' };
  // Step 1: leaf_index < tree_size (which also refuses every index into the empty tree).
  if (!isTreeSize(index) || index >= size) return { valid: false, failure: 'index_out_of_range' };
  if (!isHash(leafHash)) return { valid: false, failure: 'invalid_leaf_hash' };
  if (!isHashList(proof)) return { valid: false, failure: 'malformed_proof' };
  // Checked up front for a precise code; the RFC loop below would also refuse a proof of the wrong length.
  if (proof.length !== inclusionProofLength(index, size)) return { valid: false, failure: 'wrong_proof_size' };

  // Steps 2-3.
  let fn = index;
  let sn = size - 1;
  let r = leafHash;
  // Step 4.
  for (const p of proof) {
    if (sn === 0) return { valid: false, failure: 'wrong_proof_size' };
    if (isOdd(fn) || fn === sn) {
      r = nodeHash(p, r);
      // A node without a right sibling is promoted unchanged: skip the levels where it is a left child.
      if (!isOdd(fn)) {
        while (!isOdd(fn) && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  // Step 5, first half.
  if (sn !== 0) return { valid: false, failure: 'wrong_proof_size' };
  return { valid: true, root: r };
}

/** True when `proof` proves that `leafHash` is leaf `index` of the tree of `size` leaves whose MTH is `root`. */
export function verifyInclusion(
  leafHash: Uint8Array,
  index: number,
  size: number,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): MerkleVerifyResult {
  const computed = rootFromInclusionProof(leafHash, index, size, proof);
  if (!computed.valid) return computed;
  // Step 5, second half.
  if (!isBytes(root) || !bytesEqual(computed.root, root)) return { valid: false, failure: 'root_mismatch' };
  return { valid: true };
}

/** How many hashes the RFC 9162 loop consumes for (index, size): its control flow without the hashing. */
function inclusionProofLength(index: number, size: number): number {
  let fn = index;
  let sn = size - 1;
  let count = 0;
  while (sn !== 0) {
    if (!isOdd(fn) && fn === sn) {
      while (!isOdd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    }
    fn = half(fn);
    sn = half(sn);
    count++;
  }
  return count;
}
