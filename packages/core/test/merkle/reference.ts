/**
 * Naive reference of RFC 9162 section 2.1, for tests only: MTH, PATH and PROOF/SUBPROOF written as the RFC's
 * recursive definitions over slices of leaf hashes, and reference verifiers that recompute a root by the same
 * recursion (not by the RFC's iterative 2.1.3.2 / 2.1.4.2 loops that the fast code uses).
 * Sizes may exceed 2^32, so the split point is found by multiplication, never by bit operators.
 */
import { sha256 } from '@noble/hashes/sha2.js';

export function refLeafHash(entry: Uint8Array): Uint8Array {
  return sha256(Uint8Array.of(0x00, ...entry));
}

export function refNodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  return sha256(Uint8Array.of(0x01, ...left, ...right));
}

/** The largest power of two strictly below n (n >= 2). */
export function refSplit(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** MTH(D[n]) over leaf hashes. */
export function refRoot(leaves: readonly Uint8Array[]): Uint8Array {
  if (leaves.length === 0) return sha256(new Uint8Array(0));
  if (leaves.length === 1) return leaves[0] as Uint8Array;
  const k = refSplit(leaves.length);
  return refNodeHash(refRoot(leaves.slice(0, k)), refRoot(leaves.slice(k)));
}

/** PATH(m, D[n]). */
export function refPath(m: number, leaves: readonly Uint8Array[]): Uint8Array[] {
  if (leaves.length <= 1) return [];
  const k = refSplit(leaves.length);
  if (m < k) return [...refPath(m, leaves.slice(0, k)), refRoot(leaves.slice(k))];
  return [...refPath(m - k, leaves.slice(k)), refRoot(leaves.slice(0, k))];
}

/** PROOF(m, D[n]) = SUBPROOF(m, D[n], true). */
export function refProof(m: number, leaves: readonly Uint8Array[]): Uint8Array[] {
  return refSubproof(m, leaves, true);
}

function refSubproof(m: number, leaves: readonly Uint8Array[], b: boolean): Uint8Array[] {
  if (m === leaves.length) return b ? [] : [refRoot(leaves)];
  const k = refSplit(leaves.length);
  if (m <= k) return [...refSubproof(m, leaves.slice(0, k), b), refRoot(leaves.slice(k))];
  return [...refSubproof(m - k, leaves.slice(k), false), refRoot(leaves.slice(0, k))];
}

/**
 * Reference inclusion check: rebuilds MTH of a tree of `size` leaves by the PATH recursion, taking the proof hashes
 * from its end (the top of the tree) down. Accepts exactly when the recursion uses every hash and reaches `root`.
 */
export function refVerifyInclusion(
  leaf: Uint8Array,
  index: number,
  size: number,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): boolean {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return false;
  if (leaf.length !== 32) return false;
  const rest = [...proof];
  const walk = (m: number, n: number): Uint8Array | undefined => {
    if (n === 1) return leaf;
    const k = refSplit(n);
    const sibling = rest.pop();
    if (sibling === undefined) return undefined;
    if (m < k) {
      const left = walk(m, k);
      return left && refNodeHash(left, sibling);
    }
    const right = walk(m - k, n - k);
    return right && refNodeHash(sibling, right);
  };
  const computed = walk(index, size);
  return computed !== undefined && rest.length === 0 && equal(computed, root);
}

/**
 * Reference consistency check: rebuilds both roots by the SUBPROOF recursion (refConsistencyRoots) and compares.
 */
export function refVerifyConsistency(
  size1: number,
  size2: number,
  proof: readonly Uint8Array[],
  root1: Uint8Array,
  root2: Uint8Array,
): boolean {
  if (!Number.isSafeInteger(size1) || !Number.isSafeInteger(size2) || size1 <= 0 || size1 > size2) return false;
  if (size1 === size2) return proof.length === 0 && equal(root1, root2);
  const roots = refConsistencyRoots(size1, size2, proof, root1);
  return roots !== undefined && equal(roots[0], root1) && equal(roots[1], root2);
}

/**
 * [old root, new root] that a consistency proof for 0 < size1 < size2 implies, by the SUBPROOF recursion taking
 * proof hashes from the end down; `root1` stands for the subtree that is the whole old tree (SUBPROOF's b still
 * true at the bottom, i.e. size1 a power of two). Undefined when the proof has the wrong number of hashes.
 */
export function refConsistencyRoots(
  size1: number,
  size2: number,
  proof: readonly Uint8Array[],
  root1: Uint8Array,
): [Uint8Array, Uint8Array] | undefined {
  const rest = [...proof];
  // Returns [hash of the old tree's part of this subtree, hash of this subtree].
  const walk = (m: number, n: number, b: boolean): [Uint8Array, Uint8Array] | undefined => {
    if (m === n) {
      if (b) return [root1, root1];
      const node = rest.pop();
      return node && [node, node];
    }
    const k = refSplit(n);
    const sibling = rest.pop();
    if (sibling === undefined) return undefined;
    if (m <= k) {
      const left = walk(m, k, b);
      return left && [left[0], refNodeHash(left[1], sibling)];
    }
    const right = walk(m - k, n - k, false);
    return right && [refNodeHash(sibling, right[0]), refNodeHash(sibling, right[1])];
  };
  const roots = walk(size1, size2, true);
  return roots !== undefined && rest.length === 0 ? roots : undefined;
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
