/**
 * RFC 9162 2.1.4.2 consistency proof verification, step by step as the RFC writes it, written by hand: no well-kept
 * JS library does RFC 9162 proofs with this API. Model: transparency-dev/merkle `proof/verify.go`; its public vectors
 * fix the edge cases: size1 = 0 is always refused, equal sizes need an empty proof and byte-equal roots.
 * Attacker assumption: sizes, roots and proof come from the network; nothing here throws.
 */
import { bytesEqual } from './bytes-equal.ts';
import { HASH_SIZE, nodeHash } from './hashing.ts';
import { isBytes, isHashList } from './proof-checks.ts';
import { half, isOdd, isPowerOfTwo, isTreeSize } from './tree-math.ts';
import type { MerkleRootResult, MerkleVerifyResult } from './verify-result.ts';

/**
 * The root of the tree of `size2` leaves that a consistency proof from (`size1`, `root1`) leads to, after checking
 * that the proof also leads back to `root1`.
 */
export function rootFromConsistencyProof(
  size1: number,
  size2: number,
  proof: readonly Uint8Array[],
  root1: Uint8Array,
): MerkleRootResult {
  if (!isTreeSize(size1) || !isTreeSize(size2)) return { valid: false, failure: 'invalid_size' };
  if (size1 > size2) return { valid: false, failure: 'size1_gt_size2' };
  if (!isHashList(proof)) return { valid: false, failure: 'malformed_proof' };
  if (!isBytes(root1)) return { valid: false, failure: 'root1_mismatch' };
  // Refused even against another empty tree (the public vectors say so): an empty checkpoint commits to nothing.
  if (size1 === 0) return { valid: false, failure: 'size1_zero' };
  if (size1 === size2) {
    // Same tree: nothing to prove, the caller compares the roots byte for byte.
    if (proof.length !== 0) return { valid: false, failure: 'wrong_proof_size' };
    return { valid: true, root: root1 };
  }
  // Step 1 (an empty proof) is covered: the expected length is at least 1 when 0 < size1 < size2.
  if (proof.length !== consistencyProofLength(size1, size2)) return { valid: false, failure: 'wrong_proof_size' };
  if (root1.length !== HASH_SIZE) return { valid: false, failure: 'root1_mismatch' };

  // Step 2: a power-of-two old tree is itself a node of the new tree, so its root seeds the path.
  const path = isPowerOfTwo(size1) ? [root1, ...proof] : proof;
  // Steps 3-4.
  let fn = size1 - 1;
  let sn = size2 - 1;
  while (isOdd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  // Step 5.
  let fr = path[0] as Uint8Array;
  let sr = fr;
  // Step 6.
  for (const c of path.slice(1)) {
    if (sn === 0) return { valid: false, failure: 'wrong_proof_size' };
    if (isOdd(fn) || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (!isOdd(fn)) {
        while (!isOdd(fn) && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  // Step 7, except the comparison with root2, which the caller makes.
  if (sn !== 0) return { valid: false, failure: 'wrong_proof_size' };
  if (!bytesEqual(fr, root1)) return { valid: false, failure: 'root1_mismatch' };
  return { valid: true, root: sr };
}

/**
 * True when `proof` proves that the tree of `size1` leaves with MTH `root1` is a prefix of the tree of `size2`
 * leaves with MTH `root2`. Requires 0 < size1 <= size2; with size1 = size2 the proof must be empty and the roots
 * equal.
 */
export function verifyConsistency(
  size1: number,
  size2: number,
  proof: readonly Uint8Array[],
  root1: Uint8Array,
  root2: Uint8Array,
): MerkleVerifyResult {
  const computed = rootFromConsistencyProof(size1, size2, proof, root1);
  if (!computed.valid) return computed;
  if (!isBytes(root2) || !bytesEqual(computed.root, root2)) return { valid: false, failure: 'root2_mismatch' };
  return { valid: true };
}

/** How many proof hashes the RFC 9162 loop consumes for 0 < size1 < size2: its control flow without the hashing. */
function consistencyProofLength(size1: number, size2: number): number {
  let fn = size1 - 1;
  let sn = size2 - 1;
  while (isOdd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  let pathLength = 1;
  while (sn !== 0) {
    if (!isOdd(fn) && fn === sn) {
      while (!isOdd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    }
    fn = half(fn);
    sn = half(sn);
    pathLength++;
  }
  return isPowerOfTwo(size1) ? pathLength - 1 : pathLength;
}
