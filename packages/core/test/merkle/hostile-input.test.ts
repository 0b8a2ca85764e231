import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  inclusionProof,
  rootFromLeafHashes,
  verifyConsistency,
  verifyInclusion,
  verifyInclusionProofJson,
  verifyConsistencyProofJson,
} from '../../src/merkle/index.ts';
import { makeLeaves } from './leaves.ts';

const LEAVES = makeLeaves(6);
const ROOT = rootFromLeafHashes(LEAVES);
const PROOF = inclusionProof(LEAVES, 2, 6);
const LEAF = LEAVES[2]!;

// The verifiers take values straight from the network: any type, any number.
type Verify = (...args: unknown[]) => unknown;
const inclusion = verifyInclusion as unknown as Verify;
const consistency = verifyConsistency as unknown as Verify;

describe('verifiers under hostile input', () => {
  it.each([
    ['-1', -1],
    ['1.5', 1.5],
    ['NaN', NaN],
    ['Infinity', Infinity],
    ['2^53', 2 ** 53],
    ['2^64 - 1 as parsed by JSON', JSON.parse('18446744073709551615') as number],
    ['"2"', '2'],
    ['2n', 2n],
    ['null', null],
  ])('refuse leaf index %s as index_out_of_range', (_, index) => {
    expect(inclusion(LEAF, index, 6, PROOF, ROOT)).toEqual({ valid: false, failure: 'index_out_of_range' });
  });

  it.each([
    ['-1', -1],
    ['2^53', 2 ** 53],
    ['"6"', '6'],
    ['undefined', undefined],
  ])('refuse tree size %s as invalid_size', (_, size) => {
    expect(inclusion(LEAF, 2, size, PROOF, ROOT)).toEqual({ valid: false, failure: 'invalid_size' });
    expect(consistency(1, size, [], ROOT, ROOT)).toEqual({ valid: false, failure: 'invalid_size' });
  });

  it('refuses every index of the empty tree', () => {
    expect(verifyInclusion(LEAF, 0, 0, [], ROOT)).toEqual({ valid: false, failure: 'index_out_of_range' });
  });

  it('refuses malformed leaves, proofs and roots with their own codes', () => {
    expect(inclusion(LEAF.slice(1), 2, 6, PROOF, ROOT)).toEqual({ valid: false, failure: 'invalid_leaf_hash' });
    expect(inclusion('leaf', 2, 6, PROOF, ROOT)).toEqual({ valid: false, failure: 'invalid_leaf_hash' });
    expect(inclusion(LEAF, 2, 6, null, ROOT)).toEqual({ valid: false, failure: 'malformed_proof' });
    expect(inclusion(LEAF, 2, 6, [...PROOF.slice(1), 'x'], ROOT)).toEqual({ valid: false, failure: 'malformed_proof' });
    expect(inclusion(LEAF, 2, 6, [PROOF[0], new Uint8Array(0), PROOF[2]], ROOT)).toEqual({
      valid: false,
      failure: 'malformed_proof',
    });
    expect(inclusion(LEAF, 2, 6, PROOF, undefined)).toEqual({ valid: false, failure: 'root_mismatch' });
    expect(inclusion(LEAF, 2, 6, PROOF, ROOT.slice(0, 31))).toEqual({ valid: false, failure: 'root_mismatch' });
    expect(consistency(3, 6, { length: 1 }, ROOT, ROOT)).toEqual({ valid: false, failure: 'malformed_proof' });
    expect(consistency(3, 6, [ROOT], 'root', ROOT)).toEqual({ valid: false, failure: 'root1_mismatch' });
  });

  it('never throw, whatever they are given', () => {
    const anything = fc.oneof(
      fc.anything(),
      fc.uint8Array({ minLength: 32, maxLength: 32 }),
      fc.array(fc.uint8Array({ minLength: 32, maxLength: 32 }), { maxLength: 8 }),
      fc.integer({ min: -5, max: 70 }),
    );
    fc.assert(
      fc.property(fc.array(anything, { minLength: 5, maxLength: 5 }), (args) => {
        expect(() => inclusion(...args)).not.toThrow();
        expect(() => consistency(...args)).not.toThrow();
        expect(() => verifyInclusionProofJson(args[0], args[1])).not.toThrow();
        expect(() => verifyConsistencyProofJson(args[0], args[1], args[2])).not.toThrow();
      }),
      { numRuns: 500 },
    );
  });
});
