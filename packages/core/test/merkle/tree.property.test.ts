import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  consistencyProof,
  inclusionProof,
  InMemoryNodeHashReader,
  rootFromConsistencyProof,
  rootFromInclusionProof,
  rootFromLeafHashes,
  verifyConsistency,
  verifyInclusion,
} from '../../src/merkle/index.ts';
import { flipBit, makeLeaves } from './leaves.ts';
import { refPath, refProof, refRoot, refVerifyConsistency, refVerifyInclusion } from './reference.ts';

const MAX = 300;
const LEAVES = makeLeaves(MAX);
const READER = new InMemoryNodeHashReader(LEAVES);
const ROOTS = Array.from({ length: MAX + 1 }, (_, n) => refRoot(LEAVES.slice(0, n)));

const sizeAndIndex = fc
  .integer({ min: 1, max: MAX })
  .chain((size) => fc.record({ size: fc.constant(size), index: fc.integer({ min: 0, max: size - 1 }) }));
const twoSizes = fc
  .integer({ min: 1, max: MAX })
  .chain((size2) => fc.record({ size1: fc.integer({ min: 1, max: size2 }), size2: fc.constant(size2) }));

describe('roots', () => {
  it('rootFromLeafHashes equals the recursive MTH for every size 0..300', () => {
    for (let n = 0; n <= MAX; n++) expect(rootFromLeafHashes(LEAVES.slice(0, n))).toEqual(ROOTS[n]);
  });
});

describe('inclusion proofs', () => {
  it('equal the recursive PATH and verify, from a reader or from the leaf list', () => {
    fc.assert(
      fc.property(sizeAndIndex, ({ size, index }) => {
        const proof = inclusionProof(READER, index, size);
        expect(proof).toEqual(refPath(index, LEAVES.slice(0, size)));
        expect(inclusionProof(LEAVES.slice(0, size), index, size)).toEqual(proof);
        const leaf = LEAVES[index] as Uint8Array;
        expect(verifyInclusion(leaf, index, size, proof, ROOTS[size] as Uint8Array)).toEqual({ valid: true });
        expect(rootFromInclusionProof(leaf, index, size, proof)).toEqual({ valid: true, root: ROOTS[size] });
      }),
      { numRuns: 300 },
    );
  });

  it('covers every index of every tree up to 40 leaves', () => {
    for (let size = 1; size <= 40; size++) {
      for (let index = 0; index < size; index++) {
        const proof = inclusionProof(READER, index, size);
        expect(proof).toEqual(refPath(index, LEAVES.slice(0, size)));
        expect(verifyInclusion(LEAVES[index] as Uint8Array, index, size, proof, ROOTS[size] as Uint8Array).valid).toBe(
          true,
        );
      }
    }
  });

  it('fail when any bit of any proof hash, of the leaf or of the root flips', () => {
    fc.assert(
      fc.property(sizeAndIndex, fc.nat(), fc.nat(255), ({ size, index }, pick, bit) => {
        const proof = inclusionProof(READER, index, size);
        const leaf = LEAVES[index] as Uint8Array;
        const root = ROOTS[size] as Uint8Array;
        const target = pick % (proof.length + 2);
        const mutated = proof.map((hash, i) => (i === target ? flipBit(hash, bit) : hash));
        const result =
          target === proof.length
            ? verifyInclusion(flipBit(leaf, bit), index, size, proof, root)
            : target === proof.length + 1
              ? verifyInclusion(leaf, index, size, proof, flipBit(root, bit))
              : verifyInclusion(leaf, index, size, mutated, root);
        expect(result).toEqual({ valid: false, failure: 'root_mismatch' });
      }),
      { numRuns: 500 },
    );
  });

  it('fail for every other index of the same tree', () => {
    fc.assert(
      fc.property(sizeAndIndex, fc.nat(), ({ size, index }, other) => {
        fc.pre(size > 1);
        const wrong = (index + 1 + (other % (size - 1))) % size;
        const proof = inclusionProof(READER, index, size);
        const result = verifyInclusion(LEAVES[index] as Uint8Array, wrong, size, proof, ROOTS[size] as Uint8Array);
        expect(result.valid).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('with another index or size, accept exactly when the RFC recursion hashes in the same order', () => {
    // A changed size can legitimately verify (index 0 of 3 leaves hashes like index 0 of 4): the size is bound by
    // the signed checkpoint, not by the proof. The reference decides.
    const offsets = fc.constantFrom(-2, -1, 0, 1, 2, 3);
    const changes = fc.record({ index: offsets, size: offsets, xor: fc.boolean(), double: fc.boolean() });
    const seen = new Set<boolean>();
    fc.assert(
      fc.property(sizeAndIndex, changes, ({ size, index }, change) => {
        const index2 = change.xor ? index ^ 2 : index + change.index;
        const size2 = change.double ? size * 2 : size + change.size;
        const proof = inclusionProof(READER, index, size);
        const leaf = LEAVES[index] as Uint8Array;
        const root = ROOTS[size] as Uint8Array;
        const expected = refVerifyInclusion(leaf, index2, size2, proof, root);
        expect(verifyInclusion(leaf, index2, size2, proof, root).valid).toBe(expected);
        if (index2 !== index || size2 !== size) seen.add(expected);
      }),
      { numRuns: 1000 },
    );
    expect(seen).toEqual(new Set([true, false]));
  });

  it('fail with a hash added or removed anywhere', () => {
    fc.assert(
      fc.property(sizeAndIndex, fc.nat(), ({ size, index }, at) => {
        const proof = inclusionProof(READER, index, size);
        const leaf = LEAVES[index] as Uint8Array;
        const root = ROOTS[size] as Uint8Array;
        const position = at % (proof.length + 1);
        const longer = [...proof.slice(0, position), root, ...proof.slice(position)];
        expect(verifyInclusion(leaf, index, size, longer, root)).toEqual({ valid: false, failure: 'wrong_proof_size' });
        if (proof.length > 0) {
          const shorter = proof.filter((_, i) => i !== position % proof.length);
          const result = verifyInclusion(leaf, index, size, shorter, root);
          expect(result).toEqual({ valid: false, failure: 'wrong_proof_size' });
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('consistency proofs', () => {
  it('equal the recursive PROOF and verify for every pair 1 <= size1 <= size2 <= 48', () => {
    for (let size2 = 1; size2 <= 48; size2++) {
      for (let size1 = 1; size1 <= size2; size1++) {
        const proof = consistencyProof(READER, size1, size2);
        expect(proof).toEqual(refProof(size1, LEAVES.slice(0, size2)));
        const root1 = ROOTS[size1] as Uint8Array;
        const root2 = ROOTS[size2] as Uint8Array;
        expect(verifyConsistency(size1, size2, proof, root1, root2)).toEqual({ valid: true });
        expect(rootFromConsistencyProof(size1, size2, proof, root1)).toEqual({ valid: true, root: root2 });
      }
    }
  });

  it('equal the recursive PROOF and verify for random sizes up to 300', () => {
    fc.assert(
      fc.property(twoSizes, ({ size1, size2 }) => {
        const proof = consistencyProof(LEAVES.slice(0, size2), size1, size2);
        expect(proof).toEqual(refProof(size1, LEAVES.slice(0, size2)));
        const result = verifyConsistency(size1, size2, proof, ROOTS[size1] as Uint8Array, ROOTS[size2] as Uint8Array);
        expect(result).toEqual({ valid: true });
      }),
      { numRuns: 300 },
    );
  });

  it('fail when any bit of any proof hash or of either root flips', () => {
    fc.assert(
      fc.property(twoSizes, fc.nat(), fc.nat(255), ({ size1, size2 }, pick, bit) => {
        fc.pre(size1 < size2);
        const proof = consistencyProof(READER, size1, size2);
        const root1 = ROOTS[size1] as Uint8Array;
        const root2 = ROOTS[size2] as Uint8Array;
        const target = pick % (proof.length + 2);
        const mutated = proof.map((hash, i) => (i === target ? flipBit(hash, bit) : hash));
        const result =
          target === proof.length
            ? verifyConsistency(size1, size2, proof, flipBit(root1, bit), root2)
            : target === proof.length + 1
              ? verifyConsistency(size1, size2, proof, root1, flipBit(root2, bit))
              : verifyConsistency(size1, size2, mutated, root1, root2);
        expect(result.valid).toBe(false);
        if (!result.valid) expect(['root1_mismatch', 'root2_mismatch']).toContain(result.failure);
      }),
      { numRuns: 500 },
    );
  });

  it('with other sizes, accept exactly when the reference recursion does', () => {
    const offsets = fc.constantFrom(-2, -1, 0, 1, 2);
    const changes = fc.record({ size1: offsets, size2: offsets, xor: fc.boolean(), double: fc.boolean() });
    const seen = new Set<boolean>();
    fc.assert(
      fc.property(twoSizes, changes, ({ size1, size2 }, change) => {
        const size1b = change.xor ? size1 ^ 2 : size1 + change.size1;
        const size2b = change.double ? size2 * 2 : size2 + change.size2;
        const proof = consistencyProof(READER, size1, size2);
        const root1 = ROOTS[size1] as Uint8Array;
        const root2 = ROOTS[size2] as Uint8Array;
        const expected = refVerifyConsistency(size1b, size2b, proof, root1, root2);
        expect(verifyConsistency(size1b, size2b, proof, root1, root2).valid).toBe(expected);
        if (size1b !== size1 || size2b !== size2) seen.add(expected);
      }),
      { numRuns: 1000 },
    );
    expect(seen).toEqual(new Set([true, false]));
  });

  it('fail with a hash added or removed anywhere', () => {
    fc.assert(
      fc.property(twoSizes, fc.nat(), ({ size1, size2 }, at) => {
        const proof = consistencyProof(READER, size1, size2);
        const root1 = ROOTS[size1] as Uint8Array;
        const root2 = ROOTS[size2] as Uint8Array;
        const position = at % (proof.length + 1);
        const longer = [...proof.slice(0, position), root2, ...proof.slice(position)];
        expect(verifyConsistency(size1, size2, longer, root1, root2)).toEqual({
          valid: false,
          failure: 'wrong_proof_size',
        });
        if (proof.length > 0) {
          const shorter = proof.filter((_, i) => i !== position % proof.length);
          const result = verifyConsistency(size1, size2, shorter, root1, root2);
          expect(result).toEqual({ valid: false, failure: 'wrong_proof_size' });
        }
      }),
      { numRuns: 300 },
    );
  });

  it('refuse size1 = 0 and size1 > size2, in generation and verification', () => {
    const root = ROOTS[3] as Uint8Array;
    expect(() => consistencyProof(READER, 0, 3)).toThrow(expect.objectContaining({ code: 'invalid_request' }));
    expect(() => consistencyProof(READER, 4, 3)).toThrow(expect.objectContaining({ code: 'invalid_request' }));
    expect(verifyConsistency(0, 3, [], ROOTS[0] as Uint8Array, root)).toEqual({ valid: false, failure: 'size1_zero' });
    expect(verifyConsistency(0, 0, [], ROOTS[0] as Uint8Array, ROOTS[0] as Uint8Array)).toEqual({
      valid: false,
      failure: 'size1_zero',
    });
    expect(verifyConsistency(4, 3, [], root, root)).toEqual({ valid: false, failure: 'size1_gt_size2' });
  });
});
