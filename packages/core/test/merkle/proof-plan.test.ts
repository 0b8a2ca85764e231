import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CompactRange,
  consistencyProof,
  inclusionProof,
  InMemoryNodeHashReader,
  isPerfectRange,
  planConsistencyProof,
  planInclusionProof,
  resolveProofPlan,
  type NodeHashReader,
} from '../../src/merkle/index.ts';
import { makeLeaves } from './leaves.ts';

const LEAVES = makeLeaves(100);

/** What a store does: keep the perfect nodes CompactRange reports on append, serve proofs from them alone. */
function storeBackedReader(count: number): NodeHashReader & { reads: number } {
  const nodes = new Map<string, Uint8Array>();
  const range = new CompactRange();
  for (const leaf of LEAVES.slice(0, count)) range.append(leaf, (r, hash) => nodes.set(`${r.begin}-${r.end}`, hash));
  return {
    size: count,
    reads: 0,
    perfectSubtreeHash(begin, end) {
      this.reads++;
      const hash = nodes.get(`${begin}-${end}`);
      if (hash === undefined) throw new Error(`not stored: [${begin}, ${end})`);
      return hash;
    },
  };
}

describe('proof plans and node hash readers', () => {
  it('name only perfect subtrees, so stored nodes suffice to serve every proof', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100 }), fc.nat(), fc.nat(), (size, a, b) => {
        const reader = storeBackedReader(size);
        const index = a % size;
        const size1 = 1 + (b % size);
        for (const ranges of [...planInclusionProof(index, size), ...planConsistencyProof(size1, size)]) {
          for (const r of ranges) expect(isPerfectRange(r.begin, r.end)).toBe(true);
        }
        expect(inclusionProof(reader, index, size)).toEqual(inclusionProof(LEAVES.slice(0, size), index, size));
        expect(consistencyProof(reader, size1, size)).toEqual(consistencyProof(LEAVES.slice(0, size), size1, size));
      }),
      { numRuns: 200 },
    );
  });

  it('read O(log^2 n) nodes for a proof, not the whole tree', () => {
    const reader = storeBackedReader(100);
    resolveProofPlan(planInclusionProof(99, 100), reader);
    expect(reader.reads).toBeLessThanOrEqual(7 * 7);
  });

  it('serve proofs for an older tree size from a larger log', () => {
    const reader = new InMemoryNodeHashReader(LEAVES);
    expect(inclusionProof(reader, 3, 10)).toEqual(inclusionProof(LEAVES.slice(0, 10), 3, 10));
  });

  it.each([
    ['an index equal to the size', () => inclusionProof(LEAVES, 10, 10), '/leaf_index'],
    ['a negative index', () => inclusionProof(LEAVES, -1, 10), '/leaf_index'],
    ['a fractional index', () => inclusionProof(LEAVES, 0.5, 10), '/leaf_index'],
    ['the empty tree', () => inclusionProof(LEAVES, 0, 0), '/tree_size'],
    ['a size beyond the log', () => inclusionProof(LEAVES, 0, 101), '/tree_size'],
    ['size1 = 0', () => consistencyProof(LEAVES, 0, 10), '/size1'],
    ['size1 > size2', () => consistencyProof(LEAVES, 11, 10), '/size1'],
    ['an unsafe size2', () => consistencyProof(LEAVES, 1, 2 ** 53), '/size2'],
    ['a size2 beyond the log', () => consistencyProof(LEAVES, 1, 101), '/size2'],
  ])('generation refuses %s, naming the parameter', (_, generate, path) => {
    expect(generate).toThrow(
      expect.objectContaining({ code: 'invalid_request', errors: [expect.objectContaining({ path })] }),
    );
  });

  it('in-memory reader refuses a range that is not a perfect subtree of its leaves', () => {
    const reader = new InMemoryNodeHashReader(LEAVES.slice(0, 10));
    expect(reader.perfectSubtreeHash(8, 10)).toBeInstanceOf(Uint8Array);
    for (const [begin, end] of [
      [0, 3],
      [2, 6],
      [8, 16],
      [5, 5],
    ] as const) {
      expect(() => reader.perfectSubtreeHash(begin, end)).toThrow(expect.objectContaining({ code: 'internal' }));
    }
  });
});
