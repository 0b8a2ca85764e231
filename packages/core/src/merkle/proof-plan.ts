/**
 * Which subtree hashes an RFC 9162 proof is made of (2.1.3.1 PATH and 2.1.4.1 PROOF/SUBPROOF, unrolled into loops),
 * written by hand: no well-kept JS library does RFC 9162 proofs with this API.
 * A plan names perfect subtrees only, so a store can fetch them all in one batch (even asynchronously), wrap them in
 * a NodeHashReader and call `resolveProofPlan`.
 */
import { AarError, fieldError } from '../errors/aar-error.ts';
import { nodeHash } from './hashing.ts';
import type { NodeHashReader } from './node-hash-reader.ts';
import type { PerfectRange } from './perfect-range.ts';
import { isTreeSize, splitPoint } from './tree-math.ts';

/** One hash per proof element, in proof order; each is MTH of the listed perfect subtrees (left to right). */
export type ProofPlan = PerfectRange[][];

/**
 * PATH(index, D[0:size]). Throws AarError `invalid_request` naming `/leaf_index` or `/tree_size` when
 * 0 <= index < size does not hold (both may come straight from a request).
 */
export function planInclusionProof(index: number, size: number): ProofPlan {
  if (!isTreeSize(size) || size === 0) {
    throw fieldError('invalid_request', '/tree_size', 'must be a positive safe integer');
  }
  if (!isTreeSize(index) || index >= size) {
    throw fieldError('invalid_request', '/leaf_index', `must be an integer in [0, ${size})`);
  }
  const topDown: ProofPlan = [];
  let begin = 0;
  let end = size;
  while (end - begin > 1) {
    const mid = begin + splitPoint(end - begin);
    if (index < mid) {
      topDown.push(coverSubtree(mid, end));
      end = mid;
    } else {
      topDown.push(coverSubtree(begin, mid));
      begin = mid;
    }
  }
  return topDown.reverse();
}

/**
 * PROOF(size1, D[0:size2]); empty when size1 = size2. Throws AarError `invalid_request` naming `/size1` or `/size2`
 * unless 0 < size1 <= size2: RFC 9162 defines no proof from the empty tree, and verifiers refuse one.
 */
export function planConsistencyProof(size1: number, size2: number): ProofPlan {
  if (!isTreeSize(size2)) throw fieldError('invalid_request', '/size2', 'must be a non-negative safe integer');
  if (!isTreeSize(size1) || size1 === 0 || size1 > size2) {
    throw fieldError('invalid_request', '/size1', 'must be an integer with 0 < size1 <= size2');
  }
  const topDown: ProofPlan = [];
  let begin = 0;
  let end = size2;
  let wholeTree = true; // SUBPROOF's flag b: the old tree is still the whole current subtree's left edge
  while (end !== size1) {
    const mid = begin + splitPoint(end - begin);
    if (size1 <= mid) {
      topDown.push(coverSubtree(mid, end));
      end = mid;
    } else {
      topDown.push(coverSubtree(begin, mid));
      begin = mid;
      wholeTree = false;
    }
  }
  const plan = topDown.reverse();
  if (!wholeTree) plan.unshift(coverSubtree(begin, end));
  return plan;
}

/** The proof hashes of a plan, read from `reader`. */
export function resolveProofPlan(plan: ProofPlan, reader: NodeHashReader): Uint8Array[] {
  return plan.map((ranges) => {
    let hash: Uint8Array | undefined;
    for (let i = ranges.length - 1; i >= 0; i--) {
      const range = ranges[i] as PerfectRange;
      const part = reader.perfectSubtreeHash(range.begin, range.end);
      hash = hash === undefined ? part : nodeHash(part, hash);
    }
    if (hash === undefined) throw new AarError('internal', 'a proof plan names an empty subtree');
    return hash;
  });
}

/**
 * The perfect subtrees covering the MTH subtree [begin, end), largest first.
 * Precondition: begin is a multiple of the largest power of two <= end - begin, as for every subtree of the
 * RFC 9162 recursion, so each piece is itself aligned.
 */
function coverSubtree(begin: number, end: number): PerfectRange[] {
  const ranges: PerfectRange[] = [];
  let width = 1;
  while (width * 2 <= end - begin) width *= 2;
  for (let at = begin; at < end; width /= 2) {
    if (at + width <= end) {
      ranges.push({ begin: at, end: at + width });
      at += width;
    }
  }
  return ranges;
}
