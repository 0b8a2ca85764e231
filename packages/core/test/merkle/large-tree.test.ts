import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CompactRange,
  planConsistencyProof,
  planInclusionProof,
  rootFromConsistencyProof,
  rootFromInclusionProof,
  verifyConsistency,
  verifyInclusion,
} from '../../src/merkle/index.ts';
import { encodeBase64 } from '../../src/merkle/base64.ts';
import { refConsistencyRoots, refVerifyInclusion } from './reference.ts';

// Trees beyond 2^32 leaves cannot be built here, but a proof over one is only hashes: random proof hashes of the
// right count give the root the reference recursion computes. A 32-bit shift anywhere would break these.
const hash = fc.uint8Array({ minLength: 32, maxLength: 32 });
const big = fc.integer({ min: 2 ** 32 - 3, max: Number.MAX_SAFE_INTEGER });

describe('trees beyond 2^32 leaves', () => {
  it('inclusion: the verifier agrees with the reference on index, size and proof length', () => {
    const sizeAndIndex = big.chain((size) =>
      fc.record({
        size: fc.constant(size),
        index: fc.oneof(fc.integer({ min: 0, max: size - 1 }), fc.constant(size - 1), fc.constant(0)),
      }),
    );
    fc.assert(
      fc.property(
        sizeAndIndex,
        hash,
        fc.array(hash, { minLength: 64, maxLength: 64 }),
        ({ size, index }, leaf, pool) => {
          const length = planInclusionProof(index, size).length;
          const proof = pool.slice(0, length);
          const computed = rootFromInclusionProof(leaf, index, size, proof);
          if (!computed.valid) throw new Error(computed.failure);
          expect(refVerifyInclusion(leaf, index, size, proof, computed.root)).toBe(true);
          expect(verifyInclusion(leaf, index, size, proof, computed.root)).toEqual({ valid: true });
          expect(verifyInclusion(leaf, index, size, pool.slice(0, length + 1), computed.root).valid).toBe(false);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('consistency: the verifier agrees with the reference', () => {
    const sizes = big.chain((size2) =>
      fc.record({ size1: fc.integer({ min: 1, max: size2 - 1 }), size2: fc.constant(size2) }),
    );
    fc.assert(
      fc.property(sizes, hash, fc.array(hash, { minLength: 64, maxLength: 64 }), ({ size1, size2 }, seed, pool) => {
        const proof = pool.slice(0, planConsistencyProof(size1, size2).length);
        // A power-of-two old tree takes its root (here `seed`) from outside the proof; otherwise the proof fixes it.
        const roots = refConsistencyRoots(size1, size2, proof, seed);
        if (roots === undefined) throw new Error('the plan length differs from the reference');
        const [root1, root2] = roots;
        expect(rootFromConsistencyProof(size1, size2, proof, root1)).toEqual({ valid: true, root: root2 });
        expect(verifyConsistency(size1, size2, proof, root1, root2)).toEqual({ valid: true });
        expect(verifyConsistency(size1, size2, pool.slice(0, proof.length + 1), root1, root2).valid).toBe(false);
      }),
      { numRuns: 200 },
    );
  });

  it('CompactRange restores and extends a frontier of 2^53 - 2 leaves', () => {
    const size = Number.MAX_SAFE_INTEGER - 1;
    const ones = size.toString(2).replaceAll('0', '').length;
    const hashes = Array.from({ length: ones }, (_, i) => encodeBase64(new Uint8Array(32).fill(i)));
    const range = CompactRange.fromJSON({ size, hashes });
    range.append(new Uint8Array(32).fill(99));
    expect(range.size).toBe(Number.MAX_SAFE_INTEGER);
    expect(range.hashes).toHaveLength(53);
    expect(() => range.append(new Uint8Array(32))).toThrow(expect.objectContaining({ code: 'invalid_request' }));
  });
});
